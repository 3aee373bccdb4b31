import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaySandbox, startPaySandbox } from '../src/index.js'
import { api, expectError, usd } from './helpers.js'

let sandbox: PaySandbox
let call: ReturnType<typeof api>

beforeAll(async () => {
  sandbox = await startPaySandbox({ checkoutUrl: 'https://pay.sandbox.test', pollInMs: 750 })
  call = api(sandbox, { 'merchant-id': sandbox.merchantId })
})
afterAll(() => sandbox.stop())

describe('POST /v1/payments', () => {
  it('returns a pay_ id and the buyer link on the checkout host', async () => {
    const reply = await call('POST', '/v1/payments', {
      body: { referenceId: 'order-42', amount: usd('1250') },
    })
    expect(reply.status).toBe(201)
    expect(reply.body).toEqual({
      id: expect.stringMatching(/^pay_[A-Za-z0-9]{24}$/),
      paymentLink: `https://pay.sandbox.test/${reply.body.id}`,
      status: 'requires_action',
      amount: usd('1250'),
      referenceId: 'order-42',
      expiresAt: expect.any(Number),
      isFinal: false,
      pollInMs: 750,
    })
  })

  it('Merchant-Id: missing is 400 params_validation, unknown is 404 merchant_not_found', async () => {
    const body = { referenceId: 'o', amount: usd('1') }
    const missing = await call('POST', '/v1/payments', { body, headers: { 'merchant-id': undefined } })
    expectError(missing, 400, 'params_validation')
    expect(missing.body.issues).toEqual([{ field: 'Merchant-Id', message: 'required' }])
    const unknown = await call('POST', '/v1/payments', { body, headers: { 'merchant-id': 'mrch_nobody' } })
    expectError(unknown, 404, 'merchant_not_found')
  })

  it('refuses malformed amounts and references with 400 params_validation naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ referenceId: 'o', amount: { unit: 'USD', value: '1' } }, 'amount.unit'],
      [{ referenceId: 'o', amount: { unit: 'iso4217/usd', value: '1' } }, 'amount.unit'],
      [{ referenceId: 'o', amount: { unit: 'iso4217/USD', value: 12 } }, 'amount.value'],
      [{ referenceId: 'o', amount: { unit: 'iso4217/USD', value: '0' } }, 'amount.value'],
      [{ referenceId: 'o', amount: { unit: 'iso4217/USD', value: '1.5' } }, 'amount.value'],
      [{ referenceId: 'o', amount: { unit: 'iso4217/XXX', value: '1' } }, 'amount.unit'],
      [{ referenceId: '', amount: usd('1') }, 'referenceId'],
      [{ amount: usd('1') }, 'referenceId'],
    ]
    for (const [body, field] of cases) {
      const reply = await call('POST', '/v1/payments', { body })
      expectError(reply, 400, 'params_validation', JSON.stringify(body))
      expect(reply.body.issues.map((issue: { field: string }) => issue.field)).toContain(field)
    }
  })
})

describe('GET /v1/payments/{id}/status', () => {
  it('not final: pollInMs set, txId test:<id>; final: pollInMs null', async () => {
    const { body } = await call('POST', '/v1/payments', {
      body: { referenceId: 'order-s', amount: usd('999') },
    })
    const open = await call('GET', `/v1/payments/${body.id}/status`)
    expect(open.status).toBe(200)
    expect(open.body).toEqual({
      status: 'requires_action',
      isFinal: false,
      pollInMs: 750,
      info: { txId: `test:${body.id}`, optionAmount: null },
    })
    sandbox.control.cancel(body.id)
    const closed = await call('GET', `/v1/payments/${body.id}/status`)
    expect(closed.body).toMatchObject({ status: 'cancelled', isFinal: true, pollInMs: null })
  })

  it('unknown id and another merchant’s payment are 404 payment_not_found', async () => {
    const unknown = await call('GET', '/v1/payments/pay_unknown/status')
    expectError(unknown, 404, 'payment_not_found')
    const other = await call('POST', '/v1/merchants', {
      headers: { 'idempotency-key': randomUUID() },
      body: { merchantName: 'Other', merchantEmail: 'other@example.com' },
    })
    const { body } = await call('POST', '/v1/payments', { body: { referenceId: 'mine', amount: usd('5') } })
    const foreign = await call('GET', `/v1/payments/${body.id}/status`, {
      headers: { 'merchant-id': other.body.merchant.id },
    })
    expectError(foreign, 404, 'payment_not_found')
  })

  it('requires Merchant-Id', async () => {
    const { body } = await call('POST', '/v1/payments', { body: { referenceId: 'x', amount: usd('5') } })
    const reply = await call('GET', `/v1/payments/${body.id}/status`, {
      headers: { 'merchant-id': undefined },
    })
    expectError(reply, 400, 'params_validation')
  })
})

