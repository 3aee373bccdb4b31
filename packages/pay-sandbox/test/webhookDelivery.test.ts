import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { verifyWebhook } from 'wallet-rpc/pay'
import {
  type PaySandbox,
  retryScheduleMs,
  startPaySandbox,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../src/index.js'
import { api, createPayment, expectError, payByHand } from './helpers.js'

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

async function sandboxWith(options: Parameters<typeof startPaySandbox>[0]): Promise<PaySandbox> {
  const sandbox = await startPaySandbox(options)
  cleanup.push(() => sandbox.stop())
  return sandbox
}

async function receiverFor(
  sandbox: PaySandbox,
  respond?: (attempt: number) => number,
): Promise<WebhookReceiver> {
  const receiver = await startWebhookReceiver({
    secrets: () => sandbox.webhooks.secrets(),
    ...(respond === undefined ? {} : { respond }),
  })
  cleanup.push(() => receiver.stop())
  return receiver
}

type Hit = { headers: IncomingMessage['headers']; body: string }

/** A raw HTTP listener for behaviours the reference receiver does not have (redirects, hanging). */
async function rawListener(
  handler: (request: IncomingMessage, response: ServerResponse, hits: Hit[]) => void,
) {
  const hits: Hit[] = []
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      hits.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') })
      handler(request, response, hits)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  )
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hits }
}

