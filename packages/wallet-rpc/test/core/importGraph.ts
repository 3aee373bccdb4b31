import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import ts from 'typescript'

/** One import of a source file: the specifier as written, the file it resolves to (relative ones only), how. */
export interface ImportEdge {
  readonly from: string
  readonly specifier: string
  /** The imported source file, relative to the package root, or undefined for a package import. */
  readonly to: string | undefined
  readonly line: number
  /** `import type`/`export type`, or a type position `import('…')`: erased at run time, still a design edge. */
  readonly typeOnly: boolean
  /** `import('…')` at run time. */
  readonly dynamic: boolean
}

/** Every `.ts` file under `folder` (recursively), relative to `root`, tests included if any. */
export function sourceFiles(root: string, folder = 'src'): string[] {
  const files: string[] = []
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const child = join(path, entry.name)
      if (entry.isDirectory()) walk(child)
      else if (entry.name.endsWith('.ts')) files.push(relative(root, child))
    }
  }
  walk(join(root, folder))
  return files.sort()
}

/** The imports of one file, read with the TypeScript parser (static, type-only, re-exports and `import()`). */
export function importsOf(file: string, text: string, exists: (file: string) => boolean): ImportEdge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const edges: ImportEdge[] = []
  const add = (node: ts.Node, specifier: string, typeOnly: boolean, dynamic: boolean) =>
    edges.push({
      from: file,
      specifier,
      to: resolve(file, specifier, exists),
      line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      typeOnly,
      dynamic,
    })
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)))
      add(node, node.moduleSpecifier.text, typeOnly, false)
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node, node.moduleSpecifier.text, node.isTypeOnly, false)
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(node, node.arguments[0].text, false, true)
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node, node.argument.literal.text, true, false)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return edges
}

/** `./x.js` from `src/a/b.ts` → `src/a/x.ts` (or `src/a/x/index.ts`); undefined for a package specifier. */
function resolve(from: string, specifier: string, exists: (file: string) => boolean): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  const base = join(dirname(from), specifier).replace(/\.js$/, '')
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base])
    if (exists(candidate)) return candidate
  return `${base}.ts`
}

/** The import graph of a package's `src`: every edge of every file. */
export function importGraph(root: string, folder = 'src'): ImportEdge[] {
  const exists = (file: string) => existsSync(join(root, file))
  return sourceFiles(root, folder).flatMap((file) =>
    importsOf(file, readFileSync(join(root, file), 'utf8'), exists),
  )
}

/** The strongly connected components with more than one file (or a file importing itself): the cycles. */
export function cycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>()
  for (const edge of edges) {
    if (edge.to === undefined) continue
    if (!next.has(edge.from)) next.set(edge.from, new Set())
    next.get(edge.from)!.add(edge.to)
  }
  // Tarjan's algorithm, iterative-free: the graph is a few hundred files deep at most.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const components: string[][] = []
  const connect = (file: string) => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const target of next.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target)
        low.set(file, Math.min(low.get(file)!, low.get(target)!))
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!))
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = []
      for (let member = stack.pop()!; ; member = stack.pop()!) {
        onStack.delete(member)
        component.push(member)
        if (member === file) break
      }
      if (component.length > 1 || next.get(file)?.has(file)) components.push(component.sort())
    }
  }
  for (const file of [...next.keys()].sort()) if (!index.has(file)) connect(file)
  return components
}

/** The namespaces: each imports core/, crypto/, checks/ and its own files, never another namespace. */
export const namespaces = ['bip122', 'ton', 'eip155', 'solana'] as const

export type RuleOptions = {
  /** Folders of `src` that are applications built on the library: nothing else in `src` imports them. */
  applicationFolders: readonly string[]
  /** Package names this code never imports: for the library every application, for a published application the private ones. */
  applicationPackages: readonly string[]
  /**
   * For an application: the library it is built on, reached only through its package name and published
   * subpaths (`wallet-rpc/pay`), never a relative path into it, its `src`/`dist` or an `internal/` folder.
   */
  library?: { readonly name: string; readonly exports: readonly string[] }
  /** Edges allowed despite the rules, each with its reason: `from → target`. */
  allowed: ReadonlyArray<{ from: string; to: string; why: string }>
}

const describeEdge = (edge: ImportEdge) =>
  `${edge.from}:${edge.line} → ${edge.to ?? edge.specifier}${edge.typeOnly ? ' (type)' : ''}${edge.dynamic ? ' (import())' : ''}`

/** The folder under `src/` a file sits in (`src/bip122/psbt/x.ts` → `bip122`), or '' for a root file. */
const roomOf = (file: string): string => {
  const parts = file.split('/')
  return parts.length > 2 ? parts[1]! : ''
}

/** `name` itself or one of its subpaths (`wallet-rpc/pay`), not a package whose name merely starts alike. */
const isPackage = (specifier: string, name: string) => specifier === name || specifier.startsWith(`${name}/`)

const inFolder = (file: string, folder: string) => file.startsWith(`src/${folder}/`)

/**
 * Every broken rule, one line each naming the offending edge(s): an import cycle (type imports count: a
 * type in the wrong file is a design cycle even when the runtime never sees it), a namespace importing
 * another namespace, the library importing an application, a file importing another folder's `internal/`;
 * for an application, the library reached past its published subpaths.
 */
export function ruleViolations(edges: readonly ImportEdge[], options: RuleOptions): string[] {
  const found: string[] = []
  const isAllowed = (edge: ImportEdge) =>
    options.allowed.some(
      (allow) => allow.from === edge.from && (edge.to ?? edge.specifier).startsWith(allow.to),
    )
  for (const component of cycles(edges)) {
    const members = new Set(component)
    const inside = edges.filter(
      (edge) => members.has(edge.from) && edge.to !== undefined && members.has(edge.to),
    )
    found.push(`cycle of ${component.length} files: ${inside.map(describeEdge).join('; ')}`)
  }
  const isApplication = (file: string) => options.applicationFolders.some((folder) => inFolder(file, folder))
  for (const edge of edges) {
    if (isAllowed(edge)) continue
    const from = roomOf(edge.from)
    if (edge.to?.startsWith('../')) {
      found.push(`imports a file outside its package: ${describeEdge(edge)}`)
    } else if (edge.to !== undefined) {
      const to = roomOf(edge.to)
      const namespaceFrom = (namespaces as readonly string[]).includes(from)
      if (namespaceFrom && to !== from && (namespaces as readonly string[]).includes(to))
        found.push(`namespace ${from} imports namespace ${to}: ${describeEdge(edge)}`)
      if (!isApplication(edge.from) && isApplication(edge.to))
        found.push(`the library imports an application: ${describeEdge(edge)}`)
      const internal = /^(.*)\/internal\//.exec(edge.to)?.[1]
      if (internal !== undefined && !edge.from.startsWith(`${internal}/`))
        found.push(`reaches into another folder's internal/: ${describeEdge(edge)}`)
    } else if (
      !isApplication(edge.from) &&
      options.applicationPackages.some((name) => isPackage(edge.specifier, name))
    ) {
      found.push(`imports an application package: ${describeEdge(edge)}`)
    } else if (
      options.library !== undefined &&
      isPackage(edge.specifier, options.library.name) &&
      !options.library.exports.includes(edge.specifier)
    ) {
      found.push(`imports the library past its published subpaths: ${describeEdge(edge)}`)
    }
  }
  return found
}
