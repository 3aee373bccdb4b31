import { describe, expect, it } from 'vitest'
// @ts-expect-error: plain JavaScript (the `npm run size` script)
import { budgets, foreignChainLibraries, measure } from '../../scripts/size.mjs'

/**
 * Importing one namespace never pulls another namespace's chain library, proven on the browser bundle's
 * esbuild metafile (what a wallet ships), not only in Node's module graph (test/package.test.ts); and every
 * subpath stays within the size budget the README states, so a change that breaks one fails `npm test` (CI)
 * and not only `npm run size`.
 */
describe('browser bundles per namespace (esbuild metafile)', () => {
  for (const namespace of ['bip122', 'ton', 'eip155', 'solana']) {
    it(`wallet-rpc/${namespace} contains no other namespace's chain library`, async () => {
      const { inputs } = (await measure(`wallet-rpc/${namespace}`)) as { inputs: string[] }
      expect(inputs.some((path) => path.startsWith('dist/'))).toBe(true)
      expect(foreignChainLibraries(`wallet-rpc/${namespace}`, inputs)).toEqual([])
    })
  }

  it("wallet-rpc/eip155 bundles the app's own viem (browser field), not Node's prebundled viem helpers", async () => {
    const { inputs } = (await measure('wallet-rpc/eip155')) as { inputs: string[] }
    expect(inputs).toContain('dist/eip155/viemUtils.browser.js')
    expect(inputs).not.toContain('dist/eip155/viemUtils.js')
    expect(inputs.some((path) => path.includes('node_modules/viem/_esm/utils/'))).toBe(true)
  })

  it.each([
    ['bip122', 'node_modules/@bitcoinerlab/secp256k1/'],
    ['eip155', 'node_modules/@bitcoinerlab/secp256k1/'],
    ['ton', 'node_modules/tweetnacl/'],
    ['bip122', 'node_modules/@noble/curves/secp256k1.js'],
  ])(
    'wallet-rpc/%s bundles its portable backend %s statically (browser field)',
    async (namespace, library) => {
      const { inputs } = (await measure(`wallet-rpc/${namespace}`)) as { inputs: string[] }
      expect(inputs.some((path) => path.includes(library))).toBe(true)
      expect(inputs.filter((path) => path.includes('dist/crypto/requireFromHere.js'))).toEqual([])
    },
  )

  it.each(Object.entries(budgets as Record<string, number>))(
    '%s stays within its README budget of %d KiB min+gzip (npm run size fails above it; so does npm test)',
    async (subpath, budget) => {
      const { gzip } = (await measure(subpath)) as { gzip: number }
      expect(gzip / 1024).toBeLessThanOrEqual(budget)
    },
  )

  it('the check sees a foreign library when one is there', () => {
    expect(foreignChainLibraries('wallet-rpc/bip122', ['node_modules/viem/_esm/index.js'])).toEqual([
      'node_modules/viem/',
    ])
  })
})
