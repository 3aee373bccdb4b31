import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { hasHiddenCharacters } from '../../../src/core/text.js'
import {
  backoffDelayMs,
  createPayClient,
  GatewayError,
  type PayError,
  PaymentExpiredError,
  PayNetworkError,
  PayProtocolError,
  RouteExpiredError,
} from '../../../src/pay/index.js'
import {
  fakeTime,
  fakeWallet,
  optionsBody,
  payClientFixture,
  type Reply,
  scriptedGateway,
  usdcOption,
} from './fakes.js'

const apiKey = 'svc_test_s3cr3t-key-0123456789'

function client(script: Record<string, Reply[]>, extra: { random?: () => number; version?: string } = {}) {
  const fixture = payClientFixture(script, { apiKey, ...extra })
  return { ...fixture, pay: fixture.client }
}

const ok = { status: 200, body: optionsBody([usdcOption()]) }
const unavailable = { status: 503, body: { code: 'internal_error', message: 'try later' } }

describe('retries: only 5xx and network failures, 3 retries from 100 ms doubling plus jitter', () => {
  it('computes the schedule: 100, 200, 400 ms plus jitter in [0, 100)', () => {
    const retry = { retries: 3, initialDelayMs: 100 }
    expect([0, 1, 2].map((n) => backoffDelayMs(n, retry, () => 0))).toEqual([100, 200, 400])
    expect([0, 1, 2].map((n) => backoffDelayMs(n, retry, () => 0.5))).toEqual([150, 250, 450])
    expect(backoffDelayMs(0, retry, () => 0.999_999_9)).toBe(199)
  })

  it('two 503s, then success: three attempts, waits 100 then 200 ms', async () => {
    const { pay, gateway, time } = client({ options: [unavailable, unavailable, ok] })
    const options = await pay.getOptions('pay_1')
    expect(options.options).toHaveLength(1)
    expect(gateway.calls('options')).toHaveLength(3)
    expect(time.state.sleeps).toEqual([100, 200])
  })

  it('gives up after 3 retries (4 attempts) with the gateway code of the last 5xx', async () => {
    const { pay, gateway, time } = client({ options: [unavailable] }, { random: () => 0.25 })
    const error = await pay.getOptions('pay_1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GatewayError)
    expect(error).toMatchObject({ code: 'internal_error', shortMessage: 'try later', status: 503 })
    expect(gateway.calls('options')).toHaveLength(4)
    expect(time.state.sleeps).toEqual([125, 225, 425])
  })

  it('retries network failures the same way and then reports network_error', async () => {
    const flaky = client({ options: ['network-error', 'network-error', 'network-error', ok] })
    await expect(flaky.pay.getOptions('pay_1')).resolves.toMatchObject({ paymentId: 'pay_1' })
    expect(flaky.time.state.sleeps).toEqual([100, 200, 400])

    const down = client({ options: ['network-error'] })
    const error = await down.pay.getOptions('pay_1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PayNetworkError)
    expect((error as PayError).code).toBe('network_error')
    expect(down.gateway.calls('options')).toHaveLength(4)
  })

  it('treats a hung request as a network failure: aborted at requestTimeoutMs, retried, then network_error', async () => {
    let attempts = 0
    const hanging = (_url: string, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        attempts++
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason))
      })
    const time = fakeTime()
    const pay = createPayClient({
      baseUrl: 'https://api.pay.example.com',
      apiKey,
      wallet: fakeWallet().wallet,
      fetch: hanging,
      sleep: time.sleep,
      random: () => 0,
      requestTimeoutMs: 5,
    })
    const error = await pay.getOptions('pay_1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PayNetworkError)
    expect(((error as Error).cause as Error).message).toBe('request timed out')
    expect(attempts).toBe(4)
    expect(time.state.sleeps).toEqual([100, 200, 400])
  })

  it.each([
    [400, 'params_validation', GatewayError],
    [401, 'invalid_api_key', GatewayError],
    [403, 'forbidden', GatewayError],
    [404, 'payment_not_found', GatewayError],
    [409, 'route_expired_custom', RouteExpiredError],
    [410, 'payment_expired_custom', PaymentExpiredError],
  ])(
    'never retries a %i: one attempt, typed error with the gateway code and message',
    async (status, code, type) => {
      const { pay, gateway, time } = client({
        options: [{ status, body: { code, message: `gateway says ${code}` } }, ok],
      })
      const error = await pay.getOptions('pay_1').catch((e: unknown) => e)
      expect(error).toBeInstanceOf(type)
      expect(error).toMatchObject({ code, shortMessage: `gateway says ${code}`, status })
      expect(gateway.calls('options')).toHaveLength(1)
      expect(time.state.sleeps).toEqual([])
    },
  )

  it('uses its own codes when the gateway sends no error body', async () => {
    const gone = await client({ options: [{ status: 410 }] })
      .pay.getOptions('pay_1')
      .catch((e: unknown) => e)
    expect(gone).toMatchObject({ name: 'PaymentExpiredError', code: 'payment_expired', status: 410 })
    const conflict = await client({ options: [{ status: 409 }] })
      .pay.getOptions('pay_1')
      .catch((e: unknown) => e)
    expect(conflict).toMatchObject({ name: 'RouteExpiredError', code: 'route_expired', status: 409 })
    const teapot = await client({ options: [{ status: 418, body: 'nope' }] })
      .pay.getOptions('pay_1')
      .catch((e: unknown) => e)
    expect(teapot).toMatchObject({ name: 'GatewayError', code: 'http_418', status: 418 })
  })

  it('keeps the gateway details and issues on validation errors', async () => {
    const issues = [{ field: 'accounts', message: 'must not be empty' }]
    const error = await client({
      options: [
        { status: 400, body: { code: 'params_validation', message: 'bad', details: { n: 1 }, issues } },
      ],
    })
      .pay.getOptions('pay_1')
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'params_validation', details: { n: 1 }, issues })
  })

  it('bounds and writes out visibly what the gateway puts in an error: code, message, issues (hostile gateway)', async () => {
    // 5,000 characters of code with controls and a bidi override; a message with line breaks and U+202E.
    const code = `evil\u202e\u0007${'x'.repeat(5_000)}`
    const message = `Pay again\nat https://evil.example\u202egnp.exe${'!'.repeat(2_000)}`
    const issues = Array.from({ length: 100 }, (_, index) => ({
      field: `f${index}\u0000`,
      message: `m\r\n${'y'.repeat(1_000)}`,
    }))
    for (const status of [400, 409, 410, 503]) {
      const error = await client({ options: [{ status, body: { code, message, issues } }] })
        .pay.getOptions('pay_1')
        .catch((e: unknown) => e)
      const { code: seen, shortMessage, issues: kept } = error as PayError
      expect(seen).toBe(`evil\\u{202E}\\u{7}${'x'.repeat(64 - 'evil'.length - 2)}…`)
      // 512 characters of the gateway's, each hidden one written out (a few characters more each).
      expect(shortMessage.length).toBeLessThan(540)
      expect(shortMessage.startsWith('Pay again\\u{A}at https://evil.example\\u{202E}gnp.exe!')).toBe(true)
      for (const text of [
        seen,
        shortMessage,
        (error as Error).message,
        ...(kept ?? []).flatMap((i) => [i.field, i.message]),
      ])
        expect(hasHiddenCharacters(text) || /[\t\n\r]/.test(text)).toBe(false)
      if (status === 400) {
        expect(kept).toHaveLength(32)
        expect(kept![0]).toEqual({ field: 'f0\\u{0}', message: `m\\u{D}\\u{A}${'y'.repeat(253)}…` })
      }
    }
  })

  it('refuses a 2xx body of the wrong shape with invalid_response', async () => {
    const error = await client({
      options: [{ status: 200, body: { options: [{ id: 'opt_1', actions: [{ type: 'teleport' }] }] } }],
    })
      .pay.getOptions('pay_1')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PayProtocolError)
    expect((error as PayError).code).toBe('invalid_response')
  })
})

