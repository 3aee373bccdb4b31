import type { Clock } from 'wallet-rpc'
import { signWebhook } from 'wallet-rpc/pay'
import type { Faults } from './faults.js'
import { iso, newId, newWebhookSecret } from './ids.js'
import {
  type EventType,
  eventTypes,
  type PaymentEvent,
  type Persist,
  type RestoredState,
  type WebhookDelivery,
  type WebhookEndpoint,
} from './model.js'

export type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from './model.js'

/**
 * Delay before each attempt, in milliseconds at time scale 1: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h — the Standard Webhooks (Svix) schedule, 27 h 35 min in total, the spec's "about 28 hours".
 */
export const retryScheduleMs: readonly number[] = [
  0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
]

const day = 24 * 60 * 60 * 1000
/** The spec: after rotation the old secret stays valid 24 hours. */
const rotationOverlapMs = day
/** The spec: replay reaches back at most 14 days. */
export const replayReachMs = 14 * day
/** The spec: an endpoint whose every delivery failed for 5 days is disabled. */
const disableAfterMs = 5 * day

type Secret = { value: string; validUntil: number | null }

export type DispatcherOptions = {
  clock: Clock
  /** Multiplies the retry delays and the disable window (e.g. 0.001 turns 5 s into 5 ms). */
  timeScale: number
  /** A delivery succeeds only on 2xx within this time (spec: 15 s). */
  timeoutMs: number
  /** Duplicates, reordering, late answers and rotations on purpose (the fault mode). */
  faults?: Faults
  /** Writes the endpoint, secrets and every delivery change to the durable journal (`--data`). */
  persist?: Persist
}

/**
 * The test-mode webhook endpoint and its deliveries. At-least-once: every event is queued, signed at each attempt
 * with a fresh timestamp and every valid secret, and retried on anything but a 2xx within the timeout. Redirects
 * are not followed (a 3xx is a failed attempt).
 */
export class WebhookDispatcher {
  private endpointState: WebhookEndpoint | null = null
  private secrets: Secret[] = []
  private readonly list: WebhookDelivery[] = []
  private readonly timers = new Set<NodeJS.Timeout>()
  private readonly inFlight = new Set<AbortController>()
  private idleWaiters: Array<() => void> = []
  private failingSince: number | null = null
  private stopped = false
  /** Enqueue order of each delivery: the stable key of the fault mode's decisions. */
  private readonly sequences = new WeakMap<WebhookDelivery, number>()
  private nextSequence = 0

  constructor(private readonly options: DispatcherOptions) {}

  get endpoint(): WebhookEndpoint | null {
    return this.endpointState === null
      ? null
      : { ...this.endpointState, events: [...this.endpointState.events] }
  }

  /** Registers (or replaces) the single endpoint of this mode. A first registration creates the signing secret. */
  setEndpoint(url: string, events: readonly EventType[] = eventTypes): WebhookEndpoint {
    if (this.secrets.length === 0) this.secrets = [{ value: newWebhookSecret(), validUntil: null }]
    this.endpointState = { url, events: [...events], createdAt: this.options.clock(), disabled: false }
    this.failingSince = null
    this.saveEndpoint()
    return this.endpoint!
  }

  /** Deletion is immediate: pending retries are dropped. */
  deleteEndpoint(): void {
    this.endpointState = null
    this.secrets = []
    this.saveEndpoint()
  }

  /**
   * Takes over a journal's endpoint, secrets and deliveries; a pending delivery is attempted again at its
   * `nextAttemptAt` (one whose attempt was cut short by the crash goes again now: at least once). An event
   * journaled with no delivery record was cut off between the two writes, before any send: it is queued now.
   */
  restore(restored: RestoredState): void {
    if (restored.webhooks !== undefined) {
      this.endpointState = restored.webhooks.endpoint
      this.secrets = restored.webhooks.secrets
    }
    const now = this.options.clock()
    for (const delivery of restored.deliveries.values()) {
      this.sequences.set(delivery, this.nextSequence++)
      this.list.push(delivery)
      if (delivery.state !== 'pending') continue
      const due = delivery.nextAttemptAt === null ? now : Date.parse(delivery.nextAttemptAt)
      this.schedule(delivery, Math.max(0, due - now))
    }
    const queued = new Set([...restored.deliveries.values()].map((delivery) => delivery.eventId))
    const endpoint = this.endpointState
    for (const event of restored.events.values()) {
      if (endpoint === null || queued.has(event.id)) continue
      if (Date.parse(event.created_at) >= endpoint.createdAt) this.enqueue(event)
    }
  }

