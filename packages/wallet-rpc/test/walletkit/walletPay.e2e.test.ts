import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { deployLiveToken, devMnemonic, liveTokenAt } from '@wallet-rpc/pay-sandbox'
import { createPublicClient, erc20Abi, http, type PublicClient } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import { eip155, httpProvider, mnemonicKeys } from '../../src/eip155/index.js'
import type { SessionApprovalAnswer } from '../../src/walletkit/index.js'
import { type LocalRelay, startLocalRelay } from './localRelay.js'
import { inFiveMinutes, paidTo, type ShopWallet, startShopWallet } from './payAtConnect.js'

/**
 * Pay at connect between the real SDKs: a dapp's `SignClient.connect({ walletPay })` (sign-client 2.25) over the
 * local relay to the real `WalletKit` with `attachWalletKit`, paid on anvil through the wallet's own
 * `eth_sendTransaction` (simulation, policy, nonce, the broadcast check), and checked on chain.
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
const reviews: Review[] = []
let answer: SessionApprovalAnswer = true

beforeAll(async () => {
  ;[anvil, relay] = await Promise.all([startAnvil(), startLocalRelay()])
  chain = createPublicClient({ transport: http(anvil.url) }) as PublicClient
  token = (await deployLiveToken(anvil.url, { deployerIndex: 1, fund: [payer] })).address as `0x${string}`
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
  shop = await startShopWallet(
    relay,
    wallet,
    {
      // Read from the chain: the token contract's own symbol() and decimals().
      assetInfo: async (asset) => {
        const address = /\/erc20:(0x[0-9a-fA-F]{40})$/.exec(asset)?.[1]
        if (address === undefined) return undefined
        const { symbol, decimals } = await liveTokenAt(anvil.url, address)
        return { symbol, decimals }
      },
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

  it('reported no SDK failure', () => {
    expect(shop.adapterErrors).toEqual([])
  })
})
