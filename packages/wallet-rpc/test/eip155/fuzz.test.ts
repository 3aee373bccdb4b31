import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { WalletRpcError } from '../../src/core/errors.js'
import { privateKeyKeys } from '../../src/eip155/index.js'
import { harness } from './helpers.js'

/**
 * Hostile params never crash a method: every answer is either a result or one of the documented codes,
 * and nothing unexpected (a generic -32603) reaches onError. Offline, signing-only chain.
 */
const owner = '0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F'
const methods = [
  'personal_sign',
  'eth_sign',
  'eth_signTypedData',
  'eth_signTypedData_v3',
  'eth_signTypedData_v4',
  'eth_signTransaction',
  'eth_sendTransaction',
  'eth_sendRawTransaction',
]
const documentedCodes = new Set([-32602, -32603, 4100, 5000, 5101])

const hexish = fc.oneof(
  fc.constant('0x'),
  fc
    .string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFxg-'.split('')), maxLength: 70 })
    .map((s) => `0x${s}`),
  fc.bigInt({ min: -1n, max: 2n ** 300n }).map((n) => `0x${n.toString(16)}`),
)
const leaf = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  hexish,
  fc.constant(owner),
)
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 5 }),
  ),
})).value

const txField = fc.record(
  {
    from: fc.oneof(fc.constant(owner), leaf),
    to: fc.oneof(fc.constant(owner), leaf),
    value: hexish,
    gas: hexish,
    gasPrice: hexish,
    maxFeePerGas: hexish,
    maxPriorityFeePerGas: hexish,
    nonce: hexish,
    chainId: hexish,
    type: fc.oneof(fc.constantFrom('0x0', '0x1', '0x2', '0x3'), leaf),
    data: hexish,
    accessList: json,
  },
  { requiredKeys: [] },
)

const typedDataish = fc.record(
  {
    types: fc.oneof(json, fc.constant({ EIP712Domain: [], M: [{ name: 'a', type: 'uint8' }] })),
    primaryType: fc.oneof(fc.constant('M'), leaf),
    domain: fc.oneof(json, fc.record({ chainId: leaf })),
    message: fc.oneof(json, fc.record({ a: leaf })),
  },
  { requiredKeys: [] },
)

const params = fc.oneof(
  json,
  fc.tuple(leaf, fc.constant(owner)),
  fc.tuple(
    fc.constant(owner),
    fc.oneof(
      typedDataish,
      typedDataish.map((value) => JSON.stringify(value)),
    ),
  ),
  fc.tuple(txField),
  fc.tuple(hexish),
)

describe('fuzz: hostile params', () => {
  it('every answer is a result or a documented code; no unexpected error', async () => {
    const w = harness({
      keys: privateKeyKeys('0x4646464646464646464646464646464646464646464646464646464646464646'),
      chains: [1],
    })
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...methods), params, async (method, input) => {
        const response = await w.call(method, input)
        if ('error' in response) {
          const { code } = response.error as { code: number }
          expect(documentedCodes.has(code)).toBe(true)
        }
        const unexpected = w.errors.filter(
          (error) => !(error instanceof WalletRpcError) || error.name === 'InternalError',
        )
        expect(unexpected).toEqual([])
      }),
      { numRuns: 1500 },
    )
  })
})
