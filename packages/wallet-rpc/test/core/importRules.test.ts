import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  type ImportEdge,
  importGraph,
  importsOf,
  namespaces,
  type RuleOptions,
  ruleViolations,
} from './importGraph.js'

/**
 * The design rules (ARCHITECTURE "Rules of the house"), kept by a test: no import cycle, type imports
 * included; no namespace imports another; nothing in the library imports an application (the CLI's own
 * folder, the sandbox and devchains packages); nobody reaches into another folder's `internal/`. The
 * applications (the other workspace packages) keep the same rules and reach the library only through its
 * package name and published subpaths; a published application never imports a private one.
 */
const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')

type PackageJson = { name: string; private?: boolean; exports?: Record<string, unknown> }
const packageJson = (folder: string) =>
  JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as PackageJson
const own = packageJson(root)

/** The other workspace packages (the sandbox, devchains): applications the library must not import. */
function siblingPackages(): Array<{ folder: string; json: PackageJson }> {
  if (basename(dirname(root)) !== 'packages') return []
  return readdirSync(dirname(root))
    .map((name) => join(dirname(root), name))
    .filter((folder) => folder !== root && existsSync(join(folder, 'package.json')))
    .map((folder) => ({ folder, json: packageJson(folder) }))
}
const applications = siblingPackages()

const devchainsPackages = applications
  .map(({ json }) => json.name)
  .filter((name) => name.includes('devchains'))
const rules: RuleOptions = {
  // cli/ is the application room inside the library; devchains and pay/sandbox are listed for the layout
  // before they became packages of their own.
  applicationFolders: ['cli', 'devchains', 'pay/sandbox'],
  applicationPackages: applications.map(({ json }) => json.name),
  allowed: [...devchainsPackages, 'src/devchains/'].map((to) => ({
    from: 'src/conformance/chains.ts',
    to,
    why: 'the conformance runner may start the local chains, optionally, by import() (ARCHITECTURE)',
  })),
}

/** The specifiers the library publishes: `wallet-rpc`, `wallet-rpc/pay`, … (not `./package.json`). */
const libraryExports = Object.keys(own.exports ?? {})
  .filter((subpath) => subpath !== './package.json')
  .map((subpath) => (subpath === '.' ? own.name : `${own.name}/${subpath.slice(2)}`))

/** An application's rules: the library by its published names only; a published one imports no private one. */
const applicationRules = (json: PackageJson): RuleOptions => ({
  applicationFolders: [],
  applicationPackages: json.private
    ? []
    : applications.filter((other) => other.json.private).map((other) => other.json.name),
  library: { name: own.name, exports: libraryExports },
  allowed: [],
})

