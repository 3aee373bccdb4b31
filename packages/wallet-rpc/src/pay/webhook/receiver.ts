import { base64 } from '@scure/base'
import type { Clock } from '../../core/clock.js'
import { parseWebhookEvent, type WebhookEvent, type WebhookPaymentSnapshot } from './parseEvent.js'
import { verifyWebhook, type WebhookHeaders, type WebhookVerifyFailure } from './signature.js'
import { createMemoryWebhookStore, type WebhookClaim, type WebhookReceiverStore } from './store.js'

const day = 24 * 60 * 60 * 1000

export type WebhookSecrets =
  | string
  | readonly string[]
  /** Read on every delivery, so a rotation (new secret plus the old one for its 24 h overlap) needs no restart. */
  | (() => string | readonly string[] | Promise<string | readonly string[]>)

export type CreateWebhookReceiverOptions = {
  /** The endpoint's signing secret(s), `whsec_…`. During a rotation pass the new one and the old one. */
  secrets: WebhookSecrets
  /** Fulfil here. Called once per payment, when it first becomes succeeded; a throw makes the sender retry. */
  onPayment: (snapshot: WebhookPaymentSnapshot, event: WebhookEvent) => void | Promise<void>
  /** Where event ids, versions and fulfilments are kept; default in memory (see `WebhookReceiverStore`). */
  store?: WebhookReceiverStore
  /** `live` (default): only `data.live === true` payments are fulfilled. `test`: test payments are too. */
  mode?: 'live' | 'test'
  /** How long an event id is remembered for deduplication; default 3 days (the sender retries for ~28 h). */
  keepEventDays?: number
  /**
   * How long a fulfilment claim holds before a retry may take it over, when the process handling it died;
   * default 2 minutes. Keep it above the longest `onPayment` run.
   */
  claimLeaseMs?: number
  /** Allowed distance of `webhook-timestamp` from now; default 300 s (the spec's 5 minutes). */
  toleranceSeconds?: number
  clock?: Clock
}

export type WebhookReceiverOutcome =
  /** First sight of the event; recorded (and the payment fulfilled when this event made it succeed). */
  | 'processed'
  /** Seen before: acknowledged, skipped. */
  | 'duplicate'
  /** Its version is not above the highest processed for the payment: acknowledged, skipped. */
  | 'stale'
  /** Another attempt of this event is still fulfilling the payment: answered 409 so the sender returns. */
  | 'in_progress'
  /** Signature, timestamp or headers wrong: 400. */
  | 'rejected'
  /** Authentic but not a readable event: 400 (the delivery shows as failed at the sender). */
  | 'malformed'
  /** The store, the secrets or `onPayment` failed: 500, the sender retries. */
  | 'error'

export type WebhookReceiverResult = {
  /** The HTTP status to answer. */
  status: number
  /** A short JSON body to answer with (never a secret). */
  body?: string
  outcome: WebhookReceiverOutcome
  /** Why it was rejected (verification failure). */
  reason?: WebhookVerifyFailure
  eventId?: string
  paymentId?: string
  /** onPayment ran (and returned) during this call. */
  fulfilled?: boolean
}

export type WebhookReceiver = {
  /**
   * One delivery: `rawBody` must be the bytes exactly as received (verified before parsing). Never throws;
   * answer the returned `status` (and `body`) to the sender.
   */
  handle(request: { headers: WebhookHeaders; rawBody: Uint8Array | string }): Promise<WebhookReceiverResult>
}

/**
 * A merchant-side receiver that follows the spec's delivery rules: verify the raw body first (400 when it fails),
 * deduplicate by event id, keep the highest `payment_state_version` per payment and skip anything not above it,
 * fulfil once when a payment first becomes succeeded (whatever the event type; only live payments unless in
 * test mode), parse tolerantly, and answer 2xx only once the event is recorded in the store.
 * Framework-neutral; the adapters for node:http and fetch-style handlers are two lines (src/pay/README.md).
 */