describe('headers: auth, the version headers', () => {
  it('sends Api-Key and the version as WCP-Version and Api-Version (default the official client’s); reads the resolved one back', async () => {
    const pinned = client(
      { options: [{ ...ok, headers: { 'WCP-Version': '2026-02-18', 'Pay-Version': '2026-02-18' } }] },
      { version: '2026-02-18' },
    )
    const options = await pinned.pay.getOptions('pay_1')
    const sent = pinned.gateway.requests[0]!.headers
    expect(sent.get('api-key')).toBe(apiKey)
    expect(sent.get('wcp-version')).toBe('2026-02-18')
    expect(sent.get('api-version')).toBe('2026-02-18')
    expect(sent.has('pay-version')).toBe(false)
    expect(sent.get('content-type')).toBe('application/json')
    expect(sent.get('accept')).toBe('application/json')
    expect(sent.get('sdk-platform')).toBe('node')
    expect(options.version).toBe('2026-02-18')
    expect(pinned.pay.resolvedVersion()).toBe('2026-02-18')

    // A gateway that echoes only the seed's Pay-Version is read too.
    const unpinned = client({ options: [{ ...ok, headers: { 'Pay-Version': '2026-01-01' } }] })
    await unpinned.pay.getOptions('pay_1')
    expect(unpinned.gateway.requests[0]!.headers.get('wcp-version')).toBe('2026-02-19.preview')
    expect(unpinned.pay.resolvedVersion()).toBe('2026-01-01')
  })

  it('sends App-Id and Client-Id instead of an API key when configured so', async () => {
    const gateway = scriptedGateway({ options: [ok] })
    const pay = createPayClient({
      baseUrl: 'https://api.pay.example.com/',
      appId: 'app-1',
      clientId: 'client-1',
      wallet: fakeWallet().wallet,
      fetch: gateway.fetch,
    })
    await pay.getOptions('pay_1')
    const sent = gateway.requests[0]!
    expect(sent.url.href).toBe(
      'https://api.pay.example.com/v1/gateway/payment/pay_1/options?includePaymentInfo=false',
    )
    expect(sent.headers.get('app-id')).toBe('app-1')
    expect(sent.headers.get('client-id')).toBe('client-1')
    expect(sent.headers.has('api-key')).toBe(false)
  })

  it('refuses a configuration without credentials, appId without clientId, or plain http off loopback', () => {
    const { wallet } = fakeWallet()
    const base = { baseUrl: 'https://api.pay.example.com', wallet }
    expect(() => createPayClient({ ...base } as never)).toThrow(TypeError)
    expect(() => createPayClient({ ...base, appId: 'a' } as never)).toThrow(/clientId/)
    expect(() => createPayClient({ ...base, apiKey, baseUrl: 'http://api.pay.example.com' })).toThrow(/https/)
    expect(() => createPayClient({ ...base, apiKey, baseUrl: 'http://127.0.0.1:8080' })).not.toThrow()
  })
})