describe('import rules', () => {
  const edges = importGraph(root)

  it('reads the whole library', () => {
    expect(edges.length).toBeGreaterThan(500)
    expect(edges.some((edge) => edge.from === 'src/index.ts')).toBe(true)
  })

  it('hold: no cycle, no namespace → namespace, no library → application, no foreign internal/', () => {
    expect(ruleViolations(edges, rules)).toEqual([])
  })

  it("each namespace's types.ts is a leaf: type imports only, from outside the namespace or its other leaves", () => {
    const insideNamespace = (edge: ImportEdge, namespace: string) =>
      edge.to?.startsWith(`src/${namespace}/`) === true
    for (const namespace of namespaces) {
      const file = `src/${namespace}/types.ts`
      const imports = edges.filter((edge) => edge.from === file)
      expect(existsSync(join(root, file)), file).toBe(true)
      expect(imports.filter((edge) => !edge.typeOnly).map((edge) => edge.specifier)).toEqual([])
      for (const edge of imports.filter((edge) => insideNamespace(edge, namespace))) {
        const further = edges.filter((next) => next.from === edge.to && insideNamespace(next, namespace))
        expect(further.map((next) => `${next.from} → ${next.to}`)).toEqual([])
      }
    }
  })

  it('cover the applications: the sandbox and devchains', () => {
    expect(applications.map(({ json }) => json.name)).toEqual(
      expect.arrayContaining(['@wallet-rpc/devchains', '@wallet-rpc/pay-sandbox']),
    )
  })

  for (const { folder, json } of applications) {
    it(`hold in ${json.name}: no cycle, the library by its published subpaths, no foreign internal/`, () => {
      const applicationEdges = importGraph(folder)
      expect(applicationEdges.some((edge) => edge.specifier.startsWith(own.name))).toBe(true)
      expect(ruleViolations(applicationEdges, applicationRules(json))).toEqual([])
    })
  }

  describe('catch what they forbid', () => {
    const files: Record<string, string> = {
      'src/bip122/a.ts': "import type { B } from './b.js'\nimport { t } from '../ton/t.js'",
      'src/bip122/b.ts': "export type { A } from './a.js'",
      'src/eip155/c.ts': "type X = import('../solana/s.js').S\nconst m = await import('../cli/main.js')",
      'src/core/d.ts': "import { x } from '../verify/internal/x.js'\nimport 'pay-sandbox/start'",
      'src/verify/e.ts': "import { x } from './internal/x.js'",
      'src/conformance/chains.ts': "const d = await import('../devchains/anvil.js')",
      'src/core/f.ts': "import { y } from '../../../devchains/src/y.js'",
    }
    const exists = (file: string) => file in files || /\/(t|s|main|x|anvil)\.ts$/.test(file)
    const fixture: ImportEdge[] = Object.entries(files).flatMap(([file, text]) =>
      importsOf(file, text, exists),
    )
    const found = ruleViolations(fixture, { ...rules, applicationPackages: ['pay-sandbox'] })

    it('a cycle through a type-only import and a type re-export', () => {
      expect(found).toContain(
        'cycle of 2 files: src/bip122/a.ts:1 → src/bip122/b.ts (type); src/bip122/b.ts:1 → src/bip122/a.ts (type)',
      )
    })

    it('a namespace importing another, by value or by an import() type', () => {
      expect(found).toContain('namespace bip122 imports namespace ton: src/bip122/a.ts:2 → src/ton/t.ts')
      expect(found).toContain(
        'namespace eip155 imports namespace solana: src/eip155/c.ts:1 → src/solana/s.ts (type)',
      )
    })

    it('the library importing an application, by path or by package name; the allowed edge passes', () => {
      expect(found).toContain(
        'the library imports an application: src/eip155/c.ts:2 → src/cli/main.ts (import())',
      )
      expect(found).toContain('imports an application package: src/core/d.ts:2 → pay-sandbox/start')
      expect(found).toContain('imports a file outside its package: src/core/f.ts:1 → ../devchains/src/y.ts')
      expect(found.filter((line) => line.includes('src/conformance/chains.ts'))).toEqual([])
    })

    it("another folder's internal/, while the folder's own files may use it", () => {
      expect(found).toContain(
        "reaches into another folder's internal/: src/core/d.ts:1 → src/verify/internal/x.ts",
      )
      expect(found.filter((line) => line.includes('src/verify/e.ts'))).toEqual([])
    })

    it('nothing else', () => {
      expect(found).toHaveLength(7)
    })
  })

  describe('catch what an application must not do', () => {
    const files: Record<string, string> = {
      'src/live/a.ts': "import type { B } from '../b.js'\nimport { pay } from 'wallet-rpc/pay'",
      'src/b.ts': "import { A } from './live/a.js'\nimport { x } from 'wallet-rpc/src/pay/index.js'",
      'src/c.ts':
        "import { y } from '../../wallet-rpc/src/core/y.js'\nimport { z } from 'wallet-rpc/verify/internal/z.js'",
      'src/d.ts': "import { anvil } from '@wallet-rpc/devchains/anvil'\nimport { t } from 'wallet-rpc-tools'",
    }
    const exists = (file: string) => file in files
    const fixture: ImportEdge[] = Object.entries(files).flatMap(([file, text]) =>
      importsOf(file, text, exists),
    )
    const found = ruleViolations(fixture, {
      applicationFolders: [],
      applicationPackages: ['@wallet-rpc/devchains'],
      library: { name: 'wallet-rpc', exports: ['wallet-rpc', 'wallet-rpc/pay', 'wallet-rpc/verify'] },
      allowed: [],
    })

    it('a cycle, a relative path into the library, its src or internal/, a private package', () => {
      expect(found).toEqual([
        'cycle of 2 files: src/live/a.ts:1 → src/b.ts (type); src/b.ts:1 → src/live/a.ts',
        'imports the library past its published subpaths: src/b.ts:2 → wallet-rpc/src/pay/index.js',
        'imports a file outside its package: src/c.ts:1 → ../wallet-rpc/src/core/y.ts',
        'imports the library past its published subpaths: src/c.ts:2 → wallet-rpc/verify/internal/z.js',
        'imports an application package: src/d.ts:1 → @wallet-rpc/devchains/anvil',
      ])
    })
  })
})
