import { recoverTypedSignature, SignTypedDataVersion } from '@metamask/eth-sig-util'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { type PaySandbox, startPaySandbox } from '@wallet-rpc/pay-sandbox'
import { createPublicClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Review } from '../../../src/core/review.js'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { eip155, httpProvider, mnemonicKeys } from '../../../src/eip155/index.js'
import {
  createPayClient,
  type FetchLike,
  type PayHooks,
  PaymentExpiredError,
  parsePaymentLink,
} from '../../../src/pay/index.js'

/**
 * End to end against the real test-mode gateway (`startPaySandbox`) and the real eip155 namespace on anvil:
 * the sandbox checks every confirmed result cryptographically (the approval transaction is fetched from
 * anvil and its signer recovered; the EIP-712 signature must recover to the option's account), and these
 * tests recover the signature once more with an independent implementation (@metamask/eth-sig-util).
 */

const mnemonic = 'test test test test test test test test test test test junk'
const checkoutHost = 'pay.sandbox.test'

let anvil: AnvilInstance
let sandbox: PaySandbox

beforeAll(async () => {
  anvil = await startAnvil()
  sandbox = await startPaySandbox({
    checkoutUrl: `https://${checkoutHost}`,
    chains: { 'eip155:31337': anvil.url },
    processingMs: 20,
    settlementMs: 20,
    pollInMs: 20,
  })
})

afterAll(async () => {
  await sandbox?.stop()
  await anvil?.stop()
})

type Traffic = { endpoint: string; status: number; request: unknown; response: unknown }

/** The real fetch, recording gateway traffic; `failFirst` answers 503 to the first N calls of an endpoint. */
function recordingFetch(failFirst: Record<string, number> = {}) {
  const traffic: Traffic[] = []
  const failed: Record<string, number> = {}
  const fetch: FetchLike = async (url, init) => {
    const endpoint = new URL(url).pathname.split('/').pop() ?? ''
    const request = init.body === undefined ? undefined : JSON.parse(String(init.body))
    if ((failed[endpoint] ?? 0) < (failFirst[endpoint] ?? 0)) {
      failed[endpoint] = (failed[endpoint] ?? 0) + 1
      traffic.push({ endpoint, status: 503, request, response: null })
      return new Response(JSON.stringify({ code: 'internal_error', message: 'injected outage' }), {
        status: 503,
      })
    }
    const response = await globalThis.fetch(url, init)
    const text = await response.clone().text()
    traffic.push({
      endpoint,
      status: response.status,
      request,
      response: text === '' ? null : JSON.parse(text),
    })
    return response
  }
  return {
    fetch,
    traffic,
    calls: (endpoint: string) => traffic.filter((entry) => entry.endpoint === endpoint),
  }
}

function wallet(onApprove?: (review: Review) => void) {
  const reviews: Review[] = []
  const rpc = createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic }),
        chains: [{ chainId: 31337, provider: httpProvider(anvil.url) }],
      }),
    ],
    approve: (review) => {
      reviews.push(review)
      onApprove?.(review)
      return true
    },
  })
  return { rpc, reviews }
}

function client(rpc: ReturnType<typeof wallet>['rpc'], fetch: FetchLike, sleeps: number[] = []) {
  return createPayClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    wallet: rpc,
    fetch,
    version: '2026-02-18',
    trustedHosts: [checkoutHost],
    maxPollMs: 5_000,
    sleep: async (ms) => {
      sleeps.push(ms)
      await new Promise((resolve) => setTimeout(resolve, Math.min(ms, 20)))
    },
  })
}