describe('the API key never leaks', () => {
  const leaks = (error: unknown) =>
    [
      String(error),
      (error as Error).stack ?? '',
      JSON.stringify(error),
      inspect(error, { depth: 10 }),
      JSON.stringify((error as PayError).details ?? null),
      JSON.stringify((error as PayError).issues ?? null),
    ].some((text) => text.includes(apiKey))

  it('not when the gateway echoes it in an error body', async () => {
    const error = await client({
      options: [
        {
          status: 401,
          body: {
            code: 'invalid_api_key',
            message: `key ${apiKey} is invalid`,
            details: { key: apiKey },
            issues: [{ field: 'Api-Key', message: apiKey }],
          },
        },
      ],
    })
      .pay.getOptions('pay_1')
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'invalid_api_key', shortMessage: 'key [redacted] is invalid' })
    expect(leaks(error)).toBe(false)
  })

  it('not when a 2xx body of the wrong shape carries it (the schema message quotes what it received)', async () => {
    const error = await client({ options: [{ status: 200, body: { options: apiKey } }] })
      .pay.getOptions('pay_1')
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PayProtocolError)
    expect((error as PayError).shortMessage).toContain('[redacted]')
    expect(leaks(error)).toBe(false)
  })

  it('not in anything a 2xx body echoes: option ids, accounts and the reasons built from them', async () => {
    const echoing = usdcOption(apiKey, { account: `eip155:8453:${apiKey}` })
    const options = await client({ options: [{ status: 200, body: optionsBody([echoing]) }] }).pay.getOptions(
      'pay_1',
    )
    expect(options.options[0]).toMatchObject({ id: '[redacted]', available: false })
    expect(JSON.stringify(options)).not.toContain(apiKey)
  })

  it('not in error details, whatever JSON escaping the key would need', async () => {
    const quotedKey = 'svc_test_"quoted"\\key'
    const gateway = scriptedGateway({
      options: [
        {
          status: 400,
          body: { code: 'params_validation', message: 'bad', details: { [quotedKey]: [quotedKey] } },
        },
      ],
    })
    const error = await createPayClient({
      baseUrl: 'https://api.pay.example.com',
      apiKey: quotedKey,
      wallet: fakeWallet().wallet,
      fetch: gateway.fetch,
    })
      .getOptions('pay_1')
      .catch((e: unknown) => e)
    expect((error as PayError).details).toEqual({ '[redacted]': ['[redacted]'] })
  })

  it('not in a network failure, nor in the client object', async () => {
    const gateway = {
      fetch: async () => {
        throw new Error(`connect ECONNREFUSED with header Api-Key: ${apiKey}`)
      },
    }
    const pay = createPayClient({
      baseUrl: 'https://api.pay.example.com',
      apiKey,
      wallet: fakeWallet().wallet,
      fetch: gateway.fetch,
      sleep: async () => {},
    })
    const error = await pay.getOptions('pay_1').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(PayNetworkError)
    expect(leaks(error)).toBe(false)
    expect(leaks((error as Error).cause)).toBe(false)
    expect(inspect(pay, { depth: 10 })).not.toContain(apiKey)
    expect(JSON.stringify(pay)).not.toContain(apiKey)
  })
})
