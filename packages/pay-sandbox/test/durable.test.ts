import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createWebhookReceiver } from 'wallet-rpc/pay'
import { startPaySandbox } from '../src/index.js'
import { Journal } from '../src/journal.js'
import { api, createPayment, serveWebhooks, spawnPaySandboxCli, usd } from './helpers.js'

/**
 * Issue 16 item 4: the sandbox on `--data DIR` is killed with SIGKILL in the middle of a burst of payments and
 * deliveries, restarted on the same directory, and nothing acknowledged is lost: every event is still delivered
 * at least once, every idempotent replay returns the original object, no payment changes state twice.
 */

const cleanup: Array<() => void | Promise<void>> = []
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pay-sandbox-data-'))
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

type Started = { child: ChildProcess; url: string; apiKey: string; merchantId: string; output: () => string }

/** Runs the real CLI (`wallet-rpc pay-sandbox`) in its own process, through tsx, and waits for its banner. */
async function startCli(args: string[]): Promise<Started> {
  const { child, output } = await spawnPaySandboxCli(args)
  cleanup.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  })
  return {
    child,
    url: /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())![1]!,
    apiKey: /Api-Key:\s+(svc_test_\S+)/.exec(output())![1]!,
    merchantId: /Merchant-Id:\s+(mrch_\S+)/.exec(output())![1]!,
    output,
  }
}

type Seen = { id: string; type: string; paymentId: string; version: number; status: string }

/** The merchant: createWebhookReceiver behind node:http, recording every verified event it was sent. */
async function merchantEndpoint(secret: () => string) {
  const seen: Seen[] = []
  const fulfilled: string[] = []
  // While held, requests wait unanswered (and unprocessed): the deliveries in flight when the sandbox dies.
  let held: Promise<void> | undefined
  let release = () => {}
  const receiver = createWebhookReceiver({
    secrets: () => [secret()],
    mode: 'test',
    onPayment: (payment) => {
      fulfilled.push(payment.payment_id)
    },
  })
  const { url, close } = await serveWebhooks(async (headers, rawBody) => {
    if (held !== undefined) await held
    const result = await receiver.handle({ headers, rawBody })
    if (result.status === 200) {
      const event = JSON.parse(rawBody.toString('utf8'))
      seen.push({
        id: event.id,
        type: event.type,
        paymentId: event.data.payment_id,
        version: event.data.payment_state_version,
        status: event.data.status,
      })
    }
    return result
  })
  cleanup.push(close)
  return {
    url,
    seen,
    fulfilled,
    hold: () => {
      held = new Promise((resolve) => {
        release = resolve
      })
    },
    release: () => {
      held = undefined
      release()
    },
  }
}

