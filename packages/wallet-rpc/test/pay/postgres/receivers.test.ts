import { createServer } from 'node:http'
import { PGlite } from '@electric-sql/pglite'
import { devMnemonic, startLiveChains } from '@wallet-rpc/devchains/liveChains'
import { type FaultPlan, type PaySandbox, startPaySandbox } from '@wallet-rpc/pay-sandbox'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { eip155, httpProvider, mnemonicKeys } from '../../../src/eip155/index.js'
import { createWalletRpc } from '../../../src/index.js'
import { createPayClient, createWebhookReceiver } from '../../../src/pay/index.js'
import { postgresWebhookStore } from '../../../src/pay/postgres/index.js'
import {
  type LoadBalancer,
  type ReceiverLine,
  type ReceiverProcess,
  startReceiverProcess,
  startRoundRobinProxy,
} from './processes.js'
import type { ReceiverConfig } from './receiverProcess.js'
import { findPostgres, type PostgresServer, startPostgres } from './server.js'

/**
 * Exactly once across instances (issue 46, item 4), with real processes: receiver instances (receiverProcess.ts,
 * `createWebhookReceiver` + `postgresWebhookStore`, each its own Node process) on one Postgres behind a round-robin
 * proxy, the pay sandbox delivering in fault mode (duplicates, reordering, late answers that are retried, secret
 * rotation). Also a receiver SIGKILLed inside onPayment (the lease, the takeover), a restart that re-receives every
 * event, and the same receiver on PGlite in one process.
 */

const bin = findPostgres('multi-process webhook receivers')
let server: PostgresServer | undefined
const cleanup: Array<() => Promise<unknown>> = []

beforeAll(async () => {
  if (bin !== undefined) server = await startPostgres(bin)
}, 120_000)
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!()
}, 60_000)
afterAll(async () => {
  await server?.stop()
}, 60_000)

const plan: FaultPlan = { seed: 46, duplicateRate: 0.4, reorderWindowMs: 60, lateRate: 0.25, rotateEvery: 5 }

async function sandboxOn(url: string, options: { faults?: FaultPlan; timeScale?: number } = {}) {
  const sandbox = await startPaySandbox({
    webhookUrl: url,
    ...(options.faults === undefined ? {} : { faults: options.faults }),
    timeScale: options.timeScale ?? 0.0001,
    processingMs: null,
    settlementMs: null,
  })
  cleanup.push(() => sandbox.stop())
  return sandbox
}

async function createPayment(sandbox: PaySandbox, referenceId: string): Promise<string> {
  const response = await fetch(`${sandbox.url}/v1/payments`, {
    method: 'POST',
    headers: {
      'api-key': sandbox.apiKey,
      'merchant-id': sandbox.merchantId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ referenceId, amount: { unit: 'iso4217/USD', value: '1250' } }),
  })
  if (response.status !== 201) throw new Error(`create payment answered ${response.status}`)
  return ((await response.json()) as { id: string }).id
}