describe('deliveries', () => {
  it('a full payment: every event arrives signed, verified, in a full snapshot envelope; the last is settled', async () => {
    const sandbox = await sandboxWith({ processingMs: 0, settlementMs: 0 })
    const receiver = await receiverFor(sandbox)
    sandbox.webhooks.setEndpoint(receiver.url)
    const id = await createPayment(sandbox, 'hook-1')
    await payByHand(sandbox, id, { maxPollMs: 30_000 })
    await receiver.waitFor((entry) => entry.eventType === 'payment.settled')
    await sandbox.webhooks.idle()
    expect(receiver.received.every((entry) => entry.verified && entry.status === 200)).toBe(true)
    // Deliveries run concurrently, so arrival order is not guaranteed (the spec says so too): compare by version.
    const byVersion = [...receiver.received].sort((a, b) => a.version! - b.version!)
    expect(byVersion.map((entry) => [entry.eventType, entry.version])).toEqual([
      ['payment.created', 0],
      ['payment.processing', 1],
      ['payment.succeeded', 2],
      ['payment.settled', 3],
    ])
    const final = receiver.inbox.snapshot(id)!
    expect(final).toMatchObject({
      payment_id: id,
      payment_state_version: 3,
      status: 'succeeded',
      live: false,
      settlement: { settled: true },
      fee: null,
      processing: { fee: null },
      failure_reason: null,
      cancellation_reason: null,
    })
    const delivery = sandbox.webhooks.deliveries()[0]!
    const envelope = JSON.parse(delivery.body)
    expect(envelope).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'payment.created',
      api_version: '2026-02-18',
      created_at: expect.any(String),
      data: expect.objectContaining({
        payment_id: id,
        payment_state_version: 0,
        live: false,
        expires_at: expect.any(String),
      }),
    })
    expect(delivery.state).toBe('delivered')
  })

  it('a receiver answering 500 twice then 200 gets the event on the third attempt, same webhook-id each time', async () => {
    const sandbox = await sandboxWith({ timeScale: 0.001 })
    const receiver = await receiverFor(sandbox, (attempt) => (attempt <= 2 ? 500 : 200))
    sandbox.webhooks.setEndpoint(receiver.url, ['payment.created'])
    await createPayment(sandbox, 'hook-retry')
    await sandbox.webhooks.idle()
    expect(receiver.received.map((entry) => [entry.status, entry.outcome])).toEqual([
      [500, 'refused'],
      [500, 'refused'],
      [200, 'new'],
    ])
    expect(new Set(receiver.received.map((entry) => entry.webhookId)).size).toBe(1)
    const [delivery] = sandbox.webhooks.deliveries()
    expect(delivery!.state).toBe('delivered')
    expect(delivery!.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 200])
    expect(delivery!.attempts.map((attempt) => attempt.error)).toEqual(['HTTP 500', 'HTTP 500', null])
  })

  it('redirects are not followed: a 302 is a failed attempt and the target never sees the event', async () => {
    const sandbox = await sandboxWith({ timeScale: 0.000001 })
    const target = await rawListener((_request, response) => response.writeHead(200).end())
    const redirecting = await rawListener((_request, response) =>
      response.writeHead(302, { location: target.url }).end(),
    )
    sandbox.webhooks.setEndpoint(redirecting.url, ['payment.created'])
    await createPayment(sandbox, 'hook-redirect')
    await sandbox.webhooks.idle()
    const [delivery] = sandbox.webhooks.deliveries()
    expect(delivery!.state).toBe('failed')
    expect(delivery!.attempts).toHaveLength(retryScheduleMs.length)
    expect(delivery!.attempts.every((attempt) => attempt.status === 302)).toBe(true)
    expect(target.hits).toHaveLength(0)
    expect(redirecting.hits).toHaveLength(retryScheduleMs.length)
  })

  it('a receiver slower than the delivery timeout fails the attempt and the event is retried', async () => {
    const sandbox = await sandboxWith({ timeScale: 0.001, deliveryTimeoutMs: 200 })
    const slow = await rawListener((_request, response, hits) => {
      // First attempt: never answer (the sandbox gives up); second: answer at once.
      if (hits.length > 1) response.writeHead(204).end()
    })
    sandbox.webhooks.setEndpoint(slow.url, ['payment.created'])
    await createPayment(sandbox, 'hook-slow')
    await sandbox.webhooks.idle()
    const [delivery] = sandbox.webhooks.deliveries()
    expect(delivery!.state).toBe('delivered')
    expect(delivery!.attempts.map((attempt) => attempt.status)).toEqual([null, 204])
    expect(delivery!.attempts[0]!.error).toBe('no complete response within 200 ms')
  })

  it('an unreachable endpoint exhausts the 8-attempt schedule (27 h 35 min at scale 1) and is marked failed', async () => {
    expect(retryScheduleMs.reduce((sum, delay) => sum + delay, 0)).toBe(((27 * 60 + 35) * 60 + 5) * 1000)
    const sandbox = await sandboxWith({ timeScale: 0.000001 })
    const closed = await rawListener(() => {})
    await cleanup.pop()!() // close it: connections are now refused
    sandbox.webhooks.setEndpoint(closed.url, ['payment.created'])
    await createPayment(sandbox, 'hook-down')
    await sandbox.webhooks.idle()
    const [delivery] = sandbox.webhooks.deliveries()
    expect(delivery!.state).toBe('failed')
    expect(delivery!.attempts).toHaveLength(8)
    expect(delivery!.attempts.every((attempt) => attempt.status === null && attempt.error !== null)).toBe(
      true,
    )
  })

  it('an endpoint whose deliveries all fail for 5 days (sandbox clock × timeScale) is disabled', async () => {
    let now = Date.UTC(2026, 1, 18)
    const sandbox = await sandboxWith({ clock: () => now, timeScale: 0.000001 })
    const failing = await rawListener((_request, response) => response.writeHead(503).end())
    sandbox.webhooks.setEndpoint(failing.url, ['payment.created'])
    await createPayment(sandbox, 'hook-dis-1')
    await sandbox.webhooks.idle()
    expect(sandbox.webhooks.endpoint()!.disabled).toBe(false)
    now += 5 * 24 * 60 * 60 * 1000 * 0.000001
    await createPayment(sandbox, 'hook-dis-2')
    await sandbox.webhooks.idle()
    expect(sandbox.webhooks.endpoint()!.disabled).toBe(true)
    const hitsWhenDisabled = failing.hits.length
    await createPayment(sandbox, 'hook-dis-3')
    await sandbox.webhooks.idle()
    expect(failing.hits.length).toBe(hitsWhenDisabled)
  })

  it('failed, expired and cancelled payments each deliver their event with the reason in the snapshot', async () => {
    const sandbox = await sandboxWith({})
    const receiver = await receiverFor(sandbox)
    sandbox.webhooks.setEndpoint(receiver.url, ['payment.failed', 'payment.expired', 'payment.cancelled'])
    const failed = await createPayment(sandbox, 'end-failed')
    const expired = await createPayment(sandbox, 'end-expired')
    const cancelled = await createPayment(sandbox, 'end-cancelled')
    sandbox.control.fail(failed, 'insufficient allowance (test)')
    sandbox.control.expire(expired)
    sandbox.control.cancel(cancelled, 'buyer changed their mind')
    await sandbox.webhooks.idle()
    expect(receiver.inbox.snapshot(failed)).toMatchObject({
      status: 'failed',
      payment_state_version: 1,
      failure_reason: 'insufficient allowance (test)',
    })
    expect(receiver.inbox.snapshot(expired)).toMatchObject({ status: 'expired', payment_state_version: 1 })
    expect(receiver.inbox.snapshot(cancelled)).toMatchObject({
      status: 'cancelled',
      cancellation_reason: 'buyer changed their mind',
    })
    expect(receiver.received.map((entry) => entry.eventType).sort()).toEqual([
      'payment.cancelled',
      'payment.expired',
      'payment.failed',
    ])
  })

  it('bulk resend of failed deliveries and replay of never-received events reach a fixed endpoint', async () => {
    const sandbox = await sandboxWith({ timeScale: 0.000001 })
    const call = api(sandbox)
    const early = await createPayment(sandbox, 'before-endpoint') // no endpoint yet: never delivered
    const broken = await rawListener((_request, response) => response.writeHead(503).end())
    sandbox.webhooks.setEndpoint(broken.url, ['payment.created'])
    const later = await createPayment(sandbox, 'while-broken')
    await sandbox.webhooks.idle()
    expect(sandbox.webhooks.deliveries().map((delivery) => delivery.state)).toEqual(['failed'])
    const receiver = await receiverFor(sandbox)
    sandbox.webhooks.setEndpoint(receiver.url, ['payment.created'])
    const since = new Date(Date.now() - 60_000).toISOString()
    const resent = await call('POST', '/v1/webhook-endpoint/deliveries/resend-failed', { body: { since } })
    expect(resent.body).toEqual({ resent: 1 })
    await sandbox.webhooks.idle()
    const replayed = await call('POST', '/v1/webhook-endpoint/replay', { body: { since } })
    expect(replayed.body).toEqual({ replayed: 1 })
    await sandbox.webhooks.idle()
    expect(receiver.inbox.snapshot(later)).toMatchObject({ payment_state_version: 0 })
    expect(receiver.inbox.snapshot(early)).toMatchObject({ payment_state_version: 0 })
    // Nothing is left to replay once everything arrived.
    expect((await call('POST', '/v1/webhook-endpoint/replay', { body: { since } })).body).toEqual({
      replayed: 0,
    })
    const tooOld = new Date(Date.now() - 15 * 24 * 60 * 60 * 1000).toISOString()
    const refused = await call('POST', '/v1/webhook-endpoint/replay', { body: { since: tooOld } })
    expectError(refused, 400, 'params_validation')
    const malformed = await call('POST', '/v1/webhook-endpoint/replay', { body: { since: 'yesterday' } })
    expectError(malformed, 400, 'params_validation')
  })

  it('only subscribed event types are delivered', async () => {
    const sandbox = await sandboxWith({ processingMs: 0, settlementMs: 0 })
    const receiver = await receiverFor(sandbox)
    sandbox.webhooks.setEndpoint(receiver.url, ['payment.succeeded'])
    const id = await createPayment(sandbox, 'hook-filter')
    await payByHand(sandbox, id, { maxPollMs: 30_000 })
    await receiver.waitFor((entry) => entry.eventType === 'payment.succeeded')
    await sandbox.webhooks.idle()
    expect(receiver.received.map((entry) => entry.eventType)).toEqual(['payment.succeeded'])
  })
})