  private saveEndpoint(): void {
    this.options.persist?.({ k: 'webhooks', v: { endpoint: this.endpointState, secrets: this.secrets } })
  }

  private saveDelivery(delivery: WebhookDelivery): void {
    this.options.persist?.({ k: 'delivery', v: delivery })
  }

  /** The current signing secret (reveal). */
  secret(): string | null {
    return this.secrets[0]?.value ?? null
  }

  /** Every secret a receiver should accept right now (the current one first, then any overlapping old one). */
  validSecrets(): string[] {
    return this.liveSecrets().map((secret) => secret.value)
  }

  /** When each valid secret stops signing, in `validSecrets()` order: null for the current one (until a rotation). */
  secretExpiries(): Array<string | null> {
    return this.liveSecrets().map((secret) => (secret.validUntil === null ? null : iso(secret.validUntil)))
  }

  /** New current secret; the previous one stays valid (and keeps signing) for 24 hours. */
  rotateSecret(): { secret: string; previousSecretExpiresAt: string } {
    const now = this.options.clock()
    const validUntil = now + rotationOverlapMs
    const previous = this.liveSecrets()
    const current = newWebhookSecret()
    this.secrets = [
      { value: current, validUntil: null },
      ...previous.map((secret) => ({
        value: secret.value,
        validUntil: Math.min(validUntil, secret.validUntil ?? validUntil),
      })),
    ]
    this.saveEndpoint()
    return { secret: current, previousSecretExpiresAt: iso(validUntil) }
  }

  deliveries(): WebhookDelivery[] {
    return this.list.map((delivery) => ({ ...delivery, attempts: [...delivery.attempts] }))
  }

  /** Queues `event` for the endpoint when one is registered, enabled and subscribed to its type. */
  enqueue(event: PaymentEvent): WebhookDelivery | undefined {
    const endpoint = this.endpointState
    if (this.stopped || endpoint === null || endpoint.disabled || !endpoint.events.includes(event.type))
      return
    const delivery = this.queue(event, endpoint.url)
    if (this.options.faults?.duplicate(this.sequences.get(delivery)!)) this.queue(event, endpoint.url)
    return delivery
  }

  private queue(event: PaymentEvent, url: string): WebhookDelivery {
    const delivery: WebhookDelivery = {
      id: newId('msg_'),
      eventId: event.id,
      eventType: event.type,
      url,
      createdAt: iso(this.options.clock()),
      body: JSON.stringify(event),
      state: 'pending',
      attempts: [],
      nextAttemptAt: iso(this.options.clock()),
    }
    const sequence = this.nextSequence++
    this.sequences.set(delivery, sequence)
    this.list.push(delivery)
    this.saveDelivery(delivery)
    this.schedule(delivery, this.options.faults?.firstAttemptDelay(sequence) ?? 0)
    return delivery
  }

  /** Sends a delivery again now (the dashboard's resend), whatever its state. */
  resend(deliveryId: string): WebhookDelivery | undefined {
    const delivery = this.list.find((entry) => entry.id === deliveryId)
    if (delivery === undefined || this.stopped) return undefined
    delivery.state = 'pending'
    this.saveDelivery(delivery)
    this.schedule(delivery, 0, true)
    return delivery
  }

  /** Bulk resend: every failed delivery created at or after `since` (ms) is sent again now. Returns how many. */
  resendFailed(since: number): number {
    const failed = this.list.filter(
      (entry) => entry.state === 'failed' && Date.parse(entry.createdAt) >= since,
    )
    for (const delivery of failed) this.resend(delivery.id)
    return failed.length
  }

  /**
   * Replay: queues again every event since `since` (ms, at most 14 days back) that never reached the endpoint
   * (no delivery was created for it, or none succeeded). Returns how many.
   */
  replay(events: readonly PaymentEvent[], since: number): number {
    const delivered = new Set(
      this.list.filter((entry) => entry.state === 'delivered').map((entry) => entry.eventId),
    )
    const pending = new Set(
      this.list.filter((entry) => entry.state === 'pending').map((entry) => entry.eventId),
    )
    let count = 0
    for (const event of events) {
      if (Date.parse(event.created_at) < since || delivered.has(event.id) || pending.has(event.id)) continue
      if (this.enqueue(event) !== undefined) count++
    }
    return count
  }

