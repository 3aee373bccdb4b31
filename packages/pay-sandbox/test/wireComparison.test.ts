import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { WalletConnectPay } from '@walletconnect/pay'
import * as v from 'valibot'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletRpc, type WalletRpc } from 'wallet-rpc'
import { eip155, httpProvider, mnemonicKeys } from 'wallet-rpc/eip155'
import { createPayClient, executePayActions } from 'wallet-rpc/pay'
import {
  confirmResponseSchema,
  fetchResponseSchema,
  optionsResponseSchema,
} from '../../wallet-rpc/src/pay/client/shapes.js'
import { type PaySandbox, startPaySandbox } from '../src/index.js'
import { createPayment } from './helpers.js'
import { blockOutsideFetch, type Exchange, startWireRecorder } from './wire.js'

/**
 * The same payment made by `@walletconnect/pay` 1.1.0 and by wallet-rpc/pay, each through a recording proxy in front
 * of the sandbox: the requests must be the same on the wire (methods, paths with the link encoded the same way,
 * query, bodies, headers except the SDK's own name and version). Our client runs with `maxPollMs: 0` because the
 * official JavaScript client never asks for long polling (its WASM core can; ours does by default).
 * Then both clients parse the same answers: the sandbox's, and the gateway OpenAPI's own examples.
 */

const checkoutHost = 'pay.sandbox.test'
const mnemonic = 'test test test test test test test test test test test junk'
let anvil: AnvilInstance
let sandbox: PaySandbox
let offline: ReturnType<typeof blockOutsideFetch>

beforeAll(async () => {
  offline = blockOutsideFetch()
  anvil = await startAnvil()
  sandbox = await startPaySandbox({
    checkoutUrl: `https://${checkoutHost}`,
    chains: { 'eip155:31337': anvil.url },
    processingMs: 20,
    settlementMs: 20,
    pollInMs: 20,
  })
}, 60_000)

afterAll(async () => {
  await sandbox?.stop()
  await anvil?.stop()
  offline?.restore()
})

const wallet = (): WalletRpc =>
  createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic, addressIndex: 6 }),
        chains: [{ chainId: 31337, provider: httpProvider(anvil.url) }],
      }),
    ],
    approve: () => true,
  })

/** Headers that belong to the client's identity or to the connection, not to the protocol. */
const notCompared = new Set(['sdk-name', 'sdk-version', 'host', 'content-length', 'connection'])

/**
 * An exchange with what differs between two payments replaced by placeholders: the payment id, option ids, build
 * data, and hex values (hashes, signatures, addresses stay: both wallets are the same account).
 */
function normalized(exchange: Exchange, paymentId: string) {
  const scrub = (text: string) =>
    text
      .split(paymentId)
      .join('<payment>')
      .replace(/opt_[A-Za-z0-9_-]+/g, '<option>')
      .replace(/build_[A-Za-z0-9_-]+/g, '<build>')
      .replace(/0x[0-9a-fA-F]{64,}/g, '<hex>')
  return {
    method: exchange.method,
    target: scrub(exchange.target),
    headers: Object.fromEntries(
      Object.entries(exchange.headers)
        .filter(([name]) => !notCompared.has(name))
        .sort(([a], [b]) => a.localeCompare(b)),
    ),
    body: exchange.body === '' ? undefined : JSON.parse(scrub(exchange.body)),
    status: exchange.status,
  }
}

/** Consecutive identical status polls count once (how many a payment needs depends on timing). */
const withoutRepeatedPolls = (exchanges: ReturnType<typeof normalized>[]) =>
  exchanges.filter(
    (exchange, index) =>
      index === 0 ||
      !(exchange.method === 'GET' && JSON.stringify(exchange) === JSON.stringify(exchanges[index - 1])),
  )

async function officialFlow(link: (payment: { id: string; paymentLink: string }) => string) {
  const recorder = await startWireRecorder(sandbox.url)
  try {
    const payment = await createPaymentWithLink()
    const client = new WalletConnectPay({ apiKey: sandbox.apiKey, baseUrl: recorder.url, logger: 'silent' })
    const rpc = wallet()
    const [address] = await rpc.accounts('eip155:31337')
    const offered = await client.getPaymentOptions({
      paymentLink: link(payment),
      accounts: [`eip155:31337:${address}`],
      includePaymentInfo: true,
    })
    const option = offered.options[0]!
    const actions = await client.getRequiredPaymentActions({
      paymentId: offered.paymentId,
      optionId: option.id,
    })
    const signatures = await executePayActions(rpc, actions, {
      paymentId: offered.paymentId,
      optionId: option.id,
      option,
      origin: recorder.url,
    })
    const confirmed = await client.confirmPayment({
      paymentId: offered.paymentId,
      optionId: option.id,
      signatures,
    })
    expect(confirmed.status).toBe('succeeded')
    return { payment, exchanges: recorder.exchanges }
  } finally {
    await recorder.stop()
  }
}

async function ourFlow(link: (payment: { id: string; paymentLink: string }) => string) {
  const recorder = await startWireRecorder(sandbox.url)
  try {
    const payment = await createPaymentWithLink()
    const pay = createPayClient({
      baseUrl: recorder.url,
      apiKey: sandbox.apiKey,
      wallet: wallet(),
      trustedHosts: [checkoutHost],
      maxPollMs: 0,
    })
    const options = await pay.getOptions(link(payment), { includePaymentInfo: true })
    const result = await pay.pay(link(payment), options.options[0]!.id, { options })
    expect(result.status).toBe('succeeded')
    return { payment, exchanges: recorder.exchanges }
  } finally {
    await recorder.stop()
  }
}

