import { afterEach, describe, expect, it } from 'vitest'
import { createWebhookReceiver, verifyWebhook } from 'wallet-rpc/pay'
import { type FaultPlan, type PaySandbox, startPaySandbox } from '../src/index.js'
import { createPayment, serveWebhooks } from './helpers.js'

/**
 * The proof of issue 16 item 3: the fault mode (duplicates, reordering, late answers that are retried, a secret
 * rotated mid-stream) against `createWebhookReceiver` fulfils every succeeded payment exactly once; the same run
 * against a naive receiver (fulfil on every verified payment.succeeded) fulfils some payment twice.
 */

const cleanup: Array<() => Promise<void>> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

type Arrival = { eventId: string; type: string; paymentId: string; version: number; status: number }
type Handler = (headers: Record<string, string | string[] | undefined>, rawBody: Buffer) => Promise<number>

/** A merchant endpoint on 127.0.0.1 around `handler`, recording every arrival in order. */
async function endpoint(handler: Handler) {
  const arrivals: Arrival[] = []
  const { url, close } = await serveWebhooks(async (headers, rawBody) => {
    const status = await handler(headers, rawBody)
    const event = JSON.parse(rawBody.toString('utf8'))
    arrivals.push({
      eventId: event.id,
      type: event.type,
      paymentId: event.data.payment_id,
      version: event.data.payment_state_version,
      status,
    })
    return { status }
  })
  cleanup.push(close)
  return { url, arrivals }
}

const plan: FaultPlan = {
  seed: 16,
  duplicateRate: 0.4,
  reorderWindowMs: 60,
  lateRate: 0.25,
  rotateEvery: 5,
}

/**
 * Twelve payments through their lifecycles (three of every four succeed and settle, the fourth fails), events
 * emitted in bursts so the reorder window mixes them; resolves once every delivery is delivered or failed.
 */
async function run(receiver: (sandbox: () => PaySandbox, secret: () => string) => Handler) {
  let sandbox: PaySandbox | undefined
  let firstSecret = ''
  const { url, arrivals } = await endpoint(
    receiver(
      () => sandbox!,
      () => firstSecret,
    ),
  )
  sandbox = await startPaySandbox({
    webhookUrl: url,
    faults: plan,
    timeScale: 0.0001,
    processingMs: null,
    settlementMs: null,
  })
  cleanup.push(() => sandbox!.stop())
  firstSecret = sandbox.webhooks.secret()!
  const succeeded: string[] = []
  const failed: string[] = []
  for (let index = 0; index < 12; index++) {
    const id = await createPayment(sandbox, `order-${index}`)
    sandbox.control.process(id)
    if (index % 4 === 3) {
      sandbox.control.fail(id, 'declined')
      failed.push(id)
    } else {
      sandbox.control.succeed(id)
      sandbox.control.settle(id)
      succeeded.push(id)
    }
  }
  await sandbox.webhooks.idle()
  return { sandbox, arrivals, succeeded, failed, firstSecret }
}

function count(list: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const id of list) counts.set(id, (counts.get(id) ?? 0) + 1)
  return counts
}

describe('fault mode against receivers', () => {
  it('createWebhookReceiver fulfils every succeeded payment exactly once across duplicates, reordering, late answers and rotation', async () => {
    const fulfilled: string[] = []
    const outcomes: string[] = []
    const warehouseDownOnce = new Set<string>()
    const firstTries = new Set<string>()
    const { sandbox, arrivals, succeeded, failed, firstSecret } = await run((_sandbox, secret) => {
      // The merchant knows only the secret it was given at the start: the rotation's overlap must carry it.
      const receiver = createWebhookReceiver({
        secrets: () => [secret()],
        mode: 'test',
        onPayment: (payment) => {
          // The merchant's own side fails once for every other payment: 500, and the sandbox's retry fulfils.
          const id = payment.payment_id
          if (!firstTries.has(id) && firstTries.add(id).size % 2 === 1) {
            warehouseDownOnce.add(id)
            throw new Error('warehouse down')
          }
          fulfilled.push(id)
        },
      })
      return async (headers, rawBody) => {
        const result = await receiver.handle({ headers, rawBody })
        outcomes.push(result.outcome)
        return result.status
      }
    })
    // The faults really happened.
    const kinds = new Set(sandbox.faults.log().map((record) => record.kind))
    expect([...kinds].sort()).toEqual(['delay', 'duplicate', 'late', 'rotate'])
    expect(sandbox.webhooks.secrets()).not.toEqual([firstSecret])
    expect(sandbox.webhooks.secrets()).toContain(firstSecret)
    expect(outcomes).toContain('duplicate')
    expect(warehouseDownOnce.size).toBe(Math.ceil(succeeded.length / 2))
    expect(outcomes.filter((outcome) => outcome === 'error')).toHaveLength(warehouseDownOnce.size)
    expect(outcomes).toContain('stale')
    // Reordered: some payment had an event arrive after one with a higher version.
    const inversions = arrivals.filter((arrival, index) =>
      arrivals
        .slice(0, index)
        .some((earlier) => earlier.paymentId === arrival.paymentId && earlier.version > arrival.version),
    )
    expect(inversions.length).toBeGreaterThan(0)
    // Retried: some event arrived more than once.
    expect(new Set(arrivals.map((arrival) => arrival.eventId)).size).toBeLessThan(arrivals.length)
    // Every event reached the receiver and was acknowledged.
    const events = sandbox.control.events()
    const acknowledged = new Set(arrivals.filter((arrival) => arrival.status === 200).map((a) => a.eventId))
    expect(events.every((event) => acknowledged.has(event.id))).toBe(true)
    // The proof: exactly once for each succeeded payment, never for a failed one.
    expect([...count(fulfilled).entries()].sort()).toEqual(succeeded.map((id) => [id, 1]).sort())
    expect(fulfilled.filter((id) => failed.includes(id))).toEqual([])
  })

  it('the same faults make a naive receiver (fulfil on every verified payment.succeeded) fulfil twice', async () => {
    const fulfilled: string[] = []
    const { succeeded } = await run((_sandbox, secret) => async (headers, rawBody) => {
      if (!verifyWebhook([secret()], headers, rawBody).ok) return 400
      const event = JSON.parse(rawBody.toString('utf8'))
      if (event.type === 'payment.succeeded') fulfilled.push(event.data.payment_id)
      return 200
    })
    const counts = count(fulfilled)
    const twice = [...counts.entries()].filter(([, times]) => times > 1)
    expect(twice.length).toBeGreaterThan(0)
    expect(fulfilled.length).toBeGreaterThan(succeeded.length)
  })

  it('the fault decisions replay with the seed: two runs inject the same duplicates, delays and late answers', async () => {
    const logs: string[][] = []
    for (let round = 0; round < 2; round++) {
      const { sandbox } = await run((_sandbox, secret) => {
        const receiver = createWebhookReceiver({
          secrets: () => [secret()],
          mode: 'test',
          onPayment: () => {},
        })
        return async (headers, rawBody) => (await receiver.handle({ headers, rawBody })).status
      })
      logs.push(
        sandbox.faults
          .log()
          .filter((record) => record.kind !== 'rotate')
          .map((record) => `${record.kind} ${record.target} ${record.detail}`)
          .sort(),
      )
    }
    expect(logs[0]).toEqual(logs[1])
    expect(logs[0]!.length).toBeGreaterThan(10)
  })
})
