import { lamports } from '@solana/kit'
import { type SolanaLocalChain, startSolanaLocal } from '@wallet-rpc/devchains/solanaLocal'
import { createSplMint } from '@wallet-rpc/devchains/splToken'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import {
  solana,
  solanaConnectPayments,
  solanaKeys,
  solanaLocalnet,
  solanaRpc,
} from '../../src/solana/index.js'
import { mnemonic, ours } from '../solana/helpers.js'
import { type LocalRelay, startLocalRelay } from './localRelay.js'
import { inFiveMinutes, paidTo, type ShopWallet, startShopWallet } from './payAtConnect.js'

/**
 * Pay at connect on solana between the real SDKs: a dapp's `SignClient.connect({ walletPay })` (sign-client
 * 2.25) over the local relay to the real `WalletKit` with `attachWalletKit` and `solanaConnectPayments`, paid
 * on litesvm (behind its JSON-RPC facade) through the wallet's own `solana_signAndSendTransaction`
 * (its review, simulation and broadcast check), and checked on chain.
 */
const chainId = solanaLocalnet
// Fresh addresses with no account on the local chain: the SOL and token payments create theirs.
const merchant = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
const tokenMerchant = 'GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW'
const mintAddress = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'

let chain: SolanaLocalChain
let relay: LocalRelay
let wallet: WalletRpc
let shop: ShopWallet
let payer: string
let mint: ReturnType<typeof createSplMint>
const reviews: Review[] = []

beforeAll(async () => {
  ;[chain, relay] = await Promise.all([startSolanaLocal(), startLocalRelay()])
  const keys = solanaKeys.fromMnemonic(mnemonic)
  const providers = { [chainId]: solanaRpc(chain.url) }
  wallet = createWalletRpc({
    namespaces: [solana({ keys, chains: [chainId], providers })],
    approve: (review) => {
      reviews.push(review)
      return true
    },
  })
  payer = ours(0)
  chain.svm.airdrop(ours(0), lamports(10_000_000_000n))
  mint = createSplMint(chain, { address: mintAddress, decimals: 6 })
  mint.fund(payer, 100_000_000n)
  shop = await startShopWallet(relay, wallet, { payments: [solanaConnectPayments({ providers })] })
}, 120_000)

afterAll(async () => {
  await shop?.close()
  await relay?.close()
  await chain?.stop()
})

const connectWith = (walletPay: unknown) =>
  shop.connect(
    { solana: { chains: [chainId], methods: ['solana_signAndSendTransaction'], events: [] } },
    walletPay,
  )
const lamportsOf = (address: string) => chain.svm.getBalance(address as never) ?? 0n
/** The runtime executed this signature without error. */
const landed = (signature: string) => {
  const outcome = chain.svm.getTransaction(signature as never)
  return outcome !== null && !('err' in outcome && typeof outcome.err === 'function' && outcome.err())
}

