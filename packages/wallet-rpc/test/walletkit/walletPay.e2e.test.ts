import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { deployLiveToken, devMnemonic, liveTokenAt } from '@wallet-rpc/pay-sandbox'
import { createPublicClient, createWalletClient, erc20Abi, type Hex, http, type PublicClient } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ConnectPayments } from '../../src/core/connectPayment.js'
import type { JsonRpcResponse } from '../../src/core/jsonrpc.js'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import { eip155, eip155ConnectPayments, httpProvider, mnemonicKeys } from '../../src/eip155/index.js'
import type { SessionApprovalAnswer } from '../../src/walletkit/index.js'
import { compileSolidity } from '../eip155/simulation/compileFixture.js'
import { type LocalRelay, startLocalRelay } from './localRelay.js'
import { inFiveMinutes, paidTo, type ShopWallet, startShopWallet } from './payAtConnect.js'

/**
 * Pay at connect between the real SDKs: a dapp's `SignClient.connect({ walletPay })` (sign-client 2.25) over the
 * local relay to the real `WalletKit` with `attachWalletKit`, paid on anvil through the wallet's own
 * `eth_sendTransaction` (simulation, policy, nonce, the broadcast check), and checked on chain. The adapter pays
 * eip155 with `eip155ConnectPayments` on the same anvil: the token is checked on the chain before it is offered,
 * the payment reported only once its receipt shows the token's Transfer.
 */
const chainId = 'eip155:31337'
const merchant = '0x000000000000000000000000000000000000bEEF'
const payer = mnemonicToAccount(devMnemonic).address

let anvil: AnvilInstance
let relay: LocalRelay
let wallet: WalletRpc
let shop: ShopWallet
let chain: PublicClient
let token: `0x${string}`
/** SilentToken (fixtures/SilentToken.sol) by kind: 0 logs nothing, 1 one unit less, 2 to itself. */
const silent: `0x${string}`[] = []
let noCode: `0x${string}`
const reviews: Review[] = []
const answers: JsonRpcResponse[] = []
let answer: SessionApprovalAnswer = true
/** Replaces the adapter's eip155 payments for one test (a ConnectPayments that builds another payment). */
let builder: ConnectPayments['request'] | undefined

beforeAll(async () => {
  ;[anvil, relay] = await Promise.all([startAnvil(), startLocalRelay()])
  chain = createPublicClient({ transport: http(anvil.url) }) as PublicClient
  token = (await deployLiveToken(anvil.url, { deployerIndex: 1, fund: [payer] })).address as `0x${string}`
  const compiled = compileSolidity('SilentToken', new URL('./fixtures/SilentToken.sol', import.meta.url))
  const deployer = createWalletClient({
    account: mnemonicToAccount(devMnemonic, { addressIndex: 1 }),
    transport: http(anvil.url),
  })
  for (const kind of [0n, 1n, 2n]) {
    const hash = await deployer.deployContract({
      abi: compiled.abi as never,
      bytecode: compiled.bytecode,
      args: [kind],
      chain: null,
    })
    const receipt = await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    silent.push(receipt.contractAddress!)
  }
  noCode = '0x00000000000000000000000000000000000c0dE0'
  const payments = eip155ConnectPayments({ providers: { [chainId]: httpProvider(anvil.url) }, pollMs: 20 })
  wallet = createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic: devMnemonic }),
        chains: [{ chainId: 31337, provider: httpProvider(anvil.url) }],
      }),
    ],
    approve: (review) => {
      reviews.push(review)
      return true
    },
  })
  // The wallet's answers, recorded on their way to the adapter (a refusal's rule is in its data).
  const recording: WalletRpc = {
    ...wallet,
    handle: async (input) => {
      const response = await wallet.handle(input)
      answers.push(response)
      return response
    },
  }
  shop = await startShopWallet(
    relay,
    recording,
    {
      // Read from the chain: the token contract's own symbol() and decimals().
      assetInfo: async (asset) => {
        const address = /\/erc20:(0x[0-9a-fA-F]{40})$/.exec(asset)?.[1]
        // The live token only: the other contracts here are no tokens, or answer no name().
        if (address?.toLowerCase() !== token.toLowerCase()) return undefined
        const { symbol, decimals } = await liveTokenAt(anvil.url, address!)
        return { symbol, decimals }
      },
      payments: [{ ...payments, request: (payment) => (builder ?? payments.request)(payment) }],
    },
    () => answer,
  )
}, 120_000)

