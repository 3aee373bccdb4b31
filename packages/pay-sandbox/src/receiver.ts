import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Clock } from 'wallet-rpc'
import { verifyWebhook, type WebhookVerifyFailure } from 'wallet-rpc/pay'

/** What the receiver did with one delivery attempt. */
export type ReceivedWebhook = {
  webhookId: string | undefined
  /** HTTP status answered. */
  status: number
  verified: boolean
  failure?: WebhookVerifyFailure
  /** `new` (applied), `duplicate` (event id seen), `stale` (version not above the highest seen), `rejected`. */
  outcome: 'new' | 'duplicate' | 'stale' | 'rejected' | 'refused'
  eventType?: string
  paymentId?: string
  version?: number
}

/**
 * The reference receiver logic the spec's delivery rules ask for: dedupe by event `id`; keep the highest
 * `payment_state_version` per payment and ignore anything not above it ("no version yet" is absence, not 0);
 * the kept snapshot drives side effects.
 */
export class WebhookInbox {
  private readonly seen = new Set<string>()
  private readonly latest = new Map<string, Record<string, unknown>>()

  /** Applies one verified, parsed event; returns what happened. */
  accept(event: { id: string; data: Record<string, unknown> }): 'new' | 'duplicate' | 'stale' {
    if (this.seen.has(event.id)) return 'duplicate'
    this.seen.add(event.id)
    const paymentId = String(event.data.payment_id)
    const version = Number(event.data.payment_state_version)
    const current = this.latest.get(paymentId)
    if (current !== undefined && version <= Number(current.payment_state_version)) return 'stale'
    this.latest.set(paymentId, event.data)
    return 'new'
  }

  /** The newest snapshot applied for a payment. */
  snapshot(paymentId: string): Record<string, unknown> | undefined {
    return this.latest.get(paymentId)
  }

  hasSeen(eventId: string): boolean {
    return this.seen.has(eventId)
  }
}

export type WebhookReceiverOptions = {
  /** Secrets to verify with; a function picks up a rotation (e.g. `() => sandbox.webhooks.secrets()`). */
  secrets: readonly string[] | (() => readonly string[])
  clock?: Clock
  /**
   * Decides the status for an attempt that verified (for tests: answer 500 twice, then 200). Default 200.
   * Called with the 1-based count of attempts seen for this webhook id.
   */
  respond?: (attempt: number, webhookId: string) => number
}

export type WebhookReceiver = {
  /** e.g. `http://127.0.0.1:41234/webhooks` */
  url: string
  inbox: WebhookInbox
  /** Every attempt, in arrival order. */
  received: ReceivedWebhook[]
  /** Resolves with the first received entry matching `predicate` (already received or future). */
  waitFor(predicate: (entry: ReceivedWebhook) => boolean): Promise<ReceivedWebhook>
  stop(): Promise<void>
}

/**
 * A local merchant receiver on 127.0.0.1: verifies the raw body before parsing (400 on failure), then applies
 * the event to a `WebhookInbox` and answers 2xx — what the spec tells a merchant to do. For tests and the demo.
 */
export async function startWebhookReceiver(options: WebhookReceiverOptions): Promise<WebhookReceiver> {
  const inbox = new WebhookInbox()
  const received: ReceivedWebhook[] = []
  const attempts = new Map<string, number>()
  const waiters: Array<{
    predicate: (entry: ReceivedWebhook) => boolean
    resolve: (entry: ReceivedWebhook) => void
  }> = []
  const record = (entry: ReceivedWebhook) => {
    received.push(entry)
    for (const waiter of [...waiters]) {
      if (waiter.predicate(entry)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(entry)
      }
    }
  }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const raw = new Uint8Array(Buffer.concat(chunks))
      const webhookId =
        typeof request.headers['webhook-id'] === 'string' ? request.headers['webhook-id'] : undefined
      const secrets = typeof options.secrets === 'function' ? options.secrets() : options.secrets
      const verification = verifyWebhook(secrets, request.headers, raw, {
        now: (options.clock ?? Date.now)(),
      })
      if (!verification.ok) {
        response.writeHead(400).end()
        record({ webhookId, status: 400, verified: false, failure: verification.reason, outcome: 'rejected' })
        return
      }
      const attempt = (attempts.get(verification.id) ?? 0) + 1
      attempts.set(verification.id, attempt)
      const status = options.respond?.(attempt, verification.id) ?? 200
      let event: { id: string; type: string; data: Record<string, unknown> }
      try {
        event = JSON.parse(Buffer.from(raw).toString('utf8'))
        if (typeof event.id !== 'string' || typeof event.data !== 'object' || event.data === null)
          throw new Error()
      } catch {
        response.writeHead(400).end()
        record({ webhookId, status: 400, verified: true, outcome: 'rejected' })
        return
      }
      const base = {
        webhookId,
        status,
        verified: true,
        eventType: event.type,
        paymentId: String(event.data.payment_id),
        version: Number(event.data.payment_state_version),
      }
      if (status < 200 || status >= 300) {
        response.writeHead(status).end()
        record({ ...base, outcome: 'refused' })
        return
      }
      const outcome = inbox.accept(event)
      response.writeHead(status).end()
      record({ ...base, outcome })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    inbox,
    received,
    waitFor: (predicate) => {
      const found = received.find(predicate)
      if (found !== undefined) return Promise.resolve(found)
      return new Promise((resolve) => waiters.push({ predicate, resolve }))
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
