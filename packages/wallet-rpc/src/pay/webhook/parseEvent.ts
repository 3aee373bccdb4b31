import { decodeUtf8Strict } from '../../core/utf8.js'

/**
 * Tolerant reading of a verified webhook body (spec, delivery rule 4): unknown fields are kept and ignored, `type`,
 * `status` and `fee.kind` are plain strings (new values appear without a version bump), and nothing branches on
 * `failure_reason` or `cancellation_reason`. Only what ordering and fulfilment need is checked.
 */

/** The payment snapshot of an event (`data`): a full snapshot, never a delta. Fields beyond these are kept as sent. */
export type WebhookPaymentSnapshot = {
  payment_id: string
  /** Starts at 0 and increases with each state change of the payment. */
  payment_state_version: number
  /** requires_action, processing, succeeded, failed, expired, cancelled — or a value added later. */
  status: string
  /** false for test payments and test deliveries. */
  live: boolean
  /** `{ kind, total_amount, … }` or null; `kind` is `base_plus_percent` today, and others may come: never switch on it exhaustively. */
  fee?: unknown
  [field: string]: unknown
}

export type WebhookEvent = {
  id: string
  /** `payment.<stage>` today; any string is accepted. */
  type: string
  apiVersion?: string
  /** Present when `data` carries a `payment_id`. */
  payment?: WebhookPaymentSnapshot
  /** The envelope as parsed, every field included. */
  raw: Record<string, unknown>
}

export type ParsedWebhookEvent = { ok: true; event: WebhookEvent } | { ok: false; message: string }

/** Parses the body; `headerId` (webhook-id) stands in for a missing envelope `id`. */
export function parseWebhookEvent(rawBody: Uint8Array | string, headerId: string): ParsedWebhookEvent {
  const text = typeof rawBody === 'string' ? rawBody : decodeUtf8Strict(rawBody)
  if (text === undefined) return { ok: false, message: 'the body is not UTF-8' }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { ok: false, message: 'the body is not JSON' }
  }
  if (!isRecord(parsed)) return { ok: false, message: 'the body is not a JSON object' }
  const id = typeof parsed.id === 'string' && parsed.id.length > 0 ? parsed.id : headerId
  const type = typeof parsed.type === 'string' ? parsed.type : ''
  const event: WebhookEvent = { id, type, raw: parsed }
  if (typeof parsed.api_version === 'string') event.apiVersion = parsed.api_version
  const data = parsed.data
  if (!isRecord(data) || data.payment_id === undefined) return { ok: true, event }
  if (typeof data.payment_id !== 'string' || data.payment_id.length === 0) {
    return { ok: false, message: 'data.payment_id is not a non-empty string' }
  }
  const version = data.payment_state_version
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) {
    return { ok: false, message: 'data.payment_state_version is not a whole number ≥ 0' }
  }
  if (typeof data.status !== 'string') return { ok: false, message: 'data.status is not a string' }
  // `live` is true only when it says so: a missing or odd value is never treated as real money.
  event.payment = { ...data, live: data.live === true } as WebhookPaymentSnapshot
  return { ok: true, event }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
