import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type ImportEdge, importGraph, importsOf, type RuleOptions, ruleViolations } from './importGraph.js'

/**
 * The library's design rules (ARCHITECTURE "Rules of the house"), kept by a test: no import cycle, type
 * imports included; no namespace imports another; nothing in the library imports an application (the CLI's
 * own folder, the sandbox and devchains packages); nobody reaches into another folder's `internal/`.
 */
const root = new URL('../..', import.meta.url).pathname.replace(/\/$/, '')
const ownName = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string }).name

/** The other workspace packages (the sandbox, devchains): applications the library must not import. */
function siblingPackages(): string[] {
  if (basename(dirname(root)) !== 'packages') return []
  return readdirSync(dirname(root))
    .map((folder) => join(dirname(root), folder, 'package.json'))
    .filter((file) => existsSync(file))
    .map((file) => (JSON.parse(readFileSync(file, 'utf8')) as { name: string }).name)
    .filter((name) => name !== ownName)
}

const devchainsPackages = siblingPackages().filter((name) => name.includes('devchains'))
const rules: RuleOptions = {
  // cli/ is the application room inside the library; devchains and pay/sandbox are listed for the layout
  // before they became packages of their own.
  applicationFolders: ['cli', 'devchains', 'pay/sandbox'],
  applicationPackages: siblingPackages(),
  allowed: [...devchainsPackages, 'src/devchains/'].map((to) => ({
    from: 'src/conformance/chains.ts',
    to,
    why: 'the conformance runner may start the local chains, optionally, by import() (ARCHITECTURE)',
  })),
}

describe('import rules', () => {
  const edges = importGraph(root)

  it('reads the whole library', () => {
    expect(edges.length).toBeGreaterThan(500)
    expect(edges.some((edge) => edge.from === 'src/index.ts')).toBe(true)
  })

  it('hold: no cycle, no namespace → namespace, no library → application, no foreign internal/', () => {
    expect(ruleViolations(edges, rules)).toEqual([])
  })

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
      expect(found).toContain(
        'the library imports an application package: src/core/d.ts:2 → pay-sandbox/start',
      )
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
})
