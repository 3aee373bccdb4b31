import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { sourceFiles } from './importGraph.js'

/**
 * What a wallet imports must load in a browser page, an MV3 service worker (no `import()`) and Hermes (no
 * top-level await, no `import.meta`, no Node built-ins). The browser and Hermes tests prove it by running;
 * this proves it of every source file, so a new one cannot slip a forbidden construct onto a path the
 * runtime tests do not take. `Buffer` is allowed only where the namespace checks for it (ton, verify's TON
 * part) — anywhere else it would end in "Buffer is not defined" in a browser.
 */
const root = new URL('../..', import.meta.url).pathname
const portableFolders = [
  'bip122',
  'ton',
  'eip155',
  'solana',
  'core',
  'crypto',
  'verify',
  'checks',
  'walletkit',
  'pay',
  'explorer',
]
/** The package root's own files (`wallet-rpc`: createWalletRpc and its exports). */
const portableRootFiles = ['src/index.ts', 'src/createWalletRpc.ts']
const bufferAllowed = (file: string) =>
  file.startsWith('src/ton/') || /^src\/verify\/(ton_|tonProof|internal\/ton)/.test(file)

/**
 * Node-only sources: the files the package's `browser` field replaces for bundles (browsers, extensions,
 * Metro), and any file imported only by such files. They may use `import.meta` and `require`; no bundle for
 * a wallet's other platforms ever contains them (test/platforms proves the bundles run).
 */
function nodeOnlySources(files: readonly string[]): Set<string> {
  const browser = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      browser?: Record<string, string>
    }
  ).browser
  const nodeOnly = new Set(
    Object.keys(browser ?? {}).map((path) => path.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts')),
  )
  const importsOf = new Map(
    files.map((file) => {
      const text = readFileSync(join(root, file), 'utf8')
      const specifiers = [...text.matchAll(/from '(\.[^']+)\.js'/g)].map(
        (match) => `${join(file, '..', match[1]!)}.ts`,
      )
      return [file, specifiers] as const
    }),
  )
  for (let grew = true; grew; ) {
    grew = false
    for (const file of files) {
      if (nodeOnly.has(file)) continue
      const importers = files.filter((other) => importsOf.get(other)!.includes(file))
      if (importers.length > 0 && importers.every((importer) => nodeOnly.has(importer))) {
        nodeOnly.add(file)
        grew = true
      }
    }
  }
  return nodeOnly
}

/**
 * Server-side sources inside a portable folder: `pay/postgres` is the merchant's webhook store (its own subpath,
 * `wallet-rpc/pay/postgres`, which no wallet imports); it loads `pg` by `import()` when given a connection string.
 */
const serverFolders = ['src/pay/postgres/']

function sources(): string[] {
  return [
    ...portableRootFiles,
    ...portableFolders.flatMap((folder) => sourceFiles(root, `src/${folder}`)),
  ].filter((file) => !serverFolders.some((folder) => file.startsWith(folder)))
}

/** A bare `Buffer` reference (not a type, not a property name such as a checked `globalThis.Buffer`). */
const isBufferGlobal = (node: ts.Node) =>
  ts.isIdentifier(node) &&
  node.text === 'Buffer' &&
  !ts.isTypeReferenceNode(node.parent) &&
  !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node) &&
  !(ts.isPropertySignature(node.parent) && node.parent.name === node)

/** Every forbidden construct in one file, as `file:line what`. */
function findings(file: string, text = readFileSync(join(root, file), 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const at = (node: ts.Node, what: string) =>
    found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`)
  const visit = (node: ts.Node, inFunction: boolean) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text.startsWith('node:') &&
      !(ts.isImportDeclaration(node) ? node.importClause?.isTypeOnly : node.isTypeOnly)
    )
      at(node, `imports ${node.moduleSpecifier.text}`)
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      at(node, 'import()')
    if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword) at(node, 'import.meta')
    if (!inFunction && (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier)))
      at(node, 'top-level await')
    if (isBufferGlobal(node) && !bufferAllowed(file)) at(node, 'uses the Buffer global')
    // React Native's URL polyfill (react-native-url-polyfill) and older engines lack it.
    if (ts.isPropertyAccessExpression(node) && node.getText() === 'URL.canParse') at(node, 'URL.canParse')
    // Hermes 0.12's Promise (the VM the React Native suite runs) has no allSettled.
    if (ts.isPropertyAccessExpression(node) && node.getText() === 'Promise.allSettled')
      at(node, 'Promise.allSettled')
    const entersFunction = ts.isFunctionLike(node) || ts.isClassStaticBlockDeclaration(node)
    ts.forEachChild(node, (child) => visit(child, inFunction || entersFunction))
  }
  visit(source, false)
  return found
}

describe('sources a wallet imports', () => {
  const files = sources()

  it('are all scanned', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(files).toContain('src/crypto/secp256k1.ts')
    expect(files).toContain('src/createWalletRpc.ts')
    expect(files).toContain('src/explorer/client.ts')
    expect(files).toContain('src/pay/webhook/store.ts')
    expect(files.filter((file) => file.startsWith('src/pay/postgres/'))).toEqual([])
  })

  it('have no node: import, import(), import.meta, top-level await, unchecked Buffer, URL.canParse or Promise.allSettled', () => {
    const nodeOnly = nodeOnlySources(files)
    expect(files.filter((file) => !nodeOnly.has(file)).flatMap((file) => findings(file))).toEqual([])
  })

  it('Node-only sources are exactly the browser-field files and what only they import', () => {
    expect([...nodeOnlySources(files)].sort()).toEqual([
      'src/crypto/bip32Library.ts',
      'src/crypto/bip39Library.ts',
      'src/crypto/nobleHashes.ts',
      'src/crypto/nobleSecp256k1.ts',
      'src/crypto/portableEd25519.ts',
      'src/crypto/portableSecp256k1.ts',
      'src/crypto/requireFromHere.ts',
      'src/eip155/viemUtils.ts',
    ])
  })

  it('the scan finds each construct it forbids, and lets type-only and in-function uses pass', () => {
    const probe = [
      "import { readFileSync } from 'node:fs'",
      "import type { Hash } from 'node:crypto'",
      "const y = await import('z')",
      'console.log(import.meta.url, Buffer.from(""), URL.canParse(""))',
      'async function fine(): Promise<void> { await 1 }',
      'Promise.allSettled([])',
    ].join('\n')
    expect(findings('src/bip122/probe.ts', probe)).toEqual([
      'src/bip122/probe.ts:1 imports node:fs',
      'src/bip122/probe.ts:3 top-level await',
      'src/bip122/probe.ts:3 import()',
      'src/bip122/probe.ts:4 import.meta',
      'src/bip122/probe.ts:4 uses the Buffer global',
      'src/bip122/probe.ts:4 URL.canParse',
      'src/bip122/probe.ts:6 Promise.allSettled',
    ])
    expect(findings('src/ton/probe.ts', 'Buffer.from("")')).toEqual([])
  })
})