afterAll(async () => {
  await shop?.close()
  await relay?.close()
  await anvil?.stop()
})

const connectWith = (walletPay: unknown) =>
  shop.connect({ eip155: { chains: [chainId], methods: ['eth_sendTransaction'], events: [] } }, walletPay)

describe('connect({ walletPay }) paid on anvil', () => {
  it('pays the ERC-20 option: the review decodes 2.5 USDC from the chain, the transfer is mined', async () => {
    const before = await chain.readContract({
      address: token,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [merchant],
    })
    const offer = {
      version: '1.0.0',
      orderId: 'order-42',
      expiry: inFiveMinutes(),
      acceptedPayments: [
        {
          asset: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          amount: '0x10',
          recipient: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
        },
        { asset: `${chainId}/erc20:${token}`, amount: '0x2625a0', recipient: `${chainId}:${merchant}` },
      ],
    }
    const session = await connectWith(offer)
    const review = shop.proposals.at(-1)?.requests?.walletPay
    expect(review?.options.map((option) => [option.display, option.unpayable])).toEqual([
      ['16 (minor units)', 'paying on solana at connect is not offered'],
      ['2.5 USDC', undefined],
    ])
    expect(review).toMatchObject({ orderId: 'order-42', pays: 1, refused: undefined })
    const [result] = paidTo(session) ?? []
    expect(result).toMatchObject({
      version: '1.0.0',
      orderId: 'order-42',
      asset: offer.acceptedPayments[1]!.asset,
      amount: '0x2625a0',
    })
    const receipt = await chain.getTransactionReceipt({ hash: result!.txid as `0x${string}` })
    expect(receipt.status).toBe('success')
    const after = await chain.readContract({
      address: token,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [merchant],
    })
    expect(after - before).toBe(2_500_000n)
    // The payment went through eth_sendTransaction's own review, tagged with the proposal.
    expect(reviews.at(-1)).toMatchObject({
      method: 'eth_sendTransaction',
      context: { 'session proposal': String(shop.proposals.at(-1)?.id) },
    })
  })

  it('pays a native option: the recipient receives the value', async () => {
    const before = await chain.getBalance({ address: merchant })
    const session = await connectWith({
      version: '1.0.0',
      expiry: inFiveMinutes(),
      acceptedPayments: [
        { asset: `${chainId}/slip44:60`, amount: '0xde0b6b3a7640000', recipient: `${chainId}:${merchant}` },
      ],
    })
    const [result] = paidTo(session) ?? []
    expect((await chain.getTransactionReceipt({ hash: result!.txid as `0x${string}` })).status).toBe(
      'success',
    )
    expect((await chain.getBalance({ address: merchant })) - before).toBe(10n ** 18n)
  })

  it('pays one orderId once: a second proposal for the same order gets the first payment, and another payment for it is refused', async () => {
    const count = await chain.getTransactionCount({ address: payer })
    const order = (amount: string) => ({
      version: '1.0.0',
      orderId: 'order-once',
      expiry: inFiveMinutes(),
      acceptedPayments: [{ asset: `${chainId}/slip44:60`, amount, recipient: `${chainId}:${merchant}` }],
    })
    const [first] = paidTo(await connectWith(order('0x2386f26fc10000'))) ?? []
    const [again] = paidTo(await connectWith(order('0x2386f26fc10000'))) ?? []
    expect(again?.txid).toBe(first?.txid)
    // The same order asking for another amount: refused (journal.key_reused, reported), nothing sent.
    const errors = shop.adapterErrors.length
    expect(paidTo(await connectWith(order('0x470de4df820000')))).toBeUndefined()
    expect(await chain.getTransactionCount({ address: payer })).toBe(count + 1)
    expect(shop.adapterErrors.slice(errors).map(String)).toEqual([
      expect.stringContaining('connect-time payment'),
    ])
    expect(answers.at(-1)).toMatchObject({ error: { code: -32600, data: { rule: 'journal.key_reused' } } })
    shop.adapterErrors.splice(errors)
  })

  it('pays nothing for an expired offer or one it cannot pay; the session still settles', async () => {
    const count = await chain.getTransactionCount({ address: payer })
    const expired = await connectWith({
      version: '1.0.0',
      expiry: Math.floor(Date.now() / 1000) - 60,
      acceptedPayments: [
        { asset: `${chainId}/slip44:60`, amount: '0x1', recipient: `${chainId}:${merchant}` },
      ],
    })
    expect(paidTo(expired)).toBeUndefined()
    expect(expired.namespaces.eip155?.accounts).toHaveLength(1)
    expect(shop.proposals.at(-1)?.requests?.walletPay?.refused).toMatch(/expired at/)
    const garbage = await connectWith({
      version: '1.0.0',
      expiry: inFiveMinutes(),
      acceptedPayments: [
        { asset: `${chainId}/erc20:${token}`, amount: '12', recipient: `${chainId}:${merchant}` },
        { asset: 'eip155/erc20', amount: '0x1', recipient: `${chainId}:${merchant}` },
        { asset: `${chainId}/slip44:60`, amount: '0x1', recipient: 'eip155:1:0xnothex' },
      ],
    })
    expect(paidTo(garbage)).toBeUndefined()
    expect(shop.proposals.at(-1)?.requests?.walletPay?.options.map((option) => option.unpayable)).toEqual([
      'amount is not a 0x-hex quantity',
      'asset "eip155/erc20" is not a CAIP-19 asset id',
      'the recipient is on eip155:1, the asset on eip155:31337',
    ])
    expect(await chain.getTransactionCount({ address: payer })).toBe(count)
  })

  it('approves the session without the payment when the wallet answers { walletPay: false }', async () => {
    const count = await chain.getTransactionCount({ address: payer })
    answer = { walletPay: false }
    try {
      const session = await connectWith({
        version: '1.0.0',
        expiry: inFiveMinutes(),
        acceptedPayments: [
          { asset: `${chainId}/slip44:60`, amount: '0x1', recipient: `${chainId}:${merchant}` },
        ],
      })
      expect(paidTo(session)).toBeUndefined()
      expect(session.namespaces.eip155?.accounts).toHaveLength(1)
      expect(shop.proposals.at(-1)?.requests?.walletPay?.pays).toBe(0)
    } finally {
      answer = true
    }
    expect(await chain.getTransactionCount({ address: payer })).toBe(count)
  })

  it('offers no ERC-20 that is not one: an address without code, or code answering no ERC-20 call; nothing is sent', async () => {
    const count = await chain.getTransactionCount({ address: payer })
    // Code that stops at once: every call succeeds and answers nothing.
    const stop = '0x0000000000000000000000000000000000005709'
    await chain.request({ method: 'anvil_setCode' as never, params: [stop, '0x00'] as never })
    const session = await connectWith({
      version: '1.0.0',
      expiry: inFiveMinutes(),
      acceptedPayments: [
        { asset: `${chainId}/erc20:${noCode}`, amount: '0x2625a0', recipient: `${chainId}:${merchant}` },
        { asset: `${chainId}/erc20:${stop}`, amount: '0x2625a0', recipient: `${chainId}:${merchant}` },
      ],
    })
    expect(paidTo(session)).toBeUndefined()
    const review = shop.proposals.at(-1)?.requests?.walletPay
    expect(review?.options.map((option) => option.unpayable)).toEqual([
      `${noCode} has no code: it is not a token contract (a transfer to it moves nothing)`,
      `${stop} does not answer decimals() as an ERC-20 does`,
    ])
    expect(review?.refused).toBe('the wallet can pay none of the accepted payments')
    expect(await chain.getTransactionCount({ address: payer })).toBe(count)
  })

  for (const [kind, what] of [
    [0, 'no Transfer log at all'],
    [1, 'a Transfer of one unit less'],
    [2, 'a Transfer to another address'],
  ] as const) {
    it(`does not report a payment whose receipt shows ${what}: the transaction is mined, the dapp gets no walletPay`, async () => {
      const errors = shop.adapterErrors.length
      const asset = `${chainId}/erc20:${silent[kind]}`
      const session = await connectWith({
        version: '1.0.0',
        orderId: `silent-${kind}`,
        expiry: inFiveMinutes(),
        acceptedPayments: [{ asset, amount: '0x2625a0', recipient: `${chainId}:${merchant}` }],
      })
      // The token passed every check, so the payment was offered and sent.
      expect(shop.proposals.at(-1)?.requests?.walletPay).toMatchObject({ pays: 0, refused: undefined })
      expect(reviews.at(-1)).toMatchObject({ method: 'eth_sendTransaction', warnings: [] })
      expect(paidTo(session)).toBeUndefined()
      const reported = shop.adapterErrors.slice(errors).map(String)
      expect(reported).toEqual([
        expect.stringMatching(
          new RegExp(
            `the walletPay transaction 0x[0-9a-f]{64} is not reported as paid: its receipt holds no Transfer of 2500000 from ${payer} to ${merchant} by token ${silent[kind]}`,
            'i',
          ),
        ),
      ])
      const hash = /transaction (0x[0-9a-f]{64})/.exec(reported[0]!)![1] as Hex
      expect((await chain.getTransactionReceipt({ hash })).status).toBe('success')
      shop.adapterErrors.splice(errors)
    })
  }

  it('refuses a payment built to move more, or to someone else, than the walletPay shows: nothing is sent', async () => {
    const count = await chain.getTransactionCount({ address: payer })
    const errors = shop.adapterErrors.length
    const honest = shop.proposals.length
    for (const [change, rule] of [
      [(amount: bigint) => ({ amount: amount * 1000n }), 'pay.amount_mismatch'],
      [
        () => ({ recipient: `${chainId}:0x000000000000000000000000000000000000dEaD` }),
        'pay.recipient_mismatch',
      ],
      [() => ({ asset: `${chainId}/slip44:60` }), 'pay.asset_mismatch'],
    ] as const) {
      builder = (payment) =>
        eip155ConnectPayments({ providers: { [chainId]: httpProvider(anvil.url) } }).request({
          ...payment,
          ...change(payment.amount),
        })
      try {
        const session = await connectWith({
          version: '1.0.0',
          expiry: inFiveMinutes(),
          acceptedPayments: [
            { asset: `${chainId}/erc20:${token}`, amount: '0x2625a0', recipient: `${chainId}:${merchant}` },
          ],
        })
        expect(paidTo(session)).toBeUndefined()
      } finally {
        builder = undefined
      }
      expect(String(shop.adapterErrors.at(-1))).toMatch(/payment 2\.5 USDC on eip155:31337 not done/)
      expect(answers.at(-1)).toMatchObject({
        error: {
          code: -32602,
          data: {
            rule,
            reason: expect.stringMatching(
              /^The dapp’s walletPay shows 2\.5 USDC( to 0x0+beef)?; this request /i,
            ),
          },
        },
      })
    }
    expect(shop.proposals.length - honest).toBe(3)
    expect(await chain.getTransactionCount({ address: payer })).toBe(count)
    shop.adapterErrors.splice(errors)
  })

  it('reported no SDK failure', () => {
    expect(shop.adapterErrors).toEqual([])
  })
})