  /** Resolves once no delivery is pending (delivered or finally failed). */
  idle(): Promise<void> {
    if (this.pendingCount() === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  stop(): void {
    this.stopped = true
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    for (const controller of this.inFlight) controller.abort()
    this.releaseIdle()
  }

  /** The secrets still valid (expired ones are dropped). */
  private liveSecrets(): Secret[] {
    const now = this.options.clock()
    this.secrets = this.secrets.filter((secret) => secret.validUntil === null || secret.validUntil > now)
    return this.secrets
  }

  /** Deliveries still waiting for an attempt or a retry; none once stopped. */
  private pendingCount(): number {
    return this.stopped ? 0 : this.list.filter((delivery) => delivery.state === 'pending').length
  }

  private schedule(delivery: WebhookDelivery, delayMs: number, manual = false): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer)
        void this.attempt(delivery, manual)
      },
      Math.min(delayMs, 2 ** 31 - 1),
    )
    timer.unref()
    this.timers.add(timer)
  }

  private async attempt(delivery: WebhookDelivery, manual: boolean): Promise<void> {
    if (this.stopped) return
    const endpoint = this.endpointState
    if (endpoint === null || endpoint.disabled) return this.finish(delivery, 'failed')
    // Always the endpoint's current URL: a resend after the merchant fixed the URL goes to the fixed one.
    delivery.url = endpoint.url
    const started = Date.now()
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'wallet-rpc-pay-sandbox',
      ...signWebhook(
        this.validSecrets(),
        delivery.eventId,
        Math.floor(this.options.clock() / 1000),
        delivery.body,
      ),
    }
    const controller = new AbortController()
    const timeout = setTimeout(() => controller.abort(), this.options.timeoutMs)
    this.inFlight.add(controller)
    let status: number | null = null
    let error: string | null = null
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        headers,
        body: delivery.body,
        redirect: 'manual',
        signal: controller.signal,
      })
      status = response.status
      // The reply must arrive in full within the time limit too.
      await response.arrayBuffer()
    } catch (cause) {
      error = controller.signal.aborted
        ? `no complete response within ${this.options.timeoutMs} ms`
        : cause instanceof Error
          ? cause.message
          : 'request failed'
    } finally {
      clearTimeout(timeout)
      this.inFlight.delete(controller)
    }
    if (this.stopped) return
    const faults = this.options.faults
    const number = delivery.attempts.length + 1
    let durationMs = Date.now() - started
    // Fault mode: the receiver got and handled it, but the answer counts as arriving after the limit.
    if (error === null && faults?.late(this.sequences.get(delivery) ?? 0, number)) {
      durationMs += this.options.timeoutMs
      error = `no complete response within ${this.options.timeoutMs} ms (fault: late answer)`
    }
    if (faults?.rotateAfterAttempt()) this.rotateSecret()
    const ok = error === null && status !== null && status >= 200 && status < 300
    delivery.attempts.push({
      attempt: number,
      at: iso(this.options.clock()),
      status,
      error: error ?? (ok ? null : `HTTP ${status}`),
      durationMs,
    })
    if (ok) {
      this.failingSince = null
      return this.finish(delivery, 'delivered')
    }
    this.noteFailure(endpoint)
    const automaticAttempts = manual ? Number.POSITIVE_INFINITY : delivery.attempts.length
    const delay = retryScheduleMs[automaticAttempts]
    if (delay === undefined || endpoint.disabled) return this.finish(delivery, 'failed')
    const scaled = delay * this.options.timeScale
    delivery.nextAttemptAt = iso(this.options.clock() + scaled)
    this.saveDelivery(delivery)
    this.schedule(delivery, scaled)
  }

  /** Measured on the sandbox clock, so a test can move time instead of waiting. */
  private noteFailure(endpoint: WebhookEndpoint): void {
    const now = this.options.clock()
    this.failingSince ??= now
    if (!endpoint.disabled && now - this.failingSince >= disableAfterMs * this.options.timeScale) {
      endpoint.disabled = true
      this.saveEndpoint()
    }
  }

  private finish(delivery: WebhookDelivery, state: 'delivered' | 'failed'): void {
    delivery.state = state
    delivery.nextAttemptAt = null
    this.saveDelivery(delivery)
    if (this.pendingCount() === 0) this.releaseIdle()
  }

  private releaseIdle(): void {
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const resolve of waiters) resolve()
  }
}