async function call(
  started: Pick<Started, 'url' | 'apiKey' | 'merchantId'>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${started.url}${path}`, {
    method,
    headers: {
      'api-key': started.apiKey,
      'merchant-id': started.merchantId,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? null : JSON.parse(text), headers: response.headers }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('durable state (--data DIR)', () => {
  it('kill -9 mid-burst, restart on the same directory: nothing acknowledged is lost, nothing happens twice', async () => {
    const dir = tempDir()
    let secret = ''
    const merchant = await merchantEndpoint(() => secret)
    const first = await startCli(['--data', dir, '--webhook-url', merchant.url, '--time-scale', '0.001'])
    expect(first.output()).toContain(`state:        ${dir} (fsynced journal), new`)
    secret = (await call(first, 'GET', '/v1/webhook-endpoint/secret')).body.secret

    // The burst: four workers, each creating payments and driving them, and merchants with Idempotency-Keys.
    const acknowledged = new Map<string, number>() // payment id → highest state version a reply confirmed
    const merchants = new Map<string, unknown>() // idempotency key → the created merchant (201 body)
    let operations = 0
    let stopBurst = false
    const worker = async (workerIndex: number) => {
      for (let index = 0; !stopBurst; index++) {
        try {
          const key = `key-${workerIndex}-${index}`
          const created = await call(
            first,
            'POST',
            '/v1/merchants',
            { merchantName: `M ${key}`, merchantEmail: 'm@example.com' },
            { 'idempotency-key': key },
          )
          if (created.status === 201) merchants.set(key, created.body)
          const payment = await call(first, 'POST', '/v1/payments', {
            referenceId: `order-${key}`,
            amount: usd('500'),
          })
          if (payment.status !== 201) continue
          const id = payment.body.id as string
          acknowledged.set(id, 0)
          for (const [action, version] of [
            ['process', 1],
            [index % 3 === 2 ? 'fail' : 'succeed', 2],
          ] as const) {
            const reply = await call(first, 'POST', `/_sandbox/payments/${id}/${action}`)
            if (reply.status === 200) acknowledged.set(id, version)
          }
          operations++
        } catch {
          return // the process is gone
        }
      }
    }
    const workers = [0, 1, 2, 3].map(worker)
    const burstDeadline = Date.now() + 60_000
    let holding = false
    while (operations < 40) {
      if (operations >= 30 && !holding) {
        merchant.hold()
        holding = true
      }
      if (Date.now() > burstDeadline) throw new Error(`burst stuck at ${operations}: ${first.output()}`)
      await sleep(5)
    }
    const exited = new Promise((resolve) => first.child.once('exit', resolve))
    first.child.kill('SIGKILL')
    stopBurst = true
    await Promise.all(workers)
    await exited
    // The held requests now reach the merchant, whose answers go nowhere: the sandbox must send them again.
    merchant.release()
    const seenBeforeRestart = merchant.seen.length

    // Restart on the same directory, without --webhook-url: the endpoint, its secret and the keys come back.
    const second = await startCli(['--data', dir, '--time-scale', '0.001'])
    expect(second.apiKey).toBe(first.apiKey)
    expect(second.merchantId).toBe(first.merchantId)
    const banner = /restored (\d+) payments, (\d+) events, (\d+) pending deliveries/.exec(second.output())
    // Deliveries were cut off by the kill: they are what the restart must send again.
    expect(Number(banner?.[3])).toBeGreaterThan(0)
    expect((await call(second, 'GET', '/v1/webhook-endpoint/secret')).body.secret).toBe(secret)

    // Let the restored timers (settlement follows success after 1 s) and the deliveries finish: quiet for 2 polls.
    const settleDeadline = Date.now() + 60_000
    for (let quiet = 0, lastCount = -1; quiet < 2; ) {
      if (Date.now() > settleDeadline) throw new Error(`never quiet: ${second.output()}`)
      const deliveries = (await call(second, 'GET', '/v1/webhook-endpoint/deliveries')).body.data as Array<{
        state: string
      }>
      const count = (await call(second, 'GET', '/_sandbox/events')).body.data.length as number
      const busy = deliveries.some((delivery) => delivery.state === 'pending') || count !== lastCount
      quiet = busy ? 0 : quiet + 1
      lastCount = count
      await sleep(1200)
    }

    const events = (await call(second, 'GET', '/_sandbox/events')).body.data as Array<{
      id: string
      type: string
      data: { payment_id: string; payment_state_version: number; status: string }
    }>
    const eventIds = new Set(events.map((event) => event.id))
    const seenIds = new Set(merchant.seen.map((entry) => entry.id))
    // 1. Every event the sandbox knows reached the merchant at least once (acknowledged 2xx) …
    expect(events.filter((event) => !seenIds.has(event.id))).toEqual([])
    // … and every event the merchant was ever sent, before the crash too, is one the sandbox still knows.
    expect(merchant.seen.filter((entry) => !eventIds.has(entry.id))).toEqual([])
    expect(seenBeforeRestart).toBeGreaterThan(0)

    // 2. No payment changes state twice: one event per (payment, version), versions 0..n without gaps.
    const byPayment = new Map<string, Seen[]>()
    for (const entry of new Map(merchant.seen.map((entry) => [entry.id, entry])).values()) {
      byPayment.set(entry.paymentId, [...(byPayment.get(entry.paymentId) ?? []), entry])
    }
    for (const [paymentId, list] of byPayment) {
      const versions = list.map((entry) => entry.version).sort((a, b) => a - b)
      expect(versions, paymentId).toEqual(versions.map((_, index) => index))
    }

    // 3. Every acknowledged payment exists, at least as far along as its last acknowledged reply.
    for (const [id, version] of acknowledged) {
      const payment = (await call(second, 'GET', `/_sandbox/payments/${id}`)).body.payment
      expect(payment?.payment_state_version, id).toBeGreaterThanOrEqual(version)
    }
    expect(acknowledged.size).toBeGreaterThan(10)

    // 4. Every idempotent replay returns the original object.
    for (const [key, original] of merchants) {
      const replay = await call(
        second,
        'POST',
        '/v1/merchants',
        { merchantName: `M ${key}`, merchantEmail: 'm@example.com' },
        { 'idempotency-key': key },
      )
      expect(
        { status: replay.status, body: replay.body, replayed: replay.headers.get('idempotent-replayed') },
        key,
      ).toEqual({ status: 201, body: original, replayed: 'true' })
    }
    expect(merchants.size).toBeGreaterThan(10)

    // 5. And the merchant fulfilled each succeeded payment once.
    const succeeded = events
      .filter((event) => event.type === 'payment.succeeded')
      .map((event) => event.data.payment_id)
    expect([...merchant.fulfilled].sort()).toEqual([...new Set(succeeded)].sort())
    second.child.kill('SIGTERM')
  }, 120_000)

  it('without --data the state is in memory, and the banner says so', async () => {
    const started = await startCli([])
    expect(started.output()).toContain('state:        in memory only: lost when this process ends')
    started.child.kill('SIGTERM')
  }, 30_000)

  it('in process: a restart on the same dir keeps payments, events, idempotency keys and the webhook endpoint', async () => {
    const dir = tempDir()
    const one = await startPaySandbox({ dataDir: dir, processingMs: null, settlementMs: null })
    const id = await createPayment(one)
    one.control.process(id)
    const settlement = await api(one)('POST', `/v1/merchants/${one.merchantId}/settlements/crypto`, {
      body: {
        settlements: [
          {
            asset: 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
            destination: 'eip155:8453:0x1111111111111111111111111111111111111111',
          },
        ],
      },
      headers: { 'idempotency-key': 'stl-1' },
    })
    expect(settlement.status).toBe(201)
    one.webhooks.setEndpoint('http://127.0.0.1:9/hooks')
    const secret = one.webhooks.secret()
    await one.stop()
    const two = await startPaySandbox({ dataDir: dir, processingMs: null, settlementMs: null })
    cleanup.push(() => two.stop())
    expect(two.restored).toMatchObject({ payments: 1, events: 2, tornTail: false })
    expect(two.control.payment(id)).toMatchObject({ status: 'processing', payment_state_version: 1 })
    expect(two.webhooks.secret()).toBe(secret)
    const replay = await api(two)('POST', `/v1/merchants/${two.merchantId}/settlements/crypto`, {
      body: {
        settlements: [
          {
            asset: 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
            destination: 'eip155:8453:0x1111111111111111111111111111111111111111',
          },
        ],
      },
      headers: { 'idempotency-key': 'stl-1' },
    })
    expect(replay.body).toEqual(settlement.body)
    // The settlement configuration itself survived too (a second key for the same asset conflicts).
    const again = await api(two)('POST', `/v1/merchants/${two.merchantId}/settlements/crypto`, {
      body: {
        settlements: [
          {
            asset: 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
            destination: 'eip155:8453:0x1111111111111111111111111111111111111111',
          },
        ],
      },
    })
    expect(again.body.code).toBe('settlement_asset_conflict')
    two.control.succeed(id)
    expect(two.control.events().map((event) => event.type)).toEqual([
      'payment.created',
      'payment.processing',
      'payment.succeeded',
    ])
  })

  it('an event journaled without its delivery record (killed between the two writes) is delivered after the restart', async () => {
    const dir = tempDir()
    let secret = ''
    const merchant = await merchantEndpoint(() => secret)
    const one = await startPaySandbox({ dataDir: dir, processingMs: null, settlementMs: null })
    const id = await createPayment(one)
    await one.stop()
    // Now the endpoint: the payment's event predates it and is not for it; the next one is, but its delivery
    // record is cut off, as a kill between the event's write and the delivery's write leaves the journal.
    const path = join(dir, 'journal.jsonl')
    const two = await startPaySandbox({
      dataDir: dir,
      processingMs: null,
      settlementMs: null,
      webhookUrl: merchant.url,
    })
    secret = two.webhooks.secret()!
    merchant.hold()
    two.control.process(id)
    await two.stop()
    const lines = readFileSync(path, 'utf8').split('\n')
    writeFileSync(path, lines.filter((line) => !line.includes('"k":"delivery"')).join('\n'))
    merchant.release()
    const three = await startPaySandbox({ dataDir: dir, processingMs: null, settlementMs: null })
    cleanup.push(() => three.stop())
    expect(three.webhooks.secret()).toBe(secret)
    const deliveries = three.webhooks.deliveries()
    expect(deliveries.map((delivery) => delivery.eventType)).toEqual(['payment.processing'])
    await three.webhooks.idle()
    expect(three.webhooks.deliveries()[0]!.state).toBe('delivered')
  })

  it('the journal drops a torn last line, refuses a corrupt line elsewhere, and round-trips bigints and Maps', () => {
    const dir = tempDir()
    const { journal } = Journal.open(dir)
    const payment = {
      id: 'pay_1',
      routes: new Map([
        [
          'opt_1',
          { tokenValue: 12345678901234567890n, payer: new Uint8Array([1, 2, 255]), raw: Buffer.from([7]) },
        ],
      ]),
    }
    journal.append(
      { k: 'payment', v: payment as never },
      { k: 'identity', v: { apiKey: 'svc_test_x', appId: 'a', merchantId: 'm' } },
    )
    journal.close()
    const path = join(dir, 'journal.jsonl')
    writeFileSync(path, `${readFileSync(path, 'utf8')}deadbeef {"k":"identity","v":{"apiKey":"svc_test_y"`)
    const reopened = Journal.open(dir)
    reopened.journal.close()
    expect(reopened.restored.tornTail).toBe(true)
    expect(reopened.restored.identity?.apiKey).toBe('svc_test_x')
    const route = reopened.restored.payments.get('pay_1')!.routes as unknown as Map<string, unknown>
    expect(route.get('opt_1')).toEqual({
      tokenValue: 12345678901234567890n,
      payer: new Uint8Array([1, 2, 255]),
      raw: new Uint8Array([7]),
    })
    // Compacted: the torn line is gone from the file.
    expect(readFileSync(path, 'utf8')).not.toContain('svc_test_y')
    // A complete line whose checksum fails, followed by more lines, is corruption: no silent skipping.
    const lines = readFileSync(path, 'utf8').split('\n')
    lines[0] = lines[0]!.replace('svc_test_x', 'svc_test_z')
    writeFileSync(path, lines.join('\n'))
    expect(() => Journal.open(dir)).toThrow(/line 1 is corrupt/)
  })
})