describe('secrets', () => {
  it('after rotation both secrets sign for 24 hours, then only the new one', async () => {
    let now = Date.UTC(2026, 1, 18)
    const sandbox = await sandboxWith({ clock: () => now })
    const hits = await rawListener((_request, response) => response.writeHead(200).end())
    sandbox.webhooks.setEndpoint(hits.url, ['payment.created'])
    const old = sandbox.webhooks.secret()!
    expect(old).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    const rotated = sandbox.webhooks.rotateSecret()
    expect(rotated.secret).not.toBe(old)
    expect(rotated.previousSecretExpiresAt).toBe(new Date(now + 24 * 60 * 60 * 1000).toISOString())
    await createPayment(sandbox, 'rot-1')
    await sandbox.webhooks.idle()
    const during = hits.hits[0]!
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2)
    for (const secret of [old, rotated.secret]) {
      expect(verifyWebhook(secret, during.headers, during.body, { now }).ok).toBe(true)
    }
    now += 24 * 60 * 60 * 1000
    await createPayment(sandbox, 'rot-2')
    await sandbox.webhooks.idle()
    const after = hits.hits[1]!
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1)
    expect(verifyWebhook(old, after.headers, after.body, { now }).ok).toBe(false)
    expect(verifyWebhook(rotated.secret, after.headers, after.body, { now }).ok).toBe(true)
  })

  it('the endpoint API: register (https or loopback http), reveal, rotate, test event, deliveries, resend, delete', async () => {
    const sandbox = await sandboxWith({})
    const call = api(sandbox)
    const receiver = await receiverFor(sandbox)
    const missing = await call('GET', '/v1/webhook-endpoint')
    expectError(missing, 404, 'webhook_endpoint_not_found')
    for (const url of [
      'http://example.com/hook',
      'ftp://127.0.0.1/x',
      'https://user:pw@example.com/h',
      'nope',
    ]) {
      const refused = await call('PUT', '/v1/webhook-endpoint', { body: { url } })
      expectError(refused, 400, 'params_validation', url)
    }
    expect(
      (await call('PUT', '/v1/webhook-endpoint', { body: { url: 'https://merchant.example/hook' } })).status,
    ).toBe(200)
    const registered = await call('PUT', '/v1/webhook-endpoint', {
      body: { url: receiver.url, events: ['payment.succeeded', 'payment.settled'] },
    })
    expect(registered.body).toEqual({
      endpoint: {
        url: receiver.url,
        events: ['payment.succeeded', 'payment.settled'],
        createdAt: expect.any(String),
        disabled: false,
      },
      secret: sandbox.webhooks.secret(),
    })
    expect((await call('GET', '/v1/webhook-endpoint/secret')).body).toEqual({
      secret: sandbox.webhooks.secret(),
    })
    const rotated = await call('POST', '/v1/webhook-endpoint/secret/rotate')
    expect(rotated.body.secret).toBe(sandbox.webhooks.secret())
    const test = await call('POST', '/v1/webhook-endpoint/test', { body: { type: 'payment.succeeded' } })
    expect(test.status).toBe(202)
    expect(test.body.event.data).toMatchObject({ live: false, status: 'succeeded', test_event: true })
    const first = await receiver.waitFor((entry) => entry.eventType === 'payment.succeeded')
    expect(first).toMatchObject({ verified: true, outcome: 'new' })
    await sandbox.webhooks.idle()
    const deliveries = (await call('GET', '/v1/webhook-endpoint/deliveries')).body.data
    expect(deliveries).toHaveLength(1)
    expect(deliveries[0]).toMatchObject({
      id: test.body.deliveryId,
      state: 'delivered',
      eventId: test.body.event.id,
    })
    // A resend is a duplicate for the receiver: acknowledged, not applied twice.
    expect((await call('POST', `/v1/webhook-endpoint/deliveries/${deliveries[0].id}/resend`)).status).toBe(
      202,
    )
    const again = await receiver.waitFor((entry) => entry.outcome === 'duplicate')
    expect(again.status).toBe(200)
    const noDelivery = await call('POST', '/v1/webhook-endpoint/deliveries/msg_nope/resend')
    expectError(noDelivery, 404, 'delivery_not_found')
    const unknownType = await call('POST', '/v1/webhook-endpoint/test', {
      body: { type: 'payment.refunded' },
    })
    expectError(unknownType, 400, 'params_validation')
    expect((await call('DELETE', '/v1/webhook-endpoint')).body).toEqual({ deleted: true })
    expectError(await call('GET', '/v1/webhook-endpoint/secret'), 404, 'webhook_endpoint_not_found')
  })

  it('the reference receiver rejects a delivery signed with a secret it does not know (400)', async () => {
    const sandbox = await sandboxWith({})
    const receiver = await startWebhookReceiver({
      secrets: () => ['whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8='],
    })
    cleanup.push(() => receiver.stop())
    sandbox.webhooks.setEndpoint(receiver.url, ['payment.created'])
    await createPayment(sandbox, 'wrong-secret')
    const entry = await receiver.waitFor(() => true)
    expect(entry).toMatchObject({
      status: 400,
      verified: false,
      failure: 'no_matching_signature',
      outcome: 'rejected',
    })
  })
})
