import { ed25519 as noble } from '@noble/curves/ed25519.js'
import { base58, base64 } from '@scure/base'
import { type Address, address, lamports } from '@solana/kit'
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { type SolanaLocalChain, startSolanaLocal } from '@wallet-rpc/devchains/solanaLocal'
import { createSplMint } from '@wallet-rpc/devchains/splToken'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Review } from 'wallet-rpc'
import { createWalletRpc } from 'wallet-rpc'
import { createPayClient } from 'wallet-rpc/pay'
import { solana, solanaKeys, solanaLocalnet, solanaRpc } from 'wallet-rpc/solana'
import { associatedTokenAccount } from '../src/associatedToken.js'
import { type PaySandbox, startPaySandbox } from '../src/index.js'

/**
 * Issue 18 item 7, the sandbox side: a Solana USDC-style option on a real Solana runtime (litesvm behind the
 * JSON-RPC facade). The wallet signs the sandbox's transaction with `solana_signTransaction` and does not
 * broadcast; the sandbox checks it is exactly the transaction it built, signed by the payer, submits it, and
 * reads the merchant's token balance back. Balances are read from the runtime itself here.
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const merchantOwner = address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')
const mint = address(base58.encode(new Uint8Array(32).fill(0x11)))
const checkoutHost = 'pay.sandbox.test'

let chain: SolanaLocalChain
let sandbox: PaySandbox
let token: ReturnType<typeof createSplMint>
const tokenBalance = (owner: Address) => token.balance(owner)
const [signer] = solanaKeys.fromMnemonic(mnemonic)
const payer = address(base58.encode(signer!.publicKey))

beforeAll(async () => {
  chain = await startSolanaLocal()
  chain.svm.airdrop(payer, lamports(10_000_000_000n))
  token = createSplMint(chain, { address: mint })
  token.fund(payer, 100_000_000n)
  sandbox = await startPaySandbox({
    checkoutUrl: `https://${checkoutHost}`,
    solana: { rpcUrl: chain.url, mint },
    processingMs: 20,
    settlementMs: 20,
    pollInMs: 20,
  })
  const settlement = await fetch(`${sandbox.url}/v1/merchants/${sandbox.merchantId}/settlements/crypto`, {
    method: 'POST',
    headers: { 'Api-Key': sandbox.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      settlements: [
        { asset: `${solanaLocalnet}/token:${mint}`, destination: `${solanaLocalnet}:${merchantOwner}` },
      ],
    }),
  })
  expect(settlement.status).toBe(201)
})

afterAll(async () => {
  await sandbox?.stop()
  await chain?.stop()
})

async function createPayment(cents: string): Promise<{ id: string; link: string }> {
  const response = await fetch(`${sandbox.url}/v1/payments`, {
    method: 'POST',
    headers: {
      'Api-Key': sandbox.apiKey,
      'Merchant-Id': sandbox.merchantId,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({ referenceId: `order-${cents}`, amount: { unit: 'iso4217/USD', value: cents } }),
  })
  expect(response.status).toBe(201)
  const body = (await response.json()) as { id: string; paymentLink: string }
  return { id: body.id, link: body.paymentLink }
}

function payingWallet() {
  const reviews: Review[] = []
  const wallet = createWalletRpc({
    namespaces: [
      solana({
        keys: solanaKeys.fromMnemonic(mnemonic),
        chains: [solanaLocalnet],
        providers: { [solanaLocalnet]: solanaRpc(chain.url) },
      }),
    ],
    approve: (review) => {
      reviews.push(review)
      return true
    },
  })
  const client = createPayClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    wallet,
    version: '2026-02-18',
    trustedHosts: [checkoutHost],
    maxPollMs: 5_000,
  })
  return { client, reviews }
}

describe('pay sandbox: the Solana option on a real Solana runtime', () => {
  it('derives associated token accounts as @solana-program/token does', async () => {
    for (const owner of [payer, merchantOwner]) {
      const [theirs] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS })
      expect(base58.encode(associatedTokenAccount(base58.decode(owner), base58.decode(mint)))).toBe(theirs)
    }
  })

  it('12.50 USD: the wallet signs the sandbox transaction, the sandbox submits it, the merchant gains 12.5 tokens', async () => {
    const { id, link } = await createPayment('1250')
    const { client, reviews } = payingWallet()
    const options = await client.getOptions(link)
    const option = options.options.find((candidate) => candidate.account === `${solanaLocalnet}:${payer}`)!
    expect(option.available).toBe(true)
    expect(option.amount).toMatchObject({ unit: `caip19/${solanaLocalnet}/token:${mint}`, value: '12500000' })
    const sentBefore = chain.sent.length
    const payerBefore = tokenBalance(payer)
    const merchantBefore = tokenBalance(merchantOwner)

    const result = await client.pay(link, option.id, { options })
    expect(result.status).toBe('succeeded')
    // Spec rule 4: the result is the base64 signed transaction, with the payer's valid signature.
    const signed = base64.decode(result.results[0] as string)
    const signature = signed.subarray(1, 65)
    expect(noble.verify(signature, signed.subarray(65), base58.decode(payer))).toBe(true)
    // The wallet did not broadcast: the sandbox sent it, once.
    expect(chain.sent.length).toBe(sentBefore + 1)
    expect(tokenBalance(payer)).toBe(payerBefore - 12_500_000n)
    expect(tokenBalance(merchantOwner)).toBe(merchantBefore + 12_500_000n)
    // The wallet's review decoded the transfer and showed the simulated token change.
    expect(reviews).toHaveLength(1)
    expect(reviews[0]!.method).toBe('solana_signTransaction')
    expect(JSON.stringify(reviews[0]!.items)).toContain('12.5 (12500000 base units, 6 decimals)')
    expect(reviews[0]!.context).toMatchObject({ payment: id })
  })

  it('refuses a signed transaction other than the one it built, and moves nothing', async () => {
    const { id, link } = await createPayment('300')
    const { client } = payingWallet()
    const options = await client.getOptions(link)
    const option = options.options.find((candidate) => candidate.account === `${solanaLocalnet}:${payer}`)!
    const fetched = await fetch(`${sandbox.url}/v1/gateway/payment/${link.split('/').pop()}/fetch`, {
      method: 'POST',
      headers: { 'Api-Key': sandbox.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        optionId: option.id,
        data: (option.actions[0] as { data: { data: string } }).data.data,
      }),
    })
    const { actions } = (await fetched.json()) as { actions: Array<{ data: { params: unknown[] } }> }
    const [{ transaction }] = actions[0]!.data.params as [{ transaction: string }]
    // The payer signs a tampered copy: one more token unit in the transfer's amount.
    const bytes = base64.decode(transaction)
    const amountOffset = bytes.length - 9
    bytes[amountOffset] = bytes[amountOffset]! + 1
    const message = bytes.subarray(65)
    bytes.set(await signer!.sign(message), 1)
    const merchantBefore = tokenBalance(merchantOwner)
    const confirm = await fetch(`${sandbox.url}/v1/gateway/payment/${link.split('/').pop()}/confirm`, {
      method: 'POST',
      headers: { 'Api-Key': sandbox.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        optionId: option.id,
        results: [{ type: 'walletRpc', data: [base64.encode(bytes)] }],
      }),
    })
    const status = (await confirm.json()) as { status: string }
    expect(status.status).toBe('failed')
    expect(sandbox.control.payment(id).failure_reason).toMatch(/not the one the option asked for/)
    expect(tokenBalance(merchantOwner)).toBe(merchantBefore)
  })
})
