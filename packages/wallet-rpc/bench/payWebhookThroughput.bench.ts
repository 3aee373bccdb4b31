import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type PaySandbox, startPaySandbox } from '@wallet-rpc/pay-sandbox'
import { createWebhookReceiver, signWebhook, verifyWebhook } from '../src/pay/index.js'
import { median } from './measure.js'

/**
 * 1. Webhook deliveries per second the sandbox sustains to a local receiver: signed (HMAC-SHA256 per attempt),
 *    POSTed over HTTP to createWebhookReceiver behind node:http on 127.0.0.1 (same process, so the figure is for
 *    both sides sharing one core), every one verified and answered 200. In memory, and with `--data` (every
 *    delivery journaled and fsynced when queued and when delivered).
 * 2. The receiver's events per second: `receiver.handle` on pre-signed deliveries (verify, parse, dedupe,
 *    version, fulfil), with the in-memory store; beside verifyWebhook alone, which is most of its cost.
 */

const payments = 500

async function receiverServer() {
  let secret = ''
  let received = 0
  const receiver = createWebhookReceiver({ secrets: () => [secret], mode: 'test', onPayment: () => {} })
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const { status, body } = await receiver.handle({ headers: req.headers, rawBody: Buffer.concat(chunks) })
    if (status === 200) received++
    res.writeHead(status, { 'content-type': 'application/json' }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    setSecret: (value: string) => {
      secret = value
    },
    received: () => received,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** Deliveries per second for `payments` payments × 2 events (processing, succeeded), from queue to all 200. */
async function deliveriesPerSecond(dataDir?: string): Promise<number> {
  const receiver = await receiverServer()
  let sandbox: PaySandbox | undefined
  try {
    sandbox = await startPaySandbox({
      processingMs: null,
      settlementMs: null,
      ...(dataDir === undefined ? {} : { dataDir }),
    })
    const ids: string[] = []
    for (let index = 0; index < payments; index++) {
      const reply = await fetch(`${sandbox.url}/v1/payments`, {
        method: 'POST',
        headers: {
          'api-key': sandbox.apiKey,
          'merchant-id': sandbox.merchantId,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          referenceId: `order-${index}`,
          amount: { unit: 'iso4217/USD', value: '100' },
        }),
      })
      ids.push(((await reply.json()) as { id: string }).id)
    }
    sandbox.webhooks.setEndpoint(receiver.url)
    receiver.setSecret(sandbox.webhooks.secret()!)
    const start = process.hrtime.bigint()
    for (const id of ids) {
      sandbox.control.process(id)
      sandbox.control.succeed(id)
    }
    await sandbox.webhooks.idle()
    const seconds = Number(process.hrtime.bigint() - start) / 1e9
    const delivered = sandbox.webhooks
      .deliveries()
      .filter((delivery) => delivery.state === 'delivered').length
    if (delivered !== payments * 2 || receiver.received() !== payments * 2) {
      throw new Error(
        `expected ${payments * 2} deliveries, got ${delivered} (${receiver.received()} received)`,
      )
    }
    return delivered / seconds
  } finally {
    await sandbox?.stop()
    await receiver.stop()
  }
}

/** `receiver.handle` per second over `count` pre-signed events (4 per payment, every 4th event a duplicate). */
async function receiverEventsPerSecond(count: number): Promise<{ handle: number; verify: number }> {
  const secret = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8='
  const now = Date.UTC(2026, 10, 25)
  const deliveries = []
  for (let index = 0; deliveries.length < count; index++) {
    const paymentId = `pay_${Math.floor(index / 3)}`
    const version = index % 3
    const id = `evt_${index}`
    const body = JSON.stringify({
      id,
      type: version === 2 ? 'payment.succeeded' : 'payment.processing',
      api_version: '2026-02-18',
      data: {
        payment_id: paymentId,
        payment_state_version: version,
        status: version === 2 ? 'succeeded' : 'processing',
        live: false,
        amount: { unit: 'iso4217/USD', value: '1000' },
        fee: null,
        processing: { fee: null },
        failure_reason: null,
        cancellation_reason: null,
      },
    })
    const rawBody = new TextEncoder().encode(body)
    const delivery = { headers: signWebhook(secret, id, now / 1000, rawBody), rawBody }
    deliveries.push(delivery)
    if (version === 2) deliveries.push(delivery)
  }
  const rounds = { handle: [] as number[], verify: [] as number[] }
  for (let round = 0; round < 5; round++) {
    const receiver = createWebhookReceiver({
      secrets: secret,
      mode: 'test',
      clock: () => now,
      onPayment: () => {},
    })
    let start = process.hrtime.bigint()
    for (const delivery of deliveries) {
      if ((await receiver.handle(delivery)).status !== 200) throw new Error('not accepted')
    }
    rounds.handle.push(deliveries.length / (Number(process.hrtime.bigint() - start) / 1e9))
    start = process.hrtime.bigint()
    for (const delivery of deliveries) {
      if (!verifyWebhook(secret, delivery.headers, delivery.rawBody, { now }).ok)
        throw new Error('not verified')
    }
    rounds.verify.push(deliveries.length / (Number(process.hrtime.bigint() - start) / 1e9))
  }
  return { handle: median(rounds.handle), verify: median(rounds.verify) }
}

export async function run(): Promise<void> {
  await deliveriesPerSecond() // warm-up
  const memory = median([
    await deliveriesPerSecond(),
    await deliveriesPerSecond(),
    await deliveriesPerSecond(),
  ])
  const durable: number[] = []
  for (let round = 0; round < 3; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-pay-data-'))
    try {
      durable.push(await deliveriesPerSecond(dir))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  console.log(
    `sandbox → createWebhookReceiver over HTTP (${payments * 2} signed deliveries, median of 3): ` +
      `${memory.toFixed(0)} deliveries/s in memory; ${median(durable).toFixed(0)} deliveries/s with --data (fsync per journal write)`,
  )
  const receiver = await receiverEventsPerSecond(8000)
  console.log(
    `createWebhookReceiver.handle (in-memory store, 1 in 4 a duplicate): ${receiver.handle.toFixed(0)} events/s ` +
      `(${(1e6 / receiver.handle).toFixed(1)} µs/event); verifyWebhook alone ${receiver.verify.toFixed(0)}/s ` +
      `→ handle costs ${(receiver.verify / receiver.handle).toFixed(2)}× the verification`,
  )
}
