import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import {
  type HostileAction,
  type PaySandbox,
  permit2Address,
  sandboxSpender,
  startPaySandbox,
} from '@wallet-rpc/pay-sandbox'
import { createPublicClient, http } from 'viem'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ApprovalPolicy, Review } from '../../../src/core/review.js'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { eip155, httpProvider, mnemonicKeys } from '../../../src/eip155/index.js'
import { createPayClient, type FetchLike, PayActionError } from '../../../src/pay/index.js'

/**
 * The pay client against a hostile gateway: the real test-mode sandbox under its fault mode's `hostile` plan
 * (its options show the honest payment, 12.5 USDC from the wallet's first account on anvil, while their actions
 * sign something else; honestly, they approve Permit2 for the amount and sign a Permit2 transfer drawing on it) and the real eip155 namespace on anvil. The wallet decodes each action it would sign and
 * compares it with the option: every difference is a `danger`, refused before anything is signed, the error
 * naming both values; nothing tampered reaches the chain or the gateway's confirm.
 */

const mnemonic = 'test test test test test test test test test test test junk'
const chainId = 'eip155:31337'

let anvil: AnvilInstance
let sandbox: PaySandbox

beforeAll(async () => {
  anvil = await startAnvil()
  sandbox = await startPaySandbox({
    chains: { [chainId]: anvil.url },
    processingMs: 20,
    settlementMs: 20,
    pollInMs: 20,
  })
})

afterAll(async () => {
  await sandbox?.stop()
  await anvil?.stop()
})

beforeEach(() => sandbox.faults.set({}))

/** Two accounts on anvil (m/44'/60'/0'/0/0 and /1) and a second chain without a provider (eip155:1). */
function wallet(policy?: ApprovalPolicy) {
  const reviews: Review[] = []
  const rpc = createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic, addressIndex: [0, 1] }),
        chains: [{ chainId: 31337, provider: httpProvider(anvil.url) }, { chainId: 1 }],
      }),
    ],
    approve: (review) => {
      reviews.push(review)
      return true
    },
    ...(policy === undefined ? {} : { policy }),
  })
  return { rpc, reviews }
}

/** The real fetch, recording which gateway endpoints were called. */
function recordingFetch() {
  const endpoints: string[] = []
  const fetch: FetchLike = (url, init) => {
    endpoints.push(new URL(url).pathname.split('/').pop() ?? '')
    return globalThis.fetch(url, init)
  }
  return { fetch, endpoints }
}

async function createPayment(): Promise<string> {
  const response = await fetch(`${sandbox.url}/v1/payments`, {
    method: 'POST',
    headers: {
      'Api-Key': sandbox.apiKey,
      'Merchant-Id': sandbox.merchantId,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({
      referenceId: `hostile-${Math.random().toString(36).slice(2, 8)}`,
      amount: { unit: 'iso4217/USD', value: '1250' },
    }),
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { id: string }).id
}

const chain = () => createPublicClient({ transport: http(anvil.url) })

/** Pays the first account's option under `hostile`; returns what happened. */
async function payUnder(hostile: HostileAction[], policy?: ApprovalPolicy) {
  sandbox.faults.set({ hostile })
  const id = await createPayment()
  const { rpc, reviews } = wallet(policy)
  const accounts = await rpc.accounts(chainId)
  const nonces = await Promise.all(
    accounts.map((address) => chain().getTransactionCount({ address: address as `0x${string}` })),
  )
  const traffic = recordingFetch()
  const pay = createPayClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    wallet: rpc,
    fetch: traffic.fetch,
    version: '2026-02-18',
    maxPollMs: 0,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20))),
  })
  const options = await pay.getOptions(id, { includePaymentInfo: true })
  const option = options.options.find((candidate) => candidate.account === `${chainId}:${accounts[0]}`)!
  // The option itself is honest: 12.5 USDC from the first account.
  expect(option.amount).toMatchObject({ value: '12500000', display: { assetSymbol: 'USDC', decimals: 6 } })
  // The result when the wallet paid, else the error it refused with.
  const outcome = await pay.pay(id, option.id, { options }).catch((caught: unknown) => caught)
  const after = await Promise.all(
    accounts.map((address) => chain().getTransactionCount({ address: address as `0x${string}` })),
  )
  return { id, outcome, reviews, endpoints: traffic.endpoints, nonces, after, accounts }
}

type Refusal = { actionIndex: number; rpcError: { code: number; data: { rule: string; reason: string } } }