export function createWebhookReceiver(options: CreateWebhookReceiverOptions): WebhookReceiver {
  const store = options.store ?? createMemoryWebhookStore()
  const clock = options.clock ?? Date.now
  const keepMs = (options.keepEventDays ?? 3) * day
  const leaseMs = options.claimLeaseMs ?? 2 * 60 * 1000
  const mode = options.mode ?? 'live'

  const handle: WebhookReceiver['handle'] = async ({ headers, rawBody }) => {
    let secrets: string | readonly string[]
    try {
      secrets = typeof options.secrets === 'function' ? await options.secrets() : options.secrets
    } catch {
      return answer(500, 'error', { error: 'secrets_unavailable' })
    }
    const now = clock()
    const verification = verifyWebhook(secrets, headers, rawBody, {
      now,
      ...(options.toleranceSeconds === undefined ? {} : { toleranceSeconds: options.toleranceSeconds }),
    })
    if (!verification.ok) {
      // A secret that does not decode is the merchant's configuration, not the sender's fault: retry later.
      if (verification.reason === 'invalid_secret') return answer(500, 'error', { error: 'invalid_secret' })
      return { ...answer(400, 'rejected', { error: verification.reason }), reason: verification.reason }
    }
    const parsed = parseWebhookEvent(rawBody, verification.id)
    if (!parsed.ok) return answer(400, 'malformed', { error: 'malformed_event', message: parsed.message })
    const { event } = parsed
    const payment = event.payment
    const ids = { eventId: event.id, ...(payment === undefined ? {} : { paymentId: payment.payment_id }) }
    const fulfillable =
      payment !== undefined && payment.status === 'succeeded' && (mode === 'test' || payment.live)
    // Only an event that can fulfil can claim (a duplicate taking over a dead claim is fulfillable too).
    const claim: WebhookClaim = { eventId: event.id, token: fulfillable ? claimToken() : '' }
    let recorded: Awaited<ReturnType<WebhookReceiverStore['record']>>
    try {
      recorded = await store.record({
        eventId: event.id,
        claimToken: claim.token,
        ...(payment === undefined
          ? {}
          : { paymentId: payment.payment_id, version: payment.payment_state_version }),
        fulfillable,
        now,
        keepUntil: now + keepMs,
        leaseUntil: now + leaseMs,
      })
    } catch {
      return { ...answer(500, 'error', { error: 'store_failed' }), ...ids }
    }
    if (recorded.event === 'in_progress')
      return { ...answer(409, 'in_progress', { received: false }), ...ids }
    const outcome: WebhookReceiverOutcome =
      recorded.event === 'duplicate' ? 'duplicate' : recorded.version === 'stale' ? 'stale' : 'processed'
    if (!recorded.fulfil || payment === undefined)
      return { ...answer(200, outcome, { received: true }), ...ids }
    try {
      await options.onPayment(payment, event)
    } catch {
      await store.release(payment.payment_id, claim).catch(() => undefined)
      return { ...answer(500, 'error', { error: 'fulfilment_failed' }), ...ids }
    }
    // onPayment ran, so this delivery is done whatever the store says. Until the store hears it, the claim only
    // waits to expire, after which a later event would fulfil again: `fulfilled` acts only while this claim holds
    // (so it may run twice), and a failed write (a dropped connection, a failover) is tried again. Past those
    // tries onPayment's own idempotency is what is left.
    await recordFulfilled(store, payment.payment_id, claim)
    return { ...answer(200, outcome, { received: true }), ...ids, fulfilled: true }
  }

  return {
    handle: async (request) => {
      try {
        return await handle(request)
      } catch {
        return answer(500, 'error', { error: 'internal_error' })
      }
    },
  }
}

function answer(status: number, outcome: WebhookReceiverOutcome, body: Record<string, unknown>) {
  return { status, outcome, body: JSON.stringify(body) }
}

function claimToken(): string {
  const bytes = new Uint8Array(12)
  globalThis.crypto.getRandomValues(bytes)
  return base64.encode(bytes)
}

/** Tries after the first when the store fails to record a fulfilment, and the pause before each (ms). */
const fulfilledRetryPauses = [50, 250, 1000]

async function recordFulfilled(store: WebhookReceiverStore, paymentId: string, claim: WebhookClaim) {
  for (const pause of [0, ...fulfilledRetryPauses]) {
    if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause))
    try {
      await store.fulfilled(paymentId, claim)
      return
    } catch {
      // tried again below
    }
  }
}