/** The merchant side: POST /v1/payments, returning the buyer link. */
async function createPayment(cents = '1250'): Promise<{ id: string; link: string }> {
  const response = await fetch(`${sandbox.url}/v1/payments`, {
    method: 'POST',
    headers: {
      'Api-Key': sandbox.apiKey,
      'Merchant-Id': sandbox.merchantId,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({
      referenceId: `order-${cents}-${Math.random().toString(36).slice(2, 8)}`,
      amount: { unit: 'iso4217/USD', value: cents },
    }),
  })
  expect(response.status).toBe(201)
  const body = (await response.json()) as { id: string; paymentLink: string }
  return { id: body.id, link: body.paymentLink }
}

describe('Pay client against the test-mode gateway, signing with the eip155 namespace on anvil', () => {
  it('USDC-style payment: approval transaction then EIP-712 signature → succeeded', async () => {
    const { id, link } = await createPayment()
    expect(parsePaymentLink(link, { trustedHosts: [checkoutHost] })).toBe(id)

    const { rpc, reviews } = wallet()
    const traffic = recordingFetch()
    const pay = client(rpc, traffic.fetch)
    const options = await pay.getOptions(link, { includePaymentInfo: true })
    expect(options.version).toBe('2026-02-18')
    expect(pay.remainingMs(options)).toBeGreaterThan(0)
    const [address] = await rpc.accounts('eip155:31337')
    expect(traffic.calls('options')[0]!.request).toEqual({ accounts: [`eip155:31337:${address}`] })
    const option = options.options.find((candidate) => candidate.account === `eip155:31337:${address}`)!
    expect(option.available).toBe(true)
    expect(option.actions.map((action) => action.type)).toEqual(['walletRpc', 'build'])

    const result = await pay.pay(link, option.id, { options })
    expect(result.status).toBe('succeeded')
    expect(result.results).toHaveLength(2)
    expect(result.version).toBe('2026-02-18')

    // The wallet saw two approvals, each with the payment context.
    expect(reviews.map((review) => [review.method, review.context?.action])).toEqual([
      ['eth_sendTransaction', '1 of 2'],
      ['eth_signTypedData_v4', '2 of 2'],
    ])
    expect(reviews[0]!.context).toMatchObject({
      payment: id,
      merchant: 'Sandbox Merchant',
      amount: '12.5 USD',
    })

    // Independent checks: the approval transaction was mined from our account; the signature recovers to it.
    const chain = createPublicClient({ transport: http(anvil.url) })
    const receipt = await chain.waitForTransactionReceipt({
      hash: result.results[0] as `0x${string}`,
      timeout: 10_000,
      pollingInterval: 50,
    })
    expect(receipt.status).toBe('success')
    expect(receipt.from.toLowerCase()).toBe(address!.toLowerCase())
    const fetched = traffic.calls('fetch')[0]!.response as { actions: { data: { params: unknown[] } }[] }
    const [, typedDataText] = fetched.actions[0]!.data.params as [string, string]
    const recovered = recoverTypedSignature({
      data: JSON.parse(typedDataText),
      signature: result.results[1]!,
      version: SignTypedDataVersion.V4,
    })
    expect(recovered.toLowerCase()).toBe(address!.toLowerCase())

    const confirm = traffic.calls('confirm')[0]!.request
    expect(confirm).toEqual({
      optionId: option.id,
      results: result.results.map((value) => ({ type: 'walletRpc', data: [value] })),
    })
    expect(sandbox.control.payment(id)).toMatchObject({
      status: 'succeeded',
      transaction_hash: result.results[0],
    })
  })

  it('expired payment: 410, final, nothing signed', async () => {
    const { id, link } = await createPayment()
    sandbox.control.expire(id)
    const { rpc, reviews } = wallet()
    const traffic = recordingFetch()
    const error = await client(rpc, traffic.fetch)
      .pay(link, 'opt_any')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PaymentExpiredError)
    expect(error).toMatchObject({ status: 410, code: 'payment_expired' })
    expect(reviews).toHaveLength(0)
    expect(traffic.traffic.map((entry) => [entry.endpoint, entry.status])).toEqual([['options', 410]])
  })

  it('expired while paying: 410 on fetch, nothing signed', async () => {
    const { id, link } = await createPayment()
    const { rpc, reviews } = wallet()
    const traffic = recordingFetch()
    const pay = client(rpc, traffic.fetch)
    const options = await pay.getOptions(link, { includePaymentInfo: true })
    sandbox.control.expire(id)
    await expect(pay.pay(link, options.options[0]!.id, { options })).rejects.toMatchObject({
      name: 'PaymentExpiredError',
      status: 410,
    })
    expect(reviews).toHaveLength(0)
    expect(traffic.calls('confirm')).toHaveLength(0)
  })

  it('409: the route expires while the user approves; options are fetched again once and the payment succeeds', async () => {
    const { id, link } = await createPayment()
    let expired = false
    const { rpc, reviews } = wallet((review) => {
      if (!expired && review.context?.action === '2 of 2') {
        expired = true
        sandbox.control.expireRoutes(id)
      }
    })
    const traffic = recordingFetch()
    const pay = client(rpc, traffic.fetch)
    const options = await pay.getOptions(link, { includePaymentInfo: true })
    const first = options.options[0]!.id
    const result = await pay.pay(link, first, { options })
    expect(result.status).toBe('succeeded')
    expect(result.optionId).not.toBe(first)
    expect(traffic.calls('confirm').map((entry) => entry.status)).toEqual([409, 200])
    expect(traffic.calls('options')).toHaveLength(2)
    // Both attempts were approved action by action: 2 + 2.
    expect(reviews).toHaveLength(4)
  })

  it('a flaky gateway (two 503s on confirm) still succeeds after backing off 100 then 200 ms', async () => {
    const { link } = await createPayment()
    const { rpc } = wallet()
    const traffic = recordingFetch({ confirm: 2 })
    const sleeps: number[] = []
    const result = await client(rpc, traffic.fetch, sleeps).pay(link, await firstOptionId(link, rpc))
    expect(result.status).toBe('succeeded')
    expect(
      traffic
        .calls('confirm')
        .slice(0, 3)
        .map((entry) => entry.status),
    ).toEqual([503, 503, 200])
    expect(sleeps[0]).toBeGreaterThanOrEqual(100)
    expect(sleeps[0]).toBeLessThan(200)
    expect(sleeps[1]).toBeGreaterThanOrEqual(200)
    expect(sleeps[1]).toBeLessThan(300)
  })

  it('data collection, schema path: collectedData is sent and stored', async () => {
    const { id, link } = await createPayment()
    sandbox.control.requireCollectData(id)
    const { rpc } = wallet()
    const traffic = recordingFetch()
    const pay = client(rpc, traffic.fetch)
    const options = await pay.getOptions(link, { includePaymentInfo: true })
    expect(options.options[0]!.dataCollection.required).toBe(true)
    const hooks: PayHooks = {
      options,
      collectData: async ({ schema }) => {
        expect(schema?.required).toEqual(['fullName', 'dateOfBirth'])
        return { fullName: 'John Smith', dateOfBirth: '1990-01-01' }
      },
    }
    const result = await pay.pay(link, options.options[0]!.id, hooks)
    expect(result.status).toBe('succeeded')
    expect(traffic.calls('confirm')[0]!.request).toMatchObject({
      collectedData: {
        fields: [
          { id: 'fullName', value: 'John Smith' },
          { id: 'dateOfBirth', value: '1990-01-01' },
        ],
      },
    })
    expect(sandbox.control.payment(id).collected_data).toEqual([
      { id: 'fullName', value: 'John Smith' },
      { id: 'dateOfBirth', value: '1990-01-01' },
    ])
  })

  it('data collection, web view: the page submits, IC_COMPLETE, confirm goes without collectedData', async () => {
    const { id, link } = await createPayment()
    sandbox.control.requireCollectData(id)
    const { rpc } = wallet()
    const traffic = recordingFetch()
    const result = await client(rpc, traffic.fetch).pay(link, await firstOptionId(link, rpc), {
      webView: async ({ url }) => {
        // What the page does when the buyer submits the form.
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            fullName: 'Jane Doe',
            dateOfBirth: '1985-05-05',
            country: 'DE',
          }).toString(),
        })
        expect(await response.text()).toContain('IC_COMPLETE')
        return { type: 'IC_COMPLETE', success: true }
      },
    })
    expect(result.status).toBe('succeeded')
    expect(traffic.calls('confirm')[0]!.request).not.toHaveProperty('collectedData')
    expect(sandbox.control.payment(id).collected_data).toEqual([
      { id: 'fullName', value: 'Jane Doe' },
      { id: 'dateOfBirth', value: '1985-05-05' },
      { id: 'country', value: 'DE' },
    ])
  })

  it('typed errors carry the gateway code and message: bad Pay-Version, unknown key (never echoed)', async () => {
    const { link } = await createPayment()
    const { rpc } = wallet()
    const base = { baseUrl: sandbox.url, wallet: rpc, trustedHosts: [checkoutHost] }
    const badVersion = await createPayClient({ ...base, apiKey: sandbox.apiKey, version: 'yesterday' })
      .getOptions(link)
      .catch((e: unknown) => e)
    expect(badVersion).toMatchObject({ name: 'GatewayError', status: 400, code: 'invalid_api_version' })
    const wrongKey = 'svc_test_definitely_not_the_key_123'
    const unknownKey = await createPayClient({ ...base, apiKey: wrongKey })
      .getOptions(link)
      .catch((e: unknown) => e)
    expect(unknownKey).toMatchObject({ name: 'GatewayError', status: 401, code: 'invalid_api_key' })
    expect(JSON.stringify(unknownKey) + String(unknownKey)).not.toContain(wrongKey)
  })

  it('authenticates with App-Id and Client-Id as well', async () => {
    const { link } = await createPayment()
    const { rpc } = wallet()
    const pay = createPayClient({
      baseUrl: sandbox.url,
      appId: sandbox.appId,
      clientId: 'wallet-rpc-tests',
      wallet: rpc,
      trustedHosts: [checkoutHost],
    })
    const options = await pay.getOptions(link)
    expect(options.options).toHaveLength(1)
  })
})

async function firstOptionId(link: string, rpc: ReturnType<typeof wallet>['rpc']): Promise<string> {
  const options = await client(rpc, globalThis.fetch).getOptions(link)
  return options.options[0]!.id
}
