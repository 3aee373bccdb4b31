import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BIP122_MAINNET } from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { bip122 } from '../../src/bip122/namespace.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { bip322jsVerifies, nobleVerifies } from './signMessage.independent.js'

const keys = hdKeys({
  mnemonic: 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
})
const wallet = createWalletRpc({
  namespaces: [bip122({ keys, chains: { [BIP122_MAINNET]: {} } })],
  approve: () => true,
})
const addresses = [
  'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
  'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
  '37VucYSaXLCAsxYyAPfbSi9eh4iEcbShgf',
  '1LqBGSKuX5yYUonjxT5qGfpUsXKYYWeabA',
]
const knownCodes = new Set([-32600, -32602, 4100, 5000])

describe('signMessage properties', () => {
  it('any Unicode message, any address type, either protocol: both independent verifiers accept', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.constantFrom(...addresses),
        fc.constantFrom('ecdsa' as const, 'bip322' as const, undefined),
        async (message, address, protocol) => {
          fc.pre(!(address.startsWith('bc1p') && protocol === 'ecdsa'))
          const response = await wallet.handle({
            chainId: BIP122_MAINNET,
            request: {
              id: 1,
              method: 'signMessage',
              params: { account: address, message, ...(protocol ? { protocol } : {}) },
            },
          })
          if (!('result' in response)) throw new Error(JSON.stringify(response))
          const answer = response.result as { address: string; signature: string; messageHash: string }
          expect(bip322jsVerifies(address, message, answer.signature)).toBe(true)
          expect(nobleVerifies(answer, message)).toBe(true)
        },
      ),
      { numRuns: 60 },
    )
  })

  it('arbitrary params never crash: always a JSON-RPC answer with a known code, never a partial signature', async () => {
    const fuzz = fc.oneof(
      fc.anything(),
      fc.record(
        {
          account: fc.oneof(
            fc.constantFrom(...addresses, 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl'),
            fc.string(),
          ),
          message: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
          address: fc.oneof(fc.constantFrom(...addresses), fc.string()),
          protocol: fc.oneof(fc.constantFrom('ecdsa', 'bip322'), fc.string()),
        },
        { requiredKeys: [] },
      ),
    )
    await fc.assert(
      fc.asyncProperty(fuzz, async (params) => {
        const response = await wallet.handle({
          chainId: BIP122_MAINNET,
          request: { id: 2, method: 'signMessage', params },
        })
        expect(response.id).toBe(2)
        if ('error' in response) {
          expect(knownCodes.has(response.error.code)).toBe(true)
          expect(JSON.stringify(response)).not.toMatch(/signature/)
        } else {
          const answer = response.result as { address: string; signature: string; messageHash: string }
          expect(
            bip322jsVerifies(answer.address, (params as { message: string }).message, answer.signature),
          ).toBe(true)
        }
      }),
      { numRuns: 300 },
    )
  })
})