async function createPaymentWithLink() {
  const id = await createPayment(sandbox, `wire-${Math.random().toString(36).slice(2, 8)}`)
  return { id, paymentLink: `https://${checkoutHost}/${id}` }
}

describe('the same payment by @walletconnect/pay and by wallet-rpc/pay: the same wire', () => {
  for (const [form, link] of [
    ['a bare id', (payment: { id: string }) => payment.id],
    ['the checkout link', (payment: { paymentLink: string }) => payment.paymentLink],
  ] as const) {
    it(`with ${form}: paths, query, bodies and headers match request by request`, async () => {
      const official = await officialFlow(link)
      const ours = await ourFlow(link)
      const theirs = withoutRepeatedPolls(official.exchanges.map((e) => normalized(e, official.payment.id)))
      const mine = withoutRepeatedPolls(ours.exchanges.map((e) => normalized(e, ours.payment.id)))
      expect(theirs.map((exchange) => `${exchange.method} ${exchange.target}`)).toEqual(
        form === 'a bare id'
          ? [
              'POST /v1/gateway/payment/<payment>/options?includePaymentInfo=true',
              'POST /v1/gateway/payment/<payment>/fetch',
              'POST /v1/gateway/payment/<payment>/confirm',
              'GET /v1/gateway/payment/<payment>/status',
            ]
          : [
              'POST /v1/gateway/payment/https%253A%252F%252Fpay.sandbox.test%252F<payment>/options?includePaymentInfo=true',
              'POST /v1/gateway/payment/https%253A%252F%252Fpay.sandbox.test%252F<payment>/fetch',
              'POST /v1/gateway/payment/https%253A%252F%252Fpay.sandbox.test%252F<payment>/confirm',
              'GET /v1/gateway/payment/https%253A%252F%252Fpay.sandbox.test%252F<payment>/status',
            ],
      )
      expect(mine).toEqual(theirs)
      // The identities differ only by name and version.
      expect(official.exchanges[0]!.headers).toMatchObject({
        'sdk-name': 'js-walletconnect-pay',
        'sdk-version': '1.1.0',
      })
      expect(ours.exchanges[0]!.headers).toMatchObject({ 'sdk-name': 'wallet-rpc' })
      // Our client parses every answer the official client got.
      for (const exchange of official.exchanges) {
        const endpoint = exchange.target.split('?')[0]!.split('/').pop()!
        const schema =
          { options: optionsResponseSchema, fetch: fetchResponseSchema }[endpoint] ?? confirmResponseSchema
        expect(v.safeParse(schema, JSON.parse(exchange.response)).success, exchange.response).toBe(true)
      }
    })
  }
})

const examples = JSON.parse(
  readFileSync(
    new URL('../../wallet-rpc/test-vectors/pay/gateway-openapi-examples.json', import.meta.url),
    'utf8',
  ),
) as { cases: Array<{ name: string; endpoint: 'options' | 'fetch' | 'confirm' | 'status'; body: unknown }> }

describe('both clients parse the gateway OpenAPI’s own examples (test-vectors/pay/gateway-openapi-examples.json)', () => {
  it('ours with its schemas; the official client when a local gateway answers with them', async () => {
    const schemas = {
      options: optionsResponseSchema,
      fetch: fetchResponseSchema,
      confirm: confirmResponseSchema,
      status: confirmResponseSchema,
    }
    for (const example of examples.cases) {
      expect(v.safeParse(schemas[example.endpoint], example.body).success, example.name).toBe(true)
    }
    const answer = (endpoint: string, index = 0) =>
      JSON.stringify(examples.cases.filter((example) => example.endpoint === endpoint)[index]!.body)
    const server = createServer((request, response) => {
      request.resume()
      const endpoint = (request.url ?? '').split('?')[0]!.split('/').pop()!
      // confirm answers processing, so the client polls status, which answers the succeeded example.
      const body =
        endpoint === 'confirm'
          ? JSON.stringify({ status: 'processing', isFinal: false, pollInMs: 1, info: null })
          : endpoint === 'status'
            ? answer('status', 1)
            : answer(endpoint)
      response.writeHead(200, { 'content-type': 'application/json' }).end(body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const client = new WalletConnectPay({
        apiKey: 'svc_test_examples',
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        logger: 'silent',
      })
      const offered = await client.getPaymentOptions({
        paymentLink: 'pay_123',
        accounts: ['eip155:8453:0x123'],
      })
      expect(offered.options[0]).toMatchObject({
        id: 'opt_123',
        amount: { display: { assetSymbol: 'USDC' } },
      })
      // An option it has not cached: the client asks fetch, which answers the FetchResponse example.
      const fetched = await client.getRequiredPaymentActions({ paymentId: 'pay_123', optionId: 'opt_other' })
      expect(fetched[0]!.walletRpc).toMatchObject({ chainId: 'eip155:8453', method: 'eth_signTypedData_v4' })
      const confirmed = await client.confirmPayment({
        paymentId: 'pay_123',
        optionId: 'opt_123',
        signatures: ['0x123'],
      })
      expect(confirmed).toMatchObject({ status: 'succeeded', info: { txId: '0xabc123...' } })
    } finally {
      server.close()
      server.closeAllConnections()
    }
  })
})
