import { createPublicClient, custom, type Hex, http, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import type { Review } from '../../../src/core/review.js'
import { mnemonicKeys } from '../../../src/eip155/index.js'
import { harness } from '../helpers.js'
import { devAccounts, devMnemonic, pragueChainPerFile } from './pragueChain.js'

/**
 * An account delegated (EIP-7702) to a contract the wallet does not use runs that code for whatever it signs
 * or sends: flagged on every eip155 method that signs for it (issue 41; before, only wallet_sendCalls did),
 * from one read of the account's code per request.
 */
const prague = pragueChainPerFile()
const foreign = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B'
const recipient = '0x000000000000000000000000000000000000dEaD'
const designator = (delegate: string) => `0xef0100${delegate.slice(2).toLowerCase()}`

const typedData = (chainId: number) => ({
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'chainId', type: 'uint256' },
    ],
    Note: [{ name: 'text', type: 'string' }],
  },
  primaryType: 'Note',
  domain: { name: 'Notes', chainId },
  message: { text: 'hello' },
})

/** Every signing method once for `from`; the review of each. */
async function reviewsOf(wallet: ReturnType<typeof harness>, from: string): Promise<Review[]> {
  await wallet.result('personal_sign', [toHex('hello'), from])
  await wallet.result('eth_sign', [from, toHex('hello')])
  await wallet.result('eth_signTypedData_v4', [from, typedData(prague().anvil.chainId)])
  await wallet.result('eth_signTransaction', [{ from, to: recipient, value: '0x1' }])
  await wallet.result('eth_sendTransaction', [{ from, to: recipient, value: '0x1' }])
  return wallet.reviews
}
const flagged = (reviews: Review[]) =>
  reviews.map((review) => [
    review.method,
    review.warnings.some((warning) => warning.code === 'eip7702.foreign_delegate'),
  ])
const methods = [
  'personal_sign',
  'eth_sign',
  'eth_signTypedData_v4',
  'eth_signTransaction',
  'eth_sendTransaction',
]

describe('a foreign delegation is flagged on every method that signs for the account', () => {
  const wallet = (options: { delegate?: boolean; provider?: unknown } = {}) =>
    harness(
      {
        keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: [7] }),
        chains: [
          {
            chainId: prague().anvil.chainId,
            provider:
              (options.provider as never) ?? createPublicClient({ transport: http(prague().anvil.url) }),
            ...(options.delegate === false ? {} : { eip7702: { delegate: prague().delegate } }),
          },
        ],
        enableEthSign: true,
      },
      { allowDangerous: ['eth_sign.blind'] },
    )
  const from = devAccounts[7]

  it('delegated elsewhere: a caution on each, with or without a delegate configured on the chain', async () => {
    await prague().rpc('anvil_setCode', [from, designator(foreign)])
    try {
      for (const delegate of [true, false]) {
        const reviews = await reviewsOf(wallet({ delegate }), from)
        expect(flagged(reviews)).toEqual(methods.map((method) => [method, true]))
        expect(
          reviews[0]!.warnings.find((warning) => warning.code === 'eip7702.foreign_delegate'),
        ).toMatchObject({
          severity: 'caution',
          message: expect.stringContaining(foreign),
        })
      }
    } finally {
      await prague().rpc('anvil_setCode', [from, '0x'])
    }
  })

  it("not delegated, or delegated to the wallet's own delegate: nothing", async () => {
    expect(flagged(await reviewsOf(wallet(), from))).toEqual(methods.map((method) => [method, false]))
    await prague().rpc('anvil_setCode', [from, designator(prague().delegate)])
    try {
      expect(flagged(await reviewsOf(wallet(), from))).toEqual(methods.map((method) => [method, false]))
      // Without a delegate configured, every delegation is foreign to this wallet.
      expect(flagged(await reviewsOf(wallet({ delegate: false }), from))).toEqual(
        methods.map((method) => [method, true]),
      )
    } finally {
      await prague().rpc('anvil_setCode', [from, '0x'])
    }
  })

  it('one code read per request; a failed read never blocks a signature', async () => {
    const forward = http(prague().anvil.url)({})
    let reads = 0
    let fail = false
    const counting = createPublicClient({
      transport: custom(
        {
          async request({ method, params }) {
            if (method === 'eth_getCode' && (params as [string])[0].toLowerCase() === from.toLowerCase()) {
              reads++
              if (fail) throw new Error('node down')
            }
            return forward.request({ method, params } as never)
          },
        },
        { retryCount: 0 },
      ),
    })
    const w = wallet({ provider: counting })
    await w.result('personal_sign', [toHex('hello'), from])
    await w.result('eth_signTypedData_v4', [from, typedData(prague().anvil.chainId)])
    expect(reads).toBe(2)
    fail = true
    const signature = await w.result<Hex>('personal_sign', [toHex('hello'), from])
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/)
    expect(w.reviews.at(-1)!.warnings).toEqual([])
  })
})