describe('merchant checkout API', () => {
  it('creates a pending payment with a gateway URL and Unix-seconds expiry', async () => {
    const reply = await call('POST', '/v1/merchant/payment', {
      body: {
        referenceId: 'chk-1',
        amount: { unit: 'iso4217/EUR', value: '500' },
        checkout: { successUrl: 'https://shop.example/ok', errorUrl: 'https://shop.example/error' },
      },
    })
    expect(reply.status).toBe(201)
    expect(reply.body).toEqual({
      paymentId: expect.stringMatching(/^pay_/),
      // The checkout page the sandbox serves itself (no portalUrl given: its own URL).
      gatewayUrl: `${sandbox.url}/${reply.body.paymentId}`,
      status: 'pending',
      expiresAt: expect.any(Number),
      isFinal: false,
      pollInMs: 750,
    })
    expect(reply.body.expiresAt).toBeLessThan(10_000_000_000)
    expect(sandbox.control.payment(reply.body.paymentId).checkout).toEqual({
      successUrl: 'https://shop.example/ok',
      errorUrl: 'https://shop.example/error',
    })
    const status = await call('GET', `/v1/merchant/payment/${reply.body.paymentId}/status`)
    expect(status.body).toEqual({ status: 'pending', isFinal: false })
  })

  it('checkout redirects are honoured only when both URLs are valid HTTPS', async () => {
    const variants = [
      { successUrl: 'https://shop.example/ok' },
      { successUrl: 'http://shop.example/ok', errorUrl: 'https://shop.example/error' },
      { successUrl: 'https://shop.example/ok', errorUrl: 'not a url' },
      { successUrl: 'https://user:pw@shop.example/ok', errorUrl: 'https://shop.example/error' },
    ]
    for (const checkout of variants) {
      const reply = await call('POST', '/v1/merchant/payment', {
        body: { referenceId: 'chk-2', amount: usd('100'), checkout },
      })
      expect(reply.status).toBe(201)
      expect(sandbox.control.payment(reply.body.paymentId).checkout).toBeNull()
    }
  })

  it('an unknown Merchant-Id is 404; a bad body is 400; a bad key is 401', async () => {
    const body = { referenceId: 'chk-3', amount: usd('100') }
    const unknown = await call('POST', '/v1/merchant/payment', {
      body,
      headers: { 'merchant-id': 'mrch_none' },
    })
    expectError(unknown, 404, 'merchant_not_found')
    const bad = await call('POST', '/v1/merchant/payment', { body: { referenceId: 'chk-3' } })
    expectError(bad, 400, 'params_validation')
    const key = await call('POST', '/v1/merchant/payment', {
      body,
      headers: { 'api-key': 'svc_test_wrongwrongwrong' },
    })
    expectError(key, 401, 'invalid_api_key')
  })

  it('status vocabulary: succeeded stays, cancelled shows as failed', async () => {
    const first = await call('POST', '/v1/merchant/payment', {
      body: { referenceId: 'chk-4', amount: usd('100') },
    })
    sandbox.control.succeed(first.body.paymentId)
    expect((await call('GET', `/v1/merchant/payment/${first.body.paymentId}/status`)).body).toEqual({
      status: 'succeeded',
      isFinal: true,
    })
    const second = await call('POST', '/v1/merchant/payment', {
      body: { referenceId: 'chk-5', amount: usd('100') },
    })
    sandbox.control.cancel(second.body.paymentId)
    expect((await call('GET', `/v1/merchant/payment/${second.body.paymentId}/status`)).body).toEqual({
      status: 'failed',
      isFinal: true,
    })
  })
})

describe('lifecycle and test controls', () => {
  it('forbidden transitions are 409 invalid_transition, also over HTTP', async () => {
    const { body } = await call('POST', '/v1/payments', { body: { referenceId: 'ctl', amount: usd('100') } })
    sandbox.control.fail(body.id, 'card declined in test')
    expect(() => sandbox.control.succeed(body.id)).toThrow(/cannot become succeeded/)
    const reply = await call('POST', `/_sandbox/payments/${body.id}/expire`)
    expectError(reply, 409, 'invalid_transition')
    expect(sandbox.control.payment(body.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'card declined in test',
    })
  })

  it('a payment expires once its window closes (clock-driven, checked on access)', async () => {
    let now = Date.UTC(2026, 1, 18, 12)
    const timed = await startPaySandbox({ clock: () => now, paymentTtlMs: 60_000 })
    try {
      const timedCall = api(timed, { 'merchant-id': timed.merchantId })
      const { body } = await timedCall('POST', '/v1/payments', {
        body: { referenceId: 'ttl', amount: usd('100') },
      })
      now += 59_999
      expect((await timedCall('GET', `/v1/payments/${body.id}/status`)).body.status).toBe('requires_action')
      now += 1
      expect((await timedCall('GET', `/v1/payments/${body.id}/status`)).body).toMatchObject({
        status: 'expired',
        isFinal: true,
      })
      const types = timed.control.events().map((event) => event.type)
      expect(types).toEqual(['payment.created', 'payment.expired'])
    } finally {
      await timed.stop()
    }
  })

  it('HTTP controls drive the same transitions: process, succeed, settle', async () => {
    const local = await startPaySandbox({ settlementMs: null })
    try {
      const localCall = api(local, { 'merchant-id': local.merchantId })
      const { body } = await localCall('POST', '/v1/payments', {
        body: { referenceId: 'http', amount: usd('100') },
      })
      for (const action of ['process', 'succeed', 'settle']) {
        expect((await localCall('POST', `/_sandbox/payments/${body.id}/${action}`)).status).toBe(200)
      }
      const snapshot = (await localCall('GET', `/_sandbox/payments/${body.id}`)).body.payment
      expect(snapshot).toMatchObject({
        status: 'succeeded',
        payment_state_version: 3,
        settlement: { settled: true },
      })
      expectError(await localCall('POST', `/_sandbox/payments/${body.id}/teleport`), 404, 'not_found')
      const events = (await localCall('GET', '/_sandbox/events')).body.data
      expect(events.map((event: { type: string }) => event.type)).toEqual([
        'payment.created',
        'payment.processing',
        'payment.succeeded',
        'payment.settled',
      ])
    } finally {
      await local.stop()
    }
  })
})