/** `count` payments through their lifecycles: three of every four succeed and settle, the fourth fails. */
async function payments(sandbox: PaySandbox, count: number) {
  const succeeded: string[] = []
  const failed: string[] = []
  for (let index = 0; index < count; index++) {
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
  return { succeeded, failed }
}

/** `count` receiver processes on one fresh schema, in front of them the proxy (whose URL the sandbox was given). */
async function startInstances(
  count: number,
  proxy: LoadBalancer,
  config: Omit<ReceiverConfig, 'store' | 'connectionString' | 'schema'>,
  store: ReceiverConfig['store'] = 'postgres',
) {
  const full: ReceiverConfig =
    store === 'memory'
      ? { store, ...config }
      : { store, connectionString: server!.url, schema: await server!.freshSchema(), ...config }
  const instances = await Promise.all(Array.from({ length: count }, () => startReceiverProcess(full)))
  for (const instance of instances) cleanup.push(() => instance.stop())
  proxy.setBackends(instances.map((instance) => instance.url))
  return { instances, config: full }
}

/** The proxy first: its URL is the sandbox's endpoint, and the sandbox's secret is what the instances get. */
async function front() {
  const proxy = await startRoundRobinProxy([])
  cleanup.push(() => proxy.stop())
  return proxy
}

/** How many times each payment's onPayment completed, across every process. */
function completions(processes: readonly ReceiverProcess[]): Map<string, number> {
  const counts = new Map<string, number>()
  for (const line of processes.flatMap((instance) => instance.lines))
    if (line.kind === 'done') counts.set(line.paymentId!, (counts.get(line.paymentId!) ?? 0) + 1)
  return counts
}

const handled = (processes: readonly ReceiverProcess[]): ReceiverLine[] =>
  processes.flatMap((instance) => instance.lines.filter((line) => line.kind === 'handled'))

describe.skipIf(bin === undefined)('receiver processes on one Postgres', () => {
  it('three processes behind a round-robin proxy, fault mode: every succeeded payment fulfilled exactly once across them, no failed one; a fresh process re-receiving every event fulfils nothing', async () => {
    const proxy = await front()
    const sandbox = await sandboxOn(proxy.url, { faults: plan })
    const firstSecret = sandbox.webhooks.secret()!
    // The merchant's instances know only the secret they were given at start: the rotation's overlap carries it.
    const { instances, config } = await startInstances(3, proxy, {
      secrets: [firstSecret],
      mode: 'test',
      claimLeaseMs: 60_000,
      failOnce: true,
    })

    const { succeeded, failed } = await payments(sandbox, 24)
    await sandbox.webhooks.idle()

    // The faults really happened, and the work was spread over the processes.
    const kinds = new Set(sandbox.faults.log().map((record) => record.kind))
    expect([...kinds].sort()).toEqual(['delay', 'duplicate', 'late', 'rotate'])
    expect(sandbox.webhooks.secrets()).not.toEqual([firstSecret])
    const outcomes = handled(instances)
    for (const instance of instances)
      expect(instance.lines.filter((line) => line.kind === 'handled').length).toBeGreaterThan(5)
    expect(outcomes.map((line) => line.outcome)).toEqual(
      expect.arrayContaining(['duplicate', 'stale', 'error']),
    )
    // Some event reached two different processes (a duplicate or a retry on the other instance).
    const processesOf = new Map<string, Set<number>>()
    for (const line of outcomes)
      processesOf.set(line.eventId!, (processesOf.get(line.eventId!) ?? new Set()).add(line.pid))
    expect([...processesOf.values()].some((pids) => pids.size > 1)).toBe(true)
    // onPayment threw on some instance ("warehouse down") and the sender's retry fulfilled elsewhere or there.
    expect(instances.flatMap((instance) => instance.lines).some((line) => line.kind === 'threw')).toBe(true)
    // Every event was acknowledged in the end.
    const acknowledged = new Set(outcomes.filter((line) => line.status === 200).map((line) => line.eventId))
    expect(sandbox.control.events().every((event) => acknowledged.has(event.id))).toBe(true)
    // The proof: exactly once per succeeded payment, across the processes; never for a failed one.
    const done = completions(instances)
    expect([...done.entries()].sort()).toEqual(succeeded.map((id) => [id, 1]).sort())
    expect(failed.filter((id) => done.has(id))).toEqual([])
    expect(
      new Set(
        instances.flatMap((instance) => instance.lines.filter((l) => l.kind === 'done').map((l) => l.pid)),
      ).size,
    ).toBeGreaterThan(1)

    // Restart: every instance stops; a fresh process on the same database re-receives every event (each delivery
    // resent, with the faults still on) and fulfils nothing.
    for (const instance of instances) await instance.stop()
    const fresh = await startReceiverProcess({ ...config, secrets: sandbox.webhooks.secrets() })
    cleanup.push(() => fresh.stop())
    proxy.setBackends([fresh.url])
    const deliveries = sandbox.webhooks.deliveries()
    for (const delivery of deliveries) sandbox.webhooks.resend(delivery.id)
    await sandbox.webhooks.idle()
    const replayed = handled([fresh])
    expect(new Set(replayed.map((line) => line.eventId))).toEqual(new Set(deliveries.map((d) => d.eventId)))
    expect(new Set(replayed.map((line) => `${line.status} ${line.outcome}`))).toEqual(
      new Set(['200 duplicate']),
    )
    expect(fresh.lines.filter((line) => line.kind === 'start')).toEqual([])
  }, 240_000)

  it('the same run with each process on its own memory store fulfils some payment more than once: what the proof above would catch', async () => {
    const proxy = await front()
    const sandbox = await sandboxOn(proxy.url, { faults: plan })
    const { instances } = await startInstances(
      3,
      proxy,
      { secrets: [sandbox.webhooks.secret()!], mode: 'test', claimLeaseMs: 60_000 },
      'memory',
    )
    const { succeeded } = await payments(sandbox, 24)
    await sandbox.webhooks.idle()
    const done = completions(instances)
    expect(succeeded.every((id) => done.has(id))).toBe(true)
    expect([...done.values()].some((count) => count > 1)).toBe(true)
  }, 240_000)

  it('live and test books together (the receivers in live mode, their default): every live succeeded payment fulfilled exactly once across the processes, no test or failed one', async () => {
    const chains = await startLiveChains({ solana: false })
    cleanup.push(() => chains.stop())
    const proxy = await front()
    const checkoutHost = 'pay.sandbox.test'
    const sandbox = await startPaySandbox({
      webhookUrl: proxy.url,
      faults: plan,
      timeScale: 0.0001,
      processingMs: null,
      settlementMs: null,
      checkoutUrl: `https://${checkoutHost}`,
      pollInMs: 20,
      live: { ...chains.live, pollMs: 20, confirmTimeoutMs: 5_000, log: () => undefined },
    })
    cleanup.push(() => sandbox.stop())
    const live = sandbox.live!
    live.webhooks.setEndpoint(proxy.url)
    const { instances } = await startInstances(3, proxy, {
      secrets: [sandbox.webhooks.secret()!, live.webhooks.secret()!],
      mode: 'live',
      claimLeaseMs: 60_000,
      failOnce: true,
    })

    // Test book, in fault mode: succeeded and failed payments, none of which a live receiver fulfils.
    const test = await payments(sandbox, 12)
    // Live book: payments paid on anvil by wallet-rpc's own wallet through wallet-rpc/pay, and some failed.
    const wallet = createWalletRpc({
      namespaces: [
        eip155({
          keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: 3 }),
          chains: [{ chainId: 31337, provider: httpProvider(chains.anvil.url) }],
        }),
      ],
      approve: () => true,
    })
    const client = createPayClient({
      baseUrl: sandbox.url,
      apiKey: live.apiKey,
      wallet,
      trustedHosts: [checkoutHost],
      maxPollMs: 10_000,
    })
    const liveSucceeded: string[] = []
    const liveFailed: string[] = []
    for (let index = 0; index < 6; index++) {
      const response = await fetch(`${sandbox.url}/v1/payments`, {
        method: 'POST',
        headers: {
          'api-key': live.apiKey,
          'merchant-id': live.merchantId,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ referenceId: `live-${index}`, amount: { unit: 'iso4217/USD', value: '700' } }),
      })
      const payment = (await response.json()) as { id: string; paymentLink: string }
      if (index % 3 === 2) {
        live.control.fail(payment.id, 'declined')
        liveFailed.push(payment.id)
        continue
      }
      const offered = await client.getOptions(payment.paymentLink)
      const option = offered.options.find((candidate) => candidate.available)!
      expect((await client.pay(payment.paymentLink, option.id, { options: offered })).status).toBe(
        'succeeded',
      )
      liveSucceeded.push(payment.id)
    }
    await live.idle()
    await sandbox.webhooks.idle()
    // Every live event again, twice at once (the sender's duplicate and its retry on two instances).
    for (const delivery of live.webhooks.deliveries()) {
      live.webhooks.resend(delivery.id)
      live.webhooks.resend(delivery.id)
    }
    await live.idle()

    expect(new Set(sandbox.faults.log().map((record) => record.kind)).size).toBe(4)
    const liveEvents = new Set(live.control.events().map((event) => event.id))
    const outcomes = handled(instances)
    expect(outcomes.filter((line) => liveEvents.has(line.eventId!)).map((line) => line.outcome)).toEqual(
      expect.arrayContaining(['processed', 'duplicate']),
    )
    const done = completions(instances)
    expect(liveSucceeded).toHaveLength(4)
    expect([...done.entries()].sort()).toEqual(liveSucceeded.map((id) => [id, 1]).sort())
    for (const id of [...test.succeeded, ...test.failed, ...liveFailed]) expect(done.has(id), id).toBe(false)
  }, 240_000)

  it('a receiver SIGKILLed inside onPayment: the retry during the lease gets 409, after the lease the other instance takes over, one fulfilment; later duplicates fulfil nothing', async () => {
    const proxy = await front()
    // Retries on a slow schedule (the first after 5000 s): the test resends by hand, nothing else interferes.
    const sandbox = await sandboxOn(proxy.url, { timeScale: 1000 })
    const { instances: both } = await startInstances(2, proxy, {
      secrets: [sandbox.webhooks.secret()!],
      mode: 'test',
      claimLeaseMs: 60_000,
      hang: true,
    })

    const id = await createPayment(sandbox, 'order-killed')
    sandbox.control.process(id)
    sandbox.control.succeed(id)
    // Whichever instance got payment.succeeded is now inside onPayment, which hangs: kill it there.
    const start = await Promise.race(
      both.map((receiver) => receiver.waitFor((line) => line.kind === 'start')),
    )
    const victim = both.find((receiver) => receiver.pid === start.pid)!
    const survivor = both.find((receiver) => receiver !== victim)!
    await victim.kill()
    // The load balancer notices the dead instance; the survivor fulfils for real from now on.
    proxy.setBackends([survivor.url])
    await survivor.setHang(false)
    const delivery = sandbox.webhooks.deliveries().find((entry) => entry.eventId === start.eventId)!
    // The attempt the victim died in has failed (the proxy's 502) before the test resends.
    while (delivery.attempts.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(delivery.attempts[0]).toMatchObject({ status: 502 })
    const resend = async () => {
      const before = survivor.lines.length
      sandbox.webhooks.resend(delivery.id)
      await sandbox.webhooks.idle()
      return survivor.lines
        .slice(before)
        .filter((line) => line.kind === 'handled' && line.eventId === start.eventId)
    }

    // While the dead attempt's lease holds: 409, and nothing runs.
    expect(await resend()).toMatchObject([{ status: 409, outcome: 'in_progress' }])
    expect(survivor.lines.filter((line) => line.kind === 'start')).toEqual([])
    // After the lease (the survivor's clock moved past it): the retry takes the claim over and fulfils.
    await survivor.advanceClock(61_000)
    expect(await resend()).toMatchObject([{ status: 200, outcome: 'duplicate', fulfilled: true }])
    // Later duplicates, and the payment's other events, fulfil nothing.
    expect(await resend()).toMatchObject([{ status: 200, outcome: 'duplicate', fulfilled: false }])
    sandbox.control.settle(id)
    await sandbox.webhooks.idle()
    expect(completions(both)).toEqual(new Map([[id, 1]]))
    expect(both.flatMap((receiver) => receiver.lines).filter((line) => line.kind === 'start')).toHaveLength(2)
  }, 120_000)
})

