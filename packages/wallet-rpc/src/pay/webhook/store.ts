/**
 * What a webhook receiver must remember between deliveries, behind an interface a merchant can back with their
 * own database. Every method is ONE atomic step: in SQL a transaction (`SELECT … FOR UPDATE` on the payment row,
 * `INSERT … ON CONFLICT DO NOTHING` on the event id), in Redis a Lua script. Two deliveries of the same event
 * arriving at once (the sender retried a slow attempt) must never both be told to fulfil.
 *
 * State kept (see `createMemoryWebhookStore` for the reference semantics):
 * - event ids, each until its `keepUntil` (dedupe window; afterwards the id may be forgotten);
 * - per payment: the highest `payment_state_version` processed (absent until the first event: absence, not 0,
 *   because the first event has version 0), and the fulfilment: none, `claimed` (by one event, until a lease
 *   ends) or `done`. Per-payment state is small and kept indefinitely: a fulfilment must never repeat.
 */
export type WebhookReceiverStore = {
  /** Records one verified event and decides what to do with it, atomically (see `WebhookRecordResult`). */
  record(request: WebhookRecordRequest): Promise<WebhookRecordResult>
  /** `onPayment` returned for the claim `claim`: the fulfilment is `done`, for good. */
  fulfilled(paymentId: string, claim: WebhookClaim): Promise<void>
  /**
   * `onPayment` threw for the claim `claim`: drop the claim and forget its event id, so the sender's retry of the
   * event is processed (and claims) again. No effect when `claim` no longer holds the payment (taken over).
   */
  release(paymentId: string, claim: WebhookClaim): Promise<void>
}

/** Who holds a payment's fulfilment: the event, and a token unique to the attempt (a takeover gets its own). */
export type WebhookClaim = { eventId: string; token: string }

export type WebhookRecordRequest = {
  eventId: string
  /** Unique per call; stored with a claim this call makes, so only this attempt can finish or release it. */
  claimToken: string
  /** Absent for an event that is not about a payment (it is only deduplicated). */
  paymentId?: string
  /** The event's `payment_state_version`; absent with `paymentId`. */
  version?: number
  /** The snapshot says `succeeded` and the receiver's mode allows fulfilling it (live, or a test receiver). */
  fulfillable: boolean
  /** Milliseconds since the epoch, from the receiver's clock. */
  now: number
  /** Until when the event id must be remembered (ms). */
  keepUntil: number
  /** A claim made now that is neither `fulfilled` nor `release`d by then (the process died) may be taken again. */
  leaseUntil: number
}

export type WebhookRecordResult = {
  /**
   * `new`: first sight of the id, now recorded. `duplicate`: seen before (acknowledge, skip). `in_progress`: seen,
   * and its fulfilment claim is still held by another attempt (answer non-2xx so the sender comes back).
   */
  event: 'new' | 'duplicate' | 'in_progress'
  /** `newer`: the version is above the highest kept and is now the highest; `stale`: not above it; `none`: no version. */
  version: 'newer' | 'stale' | 'none'
  /** This call claimed the payment's fulfilment: the caller runs `onPayment`, then `fulfilled` or `release`. */
  fulfil: boolean
}

type PaymentRecord = {
  highestVersion?: number
  fulfilment?:
    | { state: 'claimed'; eventId: string; token: string; leaseUntil: number }
    | { state: 'done'; eventId: string }
}

export type MemoryWebhookStore = WebhookReceiverStore & {
  /** The highest version processed for a payment; undefined when none yet. */
  highestVersion(paymentId: string): number | undefined
  /** `none`, `claimed` or `done`. */
  fulfilment(paymentId: string): 'none' | 'claimed' | 'done'
  /** How many event ids are remembered right now. */
  eventCount(): number
}

/**
 * The in-memory store (the default). Atomic because each method runs to completion without awaiting in between
 * (one JavaScript thread). Lost on restart, and not shared between processes: with more than one instance or a
 * process that restarts, back the receiver with a database implementing `WebhookReceiverStore`.
 */
export function createMemoryWebhookStore(): MemoryWebhookStore {
  /** eventId → keepUntil. Insertion order is (nearly) expiry order, so expired ids are swept from the front. */
  const events = new Map<string, number>()
  const payments = new Map<string, PaymentRecord>()

  const sweep = (now: number) => {
    for (const [eventId, keepUntil] of events) {
      if (keepUntil > now) break
      events.delete(eventId)
    }
  }

  const record = (request: WebhookRecordRequest): WebhookRecordResult => {
    const { eventId, paymentId, now } = request
    sweep(now)
    const payment = paymentId === undefined ? undefined : payments.get(paymentId)
    const keptUntil = events.get(eventId)
    if (keptUntil !== undefined && keptUntil > now) {
      const fulfilment = payment?.fulfilment
      if (fulfilment?.state === 'claimed' && fulfilment.eventId === eventId) {
        if (fulfilment.leaseUntil > now) return { event: 'in_progress', version: 'none', fulfil: false }
        // The attempt that claimed it never finished (the process died): this retry takes the claim over.
        fulfilment.leaseUntil = request.leaseUntil
        fulfilment.token = request.claimToken
        return { event: 'duplicate', version: 'none', fulfil: true }
      }
      return { event: 'duplicate', version: 'none', fulfil: false }
    }
    events.delete(eventId)
    events.set(eventId, request.keepUntil)
    if (paymentId === undefined) return { event: 'new', version: 'none', fulfil: false }
    const entry = payment ?? {}
    if (payment === undefined) payments.set(paymentId, entry)
    let version: WebhookRecordResult['version'] = 'none'
    if (request.version !== undefined) {
      if (entry.highestVersion === undefined || request.version > entry.highestVersion) {
        entry.highestVersion = request.version
        version = 'newer'
      } else version = 'stale'
    }
    // Succeeded is final, so any event saying so (even a stale one) may claim a fulfilment not yet made.
    const claimable =
      entry.fulfilment === undefined ||
      (entry.fulfilment.state === 'claimed' && entry.fulfilment.leaseUntil <= now)
    if (request.fulfillable && claimable) {
      entry.fulfilment = {
        state: 'claimed',
        eventId,
        token: request.claimToken,
        leaseUntil: request.leaseUntil,
      }
      return { event: 'new', version, fulfil: true }
    }
    return { event: 'new', version, fulfil: false }
  }

  const holds = (entry: PaymentRecord | undefined, claim: WebhookClaim): entry is PaymentRecord =>
    entry?.fulfilment?.state === 'claimed' &&
    entry.fulfilment.eventId === claim.eventId &&
    entry.fulfilment.token === claim.token

  return {
    record: async (request) => record(request),
    fulfilled: async (paymentId, claim) => {
      const entry = payments.get(paymentId)
      if (holds(entry, claim)) entry.fulfilment = { state: 'done', eventId: claim.eventId }
    },
    release: async (paymentId, claim) => {
      const entry = payments.get(paymentId)
      if (!holds(entry, claim)) return
      delete entry.fulfilment
      events.delete(claim.eventId)
    },
    highestVersion: (paymentId) => payments.get(paymentId)?.highestVersion,
    fulfilment: (paymentId) => payments.get(paymentId)?.fulfilment?.state ?? 'none',
    eventCount: () => events.size,
  }
}
