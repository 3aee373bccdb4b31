import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createMemoryWebhookStore,
  createWebhookReceiver,
  signWebhook,
  type WebhookPaymentSnapshot,
  type WebhookReceiverStore,
} from '../../src/pay/index.js'

const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`
const newSecret = `whsec_${Buffer.alloc(32, 9).toString('base64')}`
const start = Date.UTC(2026, 10, 25, 3, 0, 0)

type Status = 'requires_action' | 'processing' | 'succeeded' | 'failed'

function event(
  id: string,
  paymentId: string,
  version: number,
  status: Status | string,
  extra: Record<string, unknown> = {},
) {
  return {
    id,
    type: `payment.${status === 'requires_action' ? 'created' : status}`,
    api_version: '2026-02-18',
    data: { payment_id: paymentId, payment_state_version: version, status, live: true, ...extra },
  }
}

function delivery(body: unknown, options: { secrets?: string[]; now?: number; id?: string } = {}) {
  const rawBody = typeof body === 'string' ? body : JSON.stringify(body)
  const id = options.id ?? (body as { id?: string }).id ?? 'msg_1'
  return {
    headers: signWebhook(options.secrets ?? [secret], id, (options.now ?? start) / 1000, rawBody),
    rawBody,
  }
}

function setup(options: { mode?: 'live' | 'test'; store?: WebhookReceiverStore; fail?: number } = {}) {
  let now = start
  let failures = options.fail ?? 0
  const fulfilled: WebhookPaymentSnapshot[] = []
  const receiver = createWebhookReceiver({
    secrets: [secret],
    clock: () => now,
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.store === undefined ? {} : { store: options.store }),
    onPayment: (snapshot) => {
      if (failures > 0) {
        failures--
        throw new Error('warehouse down')
      }
      fulfilled.push(snapshot)
    },
  })
  return {
    receiver,
    fulfilled,
    advance: (ms: number) => {
      now += ms
    },
    send: (body: unknown) => receiver.handle(delivery(body, { now })),
  }
}

describe('createWebhookReceiver', () => {
  it('verifies first: a bad signature, a missing header or an old timestamp is 400 and fulfils nothing', async () => {
    const { receiver, fulfilled } = setup()
    const body = event('evt_1', 'pay_1', 2, 'succeeded')
    const forged = delivery(body, { secrets: [newSecret] })
    expect(await receiver.handle(forged)).toMatchObject({
      status: 400,
      outcome: 'rejected',
      reason: 'no_matching_signature',
    })
    const { 'webhook-signature': _, ...unsigned } = delivery(body).headers
    expect(await receiver.handle({ headers: unsigned, rawBody: JSON.stringify(body) })).toMatchObject({
      status: 400,
      reason: 'missing_headers',
    })
    expect(await receiver.handle(delivery(body, { now: start - 301_000 }))).toMatchObject({
      status: 400,
      reason: 'timestamp_out_of_tolerance',
    })
    // The body is verified byte for byte: re-serialised JSON with the same meaning does not pass.
    const signed = delivery(body)
    const respaced = JSON.stringify(body, null, 1)
    expect(await receiver.handle({ headers: signed.headers, rawBody: respaced })).toMatchObject({
      status: 400,
    })
    expect(fulfilled).toEqual([])
    // The untouched delivery still goes through afterwards: rejections recorded nothing.
    expect(await receiver.handle(signed)).toMatchObject({
      status: 200,
      outcome: 'processed',
      fulfilled: true,
    })
    expect(fulfilled).toHaveLength(1)
  })

  it('fulfils once per payment across duplicates and every event type that says succeeded', async () => {
    const { fulfilled, send } = setup()
    expect(await send(event('evt_0', 'pay_1', 0, 'requires_action'))).toMatchObject({ outcome: 'processed' })
    expect(await send(event('evt_1', 'pay_1', 1, 'processing'))).toMatchObject({ outcome: 'processed' })
    expect(await send(event('evt_2', 'pay_1', 2, 'succeeded'))).toMatchObject({
      status: 200,
      fulfilled: true,
    })
    expect(await send(event('evt_2', 'pay_1', 2, 'succeeded'))).toMatchObject({
      status: 200,
      outcome: 'duplicate',
    })
    const settled = { ...event('evt_3', 'pay_1', 3, 'succeeded'), type: 'payment.settled' }
    expect(await send(settled)).toMatchObject({ status: 200, outcome: 'processed' })
    expect(fulfilled.map((snapshot) => snapshot.payment_state_version)).toEqual([2])
  })

  it('out of order: settled before succeeded fulfils on settled; the late succeeded is stale', async () => {
    const { fulfilled, send } = setup()
    const settled = { ...event('evt_3', 'pay_1', 3, 'succeeded'), type: 'payment.settled' }
    expect(await send(settled)).toMatchObject({ outcome: 'processed', fulfilled: true })
    expect(await send(event('evt_2', 'pay_1', 2, 'succeeded'))).toMatchObject({
      status: 200,
      outcome: 'stale',
    })
    expect(await send(event('evt_0', 'pay_1', 0, 'requires_action'))).toMatchObject({ outcome: 'stale' })
    expect(fulfilled).toHaveLength(1)
    expect(fulfilled[0]).toMatchObject({ payment_state_version: 3, status: 'succeeded' })
  })

  it('version 0 is a version: the first event (version 0) is processed, a repeat of version 0 is stale', async () => {
    const store = createMemoryWebhookStore()
    const { send } = setup({ store })
    expect(store.highestVersion('pay_1')).toBeUndefined()
    expect(await send(event('evt_a', 'pay_1', 0, 'requires_action'))).toMatchObject({ outcome: 'processed' })
    expect(store.highestVersion('pay_1')).toBe(0)
    expect(await send(event('evt_b', 'pay_1', 0, 'requires_action'))).toMatchObject({ outcome: 'stale' })
  })

  it('live mode fulfils only data.live === true; test mode fulfils test payments too', async () => {
    const live = setup()
    await live.send(event('evt_t', 'pay_t', 2, 'succeeded', { live: false }))
    await live.send(event('evt_u', 'pay_u', 2, 'succeeded', { live: 'true' }))
    await live.send(event('evt_v', 'pay_v', 2, 'succeeded', { live: undefined }))
    expect(live.fulfilled).toEqual([])
    const test = setup({ mode: 'test' })
    await test.send(event('evt_t', 'pay_t', 2, 'succeeded', { live: false }))
    expect(test.fulfilled).toMatchObject([{ payment_id: 'pay_t', live: false }])
  })

  it('parses tolerantly: unknown fields, an unknown fee.kind, an unknown event type', async () => {
    const { fulfilled, send } = setup()
    const body = {
      ...event('evt_1', 'pay_1', 2, 'succeeded', {
        fee: { kind: 'flat_per_chain', total_amount: { unit: 'iso4217/USD', value: '3' }, tier: 'gold' },
        processing: { fee: null },
        brand_new_field: [1, 2, 3],
        failure_reason: null,
      }),
      delivered_via: 'pool-7',
    }
    expect(await send(body)).toMatchObject({ status: 200, fulfilled: true })
    expect(fulfilled[0]).toMatchObject({ fee: { kind: 'flat_per_chain' }, brand_new_field: [1, 2, 3] })
    expect(await send({ id: 'evt_x', type: 'refund.created', data: { refund_id: 'rf_1' } })).toMatchObject({
      status: 200,
      outcome: 'processed',
    })
    expect(await send({ id: 'evt_x', type: 'refund.created', data: { refund_id: 'rf_1' } })).toMatchObject({
      outcome: 'duplicate',
    })
    // A status added later is carried, not rejected, and fulfils nothing.
    expect(await send(event('evt_9', 'pay_9', 4, 'partially_refunded'))).toMatchObject({ status: 200 })
    expect(fulfilled).toHaveLength(1)
  })

  it('an authentic body that is not a readable payment event is 400 malformed; the body bytes may be a Uint8Array', async () => {
    const { receiver } = setup()
    const cases = [
      'not json',
      '[1,2]',
      JSON.stringify({ id: 'evt_1', data: { payment_id: 'pay_1', payment_state_version: -1, status: 'x' } }),
      JSON.stringify({ id: 'evt_1', data: { payment_id: 'pay_1', payment_state_version: 1.5, status: 'x' } }),
      JSON.stringify({ id: 'evt_1', data: { payment_id: 'pay_1', payment_state_version: '2', status: 'x' } }),
      JSON.stringify({ id: 'evt_1', data: { payment_id: 7, payment_state_version: 2, status: 'x' } }),
      JSON.stringify({ id: 'evt_1', data: { payment_id: 'pay_1', payment_state_version: 2 } }),
    ]
    for (const body of cases) {
      expect(await receiver.handle(delivery(body, { id: 'msg_1' })), body).toMatchObject({
        status: 400,
        outcome: 'malformed',
      })
    }
    const bytes = new TextEncoder().encode(JSON.stringify(event('evt_b', 'pay_b', 2, 'succeeded')))
    const headers = new Headers(signWebhook([secret], 'evt_b', start / 1000, bytes))
    expect(await receiver.handle({ headers, rawBody: bytes })).toMatchObject({ status: 200, fulfilled: true })
    const invalidUtf8 = new Uint8Array([0x7b, 0xff, 0x7d])
    expect(
      await receiver.handle({
        headers: signWebhook([secret], 'm', start / 1000, invalidUtf8),
        rawBody: invalidUtf8,
      }),
    ).toMatchObject({ status: 400, outcome: 'malformed' })
  })

  it('onPayment throwing answers 500 and releases the event: the retry fulfils, exactly once', async () => {
    const { fulfilled, send } = setup({ fail: 2 })
    const body = event('evt_2', 'pay_1', 2, 'succeeded')
    expect(await send(body)).toMatchObject({ status: 500, outcome: 'error' })
    expect(await send(body)).toMatchObject({ status: 500 })
    expect(await send(body)).toMatchObject({ status: 200, fulfilled: true })
    expect(await send(body)).toMatchObject({ status: 200, outcome: 'duplicate' })
    expect(fulfilled).toHaveLength(1)
  })

  it('concurrent deliveries never fulfil twice: a duplicate in flight is 409, another succeeded event skips', async () => {
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const calls: string[] = []
    const receiver = createWebhookReceiver({
      secrets: secret,
      clock: () => start,
      onPayment: async (snapshot) => {
        calls.push(snapshot.payment_id)
        await gate
      },
    })
    const body = event('evt_2', 'pay_1', 2, 'succeeded')
    const first = receiver.handle(delivery(body))
    const duplicate = await receiver.handle(delivery(body))
    expect(duplicate).toMatchObject({ status: 409, outcome: 'in_progress' })
    const settled = await receiver.handle(
      delivery({ ...event('evt_3', 'pay_1', 3, 'succeeded'), type: 'payment.settled' }),
    )
    expect(settled).toMatchObject({ status: 200, outcome: 'processed' })
    expect(settled.fulfilled).toBeUndefined()
    release()
    expect(await first).toMatchObject({ status: 200, fulfilled: true })
    expect(await receiver.handle(delivery(body))).toMatchObject({ status: 200, outcome: 'duplicate' })
    expect(calls).toEqual(['pay_1'])
  })

  it('a claim whose process died is taken over after its lease; the dead attempt cannot finish it any more', async () => {
    const store = createMemoryWebhookStore()
    let now = start
    const request = {
      eventId: 'evt_2',
      paymentId: 'pay_1',
      version: 2,
      fulfillable: true,
      keepUntil: start + 86_400_000,
    }
    const first = await store.record({ ...request, claimToken: 'a', now, leaseUntil: now + 1000 })
    expect(first).toEqual({ event: 'new', version: 'newer', fulfil: true })
    expect(await store.record({ ...request, claimToken: 'b', now, leaseUntil: now + 1000 })).toMatchObject({
      event: 'in_progress',
      fulfil: false,
    })
    now += 1000
    expect(await store.record({ ...request, claimToken: 'c', now, leaseUntil: now + 1000 })).toMatchObject({
      event: 'duplicate',
      fulfil: true,
    })
    await store.fulfilled('pay_1', { eventId: 'evt_2', token: 'a' })
    expect(store.fulfilment('pay_1')).toBe('claimed')
    await store.release('pay_1', { eventId: 'evt_2', token: 'a' })
    expect(store.fulfilment('pay_1')).toBe('claimed')
    await store.fulfilled('pay_1', { eventId: 'evt_2', token: 'c' })
    expect(store.fulfilment('pay_1')).toBe('done')
  })

  it('a failed write of the fulfilment is tried again: a later event after the lease fulfils nothing twice', async () => {
    const memory = createMemoryWebhookStore()
    let failures = 2
    const flaky: WebhookReceiverStore = {
      record: (request) => memory.record(request),
      fulfilled: async (paymentId, claim) => {
        if (failures-- > 0) throw new Error('connection terminated unexpectedly')
        await memory.fulfilled(paymentId, claim)
      },
      release: (paymentId, claim) => memory.release(paymentId, claim),
    }
    const { fulfilled, send, advance } = setup({ store: flaky })
    expect(await send(event('evt_2', 'pay_1', 2, 'succeeded'))).toMatchObject({
      status: 200,
      fulfilled: true,
    })
    expect(memory.fulfilment('pay_1')).toBe('done')
    advance(10 * 60_000)
    expect(await send(event('evt_3', 'pay_1', 3, 'settled'))).toMatchObject({
      status: 200,
      outcome: 'processed',
    })
    expect(fulfilled).toHaveLength(1)
  })

  it('event ids are forgotten after keepEventDays, and a late redelivery still fulfils nothing twice', async () => {
    const store = createMemoryWebhookStore()
    const { fulfilled, send, advance } = setup({ store })
    const body = event('evt_2', 'pay_1', 2, 'succeeded')
    await send(body)
    expect(store.eventCount()).toBe(1)
    advance(3 * 86_400_000 + 1)
    // A replay (reach 14 days) after the dedupe window: new to the id set, stale by version, already fulfilled.
    expect(await send(body)).toMatchObject({ status: 200, outcome: 'stale' })
    expect(store.eventCount()).toBe(1)
    expect(fulfilled).toHaveLength(1)
  })

  it('secrets as a function: a rotation is picked up on the next delivery; both secrets pass during the overlap', async () => {
    let secrets = [secret]
    const fulfilled: string[] = []
    const receiver = createWebhookReceiver({
      secrets: () => secrets,
      clock: () => start,
      onPayment: (snapshot) => {
        fulfilled.push(snapshot.payment_id)
      },
    })
    const a = event('evt_a', 'pay_a', 2, 'succeeded')
    const b = event('evt_b', 'pay_b', 2, 'succeeded')
    expect(await receiver.handle(delivery(b, { secrets: [newSecret] }))).toMatchObject({ status: 400 })
    secrets = [newSecret, secret]
    expect(await receiver.handle(delivery(a, { secrets: [secret] }))).toMatchObject({ status: 200 })
    expect(await receiver.handle(delivery(b, { secrets: [newSecret] }))).toMatchObject({ status: 200 })
    expect(fulfilled).toEqual(['pay_a', 'pay_b'])
  })

  it('never throws and never answers 2xx when the store or the secrets fail', async () => {
    const failing: WebhookReceiverStore = {
      record: async () => {
        throw new Error('db down')
      },
      fulfilled: async () => undefined,
      release: async () => undefined,
    }
    const calls: unknown[] = []
    const receiver = createWebhookReceiver({
      secrets: secret,
      store: failing,
      clock: () => start,
      onPayment: (snapshot) => {
        calls.push(snapshot)
      },
    })
    expect(await receiver.handle(delivery(event('evt_1', 'pay_1', 2, 'succeeded')))).toMatchObject({
      status: 500,
      outcome: 'error',
    })
    const noSecrets = createWebhookReceiver({
      secrets: () => {
        throw new Error('vault sealed')
      },
      clock: () => start,
      onPayment: () => undefined,
    })
    expect(await noSecrets.handle(delivery(event('evt_1', 'pay_1', 2, 'succeeded')))).toMatchObject({
      status: 500,
    })
    const badSecret = createWebhookReceiver({
      secrets: 'whsec_***',
      clock: () => start,
      onPayment: () => undefined,
    })
    const answer = await badSecret.handle(delivery(event('evt_1', 'pay_1', 2, 'succeeded')))
    expect(answer).toMatchObject({ status: 500 })
    expect(answer.body).not.toContain('whsec')
    expect(calls).toEqual([])
    const weird = createWebhookReceiver({ secrets: secret, clock: () => start, onPayment: () => undefined })
    expect(await weird.handle({ headers: {}, rawBody: '' })).toMatchObject({ status: 400 })
  })

  it('property: any interleaving, duplication and reordering of payments’ events fulfils each succeeded payment exactly once', async () => {
    const lifecycle = (payment: string, outcome: 'succeeded' | 'failed' | 'settled') => {
      const events = [
        event(`${payment}_0`, payment, 0, 'requires_action'),
        event(`${payment}_1`, payment, 1, 'processing'),
        event(`${payment}_2`, payment, 2, outcome === 'failed' ? 'failed' : 'succeeded'),
      ]
      if (outcome === 'settled')
        events.push({ ...event(`${payment}_3`, payment, 3, 'succeeded'), type: 'payment.settled' })
      return events
    }
    const outcomes = fc.array(fc.constantFrom('succeeded' as const, 'failed' as const, 'settled' as const), {
      minLength: 1,
      maxLength: 5,
    })
    await fc.assert(
      fc.asyncProperty(
        outcomes,
        fc.array(fc.nat(), { minLength: 0, maxLength: 30 }),
        fc.boolean(),
        async (kinds, noise, concurrent) => {
          const all = kinds.flatMap((kind, index) => lifecycle(`pay_${index}`, kind))
          // Duplicates (the noise picks which events repeat) and a shuffle driven by the same numbers.
          const stream = [...all, ...noise.map((n) => all[n % all.length]!)]
          for (let index = stream.length - 1; index > 0; index--) {
            const swap = (noise[index % Math.max(noise.length, 1)] ?? index) % (index + 1)
            ;[stream[index], stream[swap]] = [stream[swap]!, stream[index]!]
          }
          const store = createMemoryWebhookStore()
          const { fulfilled, send } = setup({ store })
          const results = concurrent
            ? await Promise.all(stream.map((entry) => send(entry)))
            : await stream.reduce<Promise<unknown[]>>(
                async (done, entry) => [...(await done), await send(entry)],
                Promise.resolve([]),
              )
          expect(results.every((result) => [200, 409].includes((result as { status: number }).status))).toBe(
            true,
          )
          const expected = kinds.flatMap((kind, index) => (kind === 'failed' ? [] : [`pay_${index}`]))
          expect(fulfilled.map((snapshot) => snapshot.payment_id).sort()).toEqual(expected.sort())
          kinds.forEach((kind, index) => {
            expect(store.highestVersion(`pay_${index}`)).toBe(kind === 'settled' ? 3 : 2)
          })
        },
      ),
      { numRuns: 150 },
    )
  })
})

describe('the README adapters', () => {
  it('node:http: raw bytes in, status and body out', async () => {
    const { createServer } = await import('node:http')
    const fulfilled: string[] = []
    const receiver = createWebhookReceiver({
      secrets: [secret],
      clock: () => start,
      onPayment: (payment) => {
        fulfilled.push(payment.payment_id)
      },
    })
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const { status, body } = await receiver.handle({ headers: req.headers, rawBody: Buffer.concat(chunks) })
      res.writeHead(status, { 'content-type': 'application/json' }).end(body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    try {
      const signed = delivery(event('evt_2', 'pay_h', 2, 'succeeded'))
      const post = () =>
        fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: signed.headers, body: signed.rawBody })
      const first = await post()
      expect(first.status).toBe(200)
      expect(await first.json()).toEqual({ received: true })
      expect((await post()).status).toBe(200)
      const forged = await fetch(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        headers: signed.headers,
        body: `${signed.rawBody} `,
      })
      expect(forged.status).toBe(400)
      expect(fulfilled).toEqual(['pay_h'])
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('fetch-style handler (workers, Deno, Bun, Next.js route handlers)', async () => {
    const fulfilled: string[] = []
    const receiver = createWebhookReceiver({
      secrets: [secret],
      clock: () => start,
      onPayment: (payment) => {
        fulfilled.push(payment.payment_id)
      },
    })
    const handler = async (request: Request) => {
      const { status, body } = await receiver.handle({
        headers: request.headers,
        rawBody: new Uint8Array(await request.arrayBuffer()),
      })
      return new Response(body, { status, headers: { 'content-type': 'application/json' } })
    }
    const signed = delivery(event('evt_2', 'pay_f', 2, 'succeeded'))
    const response = await handler(
      new Request('https://merchant.example/webhooks', {
        method: 'POST',
        headers: signed.headers,
        body: signed.rawBody,
      }),
    )
    expect(response.status).toBe(200)
    expect(fulfilled).toEqual(['pay_f'])
  })
})
