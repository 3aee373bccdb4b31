/**
 * One merchant instance for the multi-process tests: `createWebhookReceiver` behind node:http on 127.0.0.1, its
 * store on Postgres (or in memory, to show what the tests catch), run as its own process:
 * `node --import tsx receiverProcess.ts '<json ReceiverConfig>'`. It writes one JSON line per thing that happens
 * on stdout (`listening`, `handled`, and `start` / `threw` / `done` inside onPayment), which the test collects.
 * Two routes beside the webhook one, reached directly (never through the proxy): `POST /__clock` moves this
 * process's clock on by `{ advanceMs }`, `POST /__hang` sets `{ hang }` (onPayment never returns, to be SIGKILLed).
 */
import { createServer } from 'node:http'
import { createWebhookReceiver } from '../../../src/pay/index.js'
import { postgresWebhookStore } from '../../../src/pay/postgres/index.js'
import { createMemoryWebhookStore } from '../../../src/pay/webhook/store.js'

export type ReceiverConfig = {
  store: 'postgres' | 'memory'
  connectionString?: string
  schema?: string
  secrets: string[]
  mode: 'live' | 'test'
  claimLeaseMs: number
  /** onPayment never returns (until `/__hang` turns it off for later calls). */
  hang?: boolean
  /** onPayment throws the first time this process sees a payment whose id hashes to 0 mod 3 ("warehouse down"). */
  failOnce?: boolean
}

const config = JSON.parse(process.argv[2]!) as ReceiverConfig
let offset = 0
let hang = config.hang === true
const threw = new Set<string>()
const emit = (line: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ pid: process.pid, ...line })}\n`)
const hash = (text: string) =>
  [...text].reduce((sum, character) => (sum * 31 + character.charCodeAt(0)) >>> 0, 7)

const store =
  config.store === 'memory'
    ? createMemoryWebhookStore()
    : postgresWebhookStore({
        connectionString: config.connectionString!,
        schema: config.schema!,
        poolSize: 4,
      })
if ('ready' in store) await store.ready()

const receiver = createWebhookReceiver({
  store,
  secrets: config.secrets,
  mode: config.mode,
  claimLeaseMs: config.claimLeaseMs,
  clock: () => Date.now() + offset,
  onPayment: async (payment, event) => {
    const ids = { paymentId: payment.payment_id, eventId: event.id }
    emit({ kind: 'start', ...ids })
    if (hang) await new Promise(() => undefined)
    if (config.failOnce && hash(payment.payment_id) % 3 === 0 && !threw.has(payment.payment_id)) {
      threw.add(payment.payment_id)
      emit({ kind: 'threw', ...ids })
      throw new Error('warehouse down')
    }
    // A little work, so deliveries of one payment overlap across the processes.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20))
    emit({ kind: 'done', ...ids })
  },
})

const server = createServer(async (req, res) => {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const rawBody = Buffer.concat(chunks)
  if (req.url === '/__clock') {
    offset += (JSON.parse(rawBody.toString('utf8')) as { advanceMs: number }).advanceMs
    res.writeHead(204).end()
    return
  }
  if (req.url === '/__hang') {
    hang = (JSON.parse(rawBody.toString('utf8')) as { hang: boolean }).hang
    res.writeHead(204).end()
    return
  }
  const result = await receiver.handle({ headers: req.headers, rawBody })
  emit({
    kind: 'handled',
    eventId: result.eventId,
    paymentId: result.paymentId,
    status: result.status,
    outcome: result.outcome,
    fulfilled: result.fulfilled === true,
  })
  res.writeHead(result.status, { 'content-type': 'application/json' }).end(result.body)
})
server.listen(0, '127.0.0.1', () => {
  emit({ kind: 'listening', port: (server.address() as { port: number }).port })
})
process.on('SIGTERM', () => {
  server.close()
  server.closeAllConnections()
  void Promise.resolve('close' in store ? store.close() : undefined).finally(() => process.exit(0))
})