describe('the pay client refuses what a hostile gateway asks it to sign (sandbox fault mode, anvil)', () => {
  it('the honest option (approve Permit2, then a Permit2 signature drawing on it) is paid; the user is shown whom it pays', async () => {
    const run = await payUnder([])
    expect(run.outcome).toMatchObject({ status: 'succeeded' })
    const [approval, signature] = run.reviews
    for (const review of run.reviews) {
      expect(review.warnings.filter((warning) => warning.severity === 'danger')).toEqual([])
    }
    expect(approval!.warnings).toContainEqual({
      code: 'pay.recipient_unverified',
      severity: 'caution',
      message: `The payment gateway does not name who is paid; this request lets ${permit2Address.toLowerCase()} spend 12.5 USDC (ERC-20 approve).`,
    })
    expect(signature!.warnings).toContainEqual({
      code: 'pay.recipient_unverified',
      severity: 'caution',
      message: `The payment gateway does not name who is paid; this request lets ${sandboxSpender} spend 12.5 USDC (Permit2 PermitWitnessTransferFrom).`,
    })
  })

  it('a build action whose fetch resolves to a Permit2 signature for 1000 times the amount: refused, naming both amounts', async () => {
    const run = await payUnder(['amount'])
    expect(run.outcome).toBeInstanceOf(PayActionError)
    const refusal = run.outcome as Refusal
    expect(refusal.actionIndex).toBe(1)
    expect(refusal.rpcError.code).toBe(-32602)
    expect(refusal.rpcError.data.rule).toBe('pay.amount_mismatch')
    expect(refusal.rpcError.data.reason).toMatch(
      /^The payment gateway shows 12\.5 USDC; this request lets 0x[0-9a-fA-F]{40} spend 12500 USDC \(Permit2 PermitWitnessTransferFrom\), so with the payment's earlier requests \(up to 12\.5 USDC\) it can take up to 12500 USDC\.$/,
    )
    // Only the honest approval was asked and sent; the signature was never shown for approval nor signed.
    expect(run.reviews.map((review) => review.method)).toEqual(['eth_sendTransaction'])
    expect(run.endpoints).not.toContain('confirm')
    expect(sandbox.control.payment(run.id)).toMatchObject({ status: 'requires_action' })
  })

  it('an approval to the settlement contract beside a Permit2 signature for the amount: each could take it, the signature is refused', async () => {
    const run = await payUnder(['spender'])
    const refusal = run.outcome as Refusal
    expect(refusal).toMatchObject({ actionIndex: 1, rpcError: { data: { rule: 'pay.amount_mismatch' } } })
    expect(refusal.rpcError.data.reason).toBe(
      `The payment gateway shows 12.5 USDC; this request lets ${sandboxSpender} spend 12.5 USDC (Permit2 PermitWitnessTransferFrom), so with the payment's earlier requests (up to 12.5 USDC) it can take up to 25 USDC.`,
    )
    expect(run.reviews.map((review) => review.method)).toEqual(['eth_sendTransaction'])
    expect(run.endpoints).not.toContain('confirm')
    expect(sandbox.control.payment(run.id)).toMatchObject({ status: 'requires_action' })
  })

  it('an approval of another token than the option shows: refused before it is sent', async () => {
    const run = await payUnder(['asset'])
    const refusal = run.outcome as Refusal
    expect(refusal).toMatchObject({ actionIndex: 0, rpcError: { data: { rule: 'pay.asset_mismatch' } } })
    expect(refusal.rpcError.data.reason).toMatch(
      /^The payment gateway shows 12\.5 USDC; this request lets 0x[0-9a-fA-F]{40} spend 12500000 base units of token 0x[0-9a-fA-F]{40} \(ERC-20 approve\)\.$/,
    )
    expect(run.reviews).toEqual([])
    expect(run.after).toEqual(run.nonces)
  })

  it('an unlimited approval: refused before it is sent', async () => {
    const run = await payUnder(['approval'])
    const refusal = run.outcome as Refusal
    expect(refusal).toMatchObject({ actionIndex: 0, rpcError: { data: { rule: 'pay.amount_mismatch' } } })
    expect(refusal.rpcError.data.reason).toMatch(
      /this request lets 0x[0-9a-fA-F]{40} spend an unlimited amount \(ERC-20 approve\)/,
    )
    expect(run.after).toEqual(run.nonces)
  })

  it('actions that sign from another of the wallet’s accounts than the option names: refused, neither account sends', async () => {
    const run = await payUnder(['account'])
    const refusal = run.outcome as Refusal
    expect(refusal).toMatchObject({ actionIndex: 0, rpcError: { data: { rule: 'pay.account_mismatch' } } })
    expect(refusal.rpcError.data.reason).toContain(`paid from ${run.accounts[0]}`)
    expect(refusal.rpcError.data.reason).toContain(`from ${run.accounts[1]}`)
    expect(run.reviews).toEqual([])
    expect(run.after).toEqual(run.nonces)
  })

  it('an authorization for another chain than the option’s (a chain the wallet also serves): refused', async () => {
    const run = await payUnder(['chain'])
    const refusal = run.outcome as Refusal
    expect(refusal).toMatchObject({ actionIndex: 1, rpcError: { data: { rule: 'pay.chain_mismatch' } } })
    expect(refusal.rpcError.data.reason).toContain(
      'shows 12.5 USDC on eip155:31337; this request signs on eip155:1',
    )
    expect(run.endpoints).not.toContain('confirm')
  })

  it('a wallet whose policy allows a code lets its user decide, with the danger in the review', async () => {
    const run = await payUnder(['amount'], { allowDangerous: ['pay.amount_mismatch'] })
    // This wallet's user approved it (the test's approve says yes): the danger was in front of them.
    const signature = run.reviews.find((review) => review.method === 'eth_signTypedData_v4')
    expect(signature?.warnings).toContainEqual({
      code: 'pay.amount_mismatch',
      severity: 'danger',
      message: expect.stringMatching(
        /shows 12\.5 USDC; this request lets 0x[0-9a-fA-F]{40} spend 12500 USDC/,
      ),
    })
    // The hostile sandbox accepts what it asked for: with the user's yes, the tampered payment goes through.
    expect(run.outcome).toMatchObject({ status: 'succeeded' })
  })
})