describe('connect({ walletPay }) paid on litesvm', () => {
  it('pays the SPL option: the review decodes 2.5 with the mint’s decimals from the chain; the merchant’s token account is credited', async () => {
    const offer = {
      version: '1.0.0',
      orderId: 'order-7',
      expiry: inFiveMinutes(),
      acceptedPayments: [
        {
          asset: `${chainId}/token:${mintAddress}`,
          amount: '0x2625a0',
          recipient: `${chainId}:${tokenMerchant}`,
        },
      ],
    }
    expect(mint.balance(tokenMerchant)).toBe(0n)
    const session = await connectWith(offer)
    const review = shop.proposals.at(-1)?.requests?.walletPay
    expect(review?.options.map((option) => [option.display, option.decimals, option.unpayable])).toEqual([
      ['2.5', 6, undefined],
    ])
    expect(review).toMatchObject({ orderId: 'order-7', pays: 0, refused: undefined })
    const [result] = paidTo(session) ?? []
    expect(result).toEqual({
      version: '1.0.0',
      orderId: 'order-7',
      txid: expect.any(String),
      recipient: offer.acceptedPayments[0]!.recipient,
      asset: offer.acceptedPayments[0]!.asset,
      amount: '0x2625a0',
    })
    // The txid is the transaction's signature, and the runtime executed it.
    expect(landed(result!.txid)).toBe(true)
    expect(mint.balance(tokenMerchant)).toBe(2_500_000n)
    expect(mint.balance(payer)).toBe(97_500_000n)
    // The payment went through solana_signAndSendTransaction's own review, tagged with the proposal.
    expect(reviews.at(-1)).toMatchObject({
      method: 'solana_signAndSendTransaction',
      context: { 'session proposal': String(shop.proposals.at(-1)?.id) },
    })
  })

  it('pays a SOL option: the recipient receives the lamports', async () => {
    const before = lamportsOf(merchant)
    const session = await connectWith({
      version: '1.0.0',
      expiry: inFiveMinutes(),
      acceptedPayments: [
        // An option on a chain the session does not include comes first: the SOL one is paid.
        {
          asset: 'eip155:1/slip44:60',
          amount: '0x1',
          recipient: 'eip155:1:0x000000000000000000000000000000000000bEEF',
        },
        { asset: `${chainId}/slip44:501`, amount: '0x989680', recipient: `${chainId}:${merchant}` },
      ],
    })
    const review = shop.proposals.at(-1)?.requests?.walletPay
    expect(review?.options.map((option) => [option.display, option.unpayable])).toEqual([
      ['0.000000000000000001 native', 'the wallet does not serve eth_sendTransaction'],
      ['0.01 SOL', undefined],
    ])
    const [result] = paidTo(session) ?? []
    expect(landed(result!.txid)).toBe(true)
    expect(lamportsOf(merchant) - before).toBe(10_000_000n)
  })

  it('pays one orderId once: a second proposal for the order gets the first payment, though its transaction is built anew (a fresh blockhash)', async () => {
    const before = lamportsOf(merchant)
    const order = {
      version: '1.0.0',
      orderId: 'sol-order-once',
      expiry: inFiveMinutes(),
      acceptedPayments: [
        { asset: `${chainId}/slip44:501`, amount: '0x989680', recipient: `${chainId}:${merchant}` },
      ],
    }
    // A blockhash of its own: the same transfer on the last test's blockhash would be that test's transaction.
    chain.svm.expireBlockhash()
    const [first] = paidTo(await connectWith(order)) ?? []
    expect(first).toBeDefined()
    chain.svm.expireBlockhash()
    const [again] = paidTo(await connectWith(order)) ?? []
    expect(again?.txid).toBe(first?.txid)
    expect(lamportsOf(merchant) - before).toBe(10_000_000n)
  })

  it('pays nothing for an expired offer or one it cannot pay; the session still settles', async () => {
    const sent = chain.sent.length
    const expired = await connectWith({
      version: '1.0.0',
      expiry: Math.floor(Date.now() / 1000) - 60,
      acceptedPayments: [
        { asset: `${chainId}/slip44:501`, amount: '0x989680', recipient: `${chainId}:${merchant}` },
      ],
    })
    expect(paidTo(expired)).toBeUndefined()
    expect(expired.namespaces.solana?.accounts).toHaveLength(1)
    expect(shop.proposals.at(-1)?.requests?.walletPay?.refused).toMatch(/expired at/)
    const unpayable = await connectWith({
      version: '1.0.0',
      expiry: inFiveMinutes(),
      acceptedPayments: [
        // A wallet's address (the SOL merchant's, paid above) as the mint, an NFT, a recipient that is no address.
        { asset: `${chainId}/token:${merchant}`, amount: '0x1', recipient: `${chainId}:${merchant}` },
        { asset: `${chainId}/nft:${mintAddress}`, amount: '0x1', recipient: `${chainId}:${merchant}` },
        { asset: `${chainId}/slip44:501`, amount: '0x1', recipient: `${chainId}:0xbeef` },
      ],
    })
    expect(paidTo(unpayable)).toBeUndefined()
    expect(unpayable.namespaces.solana?.accounts).toHaveLength(1)
    expect(shop.proposals.at(-1)?.requests?.walletPay?.options.map((option) => option.unpayable)).toEqual([
      `${merchant} is not a token mint (owner 11111111111111111111111111111111)`,
      'asset type nft is not slip44:501 or token',
      'the recipient is not a base58 address',
    ])
    expect(chain.sent.length).toBe(sent)
  })

  it('sends nothing when the payment fails its simulation (more tokens than the payer holds); the session settles', async () => {
    const sent = chain.sent.length
    const errors = shop.adapterErrors.length
    const session = await connectWith({
      version: '1.0.0',
      expiry: inFiveMinutes(),
      acceptedPayments: [
        {
          asset: `${chainId}/token:${mintAddress}`,
          amount: '0xffffffffff',
          recipient: `${chainId}:${tokenMerchant}`,
        },
      ],
    })
    expect(paidTo(session)).toBeUndefined()
    expect(session.namespaces.solana?.accounts).toHaveLength(1)
    expect(chain.sent.length).toBe(sent)
    expect(shop.adapterErrors.slice(errors).map(String)).toEqual([
      expect.stringMatching(/connect-time payment .* on solana:localnet not done/),
    ])
    shop.adapterErrors.splice(errors)
  })

  it('reported no other failure', () => {
    expect(shop.adapterErrors).toEqual([])
  })
})