describe('the same receiver on PGlite (one process)', () => {
  it('passes the fault-mode sandbox run: every succeeded payment fulfilled exactly once, no failed one', async () => {
    const db = await PGlite.create()
    cleanup.push(() => db.close())
    const store = postgresWebhookStore({ pool: db })
    await store.ready()
    const fulfilled: string[] = []
    const threw = new Set<string>()
    let secret = ''
    const receiver = createWebhookReceiver({
      secrets: () => [secret],
      mode: 'test',
      store,
      onPayment: (payment) => {
        // Every other payment's first try fails: 500, and the sandbox's retry fulfils.
        if (!threw.has(payment.payment_id) && threw.add(payment.payment_id).size % 2 === 1)
          throw new Error('warehouse down')
        fulfilled.push(payment.payment_id)
      },
    })
    const outcomes: string[] = []
    const local = createServer(async (req, res) => {
      const chunks: Buffer[] = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const result = await receiver.handle({ headers: req.headers, rawBody: Buffer.concat(chunks) })
      outcomes.push(result.outcome)
      res.writeHead(result.status).end(result.body)
    })
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve))
    cleanup.push(() => new Promise((resolve) => local.close(resolve)))
    const port = (local.address() as { port: number }).port
    const sandbox = await sandboxOn(`http://127.0.0.1:${port}/hooks`, { faults: plan })
    secret = sandbox.webhooks.secret()!
    const { succeeded, failed } = await payments(sandbox, 16)
    await sandbox.webhooks.idle()
    expect([...new Set(sandbox.faults.log().map((record) => record.kind))].sort()).toEqual([
      'delay',
      'duplicate',
      'late',
      'rotate',
    ])
    expect(outcomes).toEqual(expect.arrayContaining(['duplicate', 'stale', 'error', 'processed']))
    const counts = new Map<string, number>()
    for (const id of fulfilled) counts.set(id, (counts.get(id) ?? 0) + 1)
    expect([...counts.entries()].sort()).toEqual(succeeded.map((id) => [id, 1]).sort())
    expect(fulfilled.filter((id) => failed.includes(id))).toEqual([])
    for (const id of succeeded) expect(await store.payment(id)).toMatchObject({ fulfilment: 'done' })
  }, 120_000)
})
