import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { base64 } from '@scure/base'

/**
 * Webhook signing as the spec describes it (a Standard Webhooks scheme):
 * key = base64-decode(secret without its `whsec_` prefix);
 * signature = base64(HMAC-SHA256(key, utf8(`${webhook-id}.${webhook-timestamp}.`) ‖ raw body));
 * header `webhook-signature` = space-separated entries `v1,<signature>` (several while a rotated secret overlaps).
 *
 * Secret convention: `whsec_` + standard base64 (RFC 4648 §4, with padding) of the key bytes. A secret given
 * without the prefix is decoded the same way, as the Standard Webhooks libraries do.
 */

const secretPrefix = 'whsec_'
const defaultToleranceSeconds = 5 * 60
let textEncoder: InstanceType<typeof TextEncoder> | undefined
const encoder = {
  encode(text: string) {
    textEncoder ??= new TextEncoder()
    return textEncoder.encode(text)
  },
}

export type WebhookHeaders =
  | Headers
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | ReadonlyMap<string, string>

export type WebhookVerifyOptions = {
  /** Current time in milliseconds since the Unix epoch (a `Clock` result); default `Date.now()`. */
  now?: number
  /** Allowed distance between `webhook-timestamp` and now; default 300 s (the spec's 5 minutes). */
  toleranceSeconds?: number
}

export type WebhookVerifyFailure =
  | 'missing_headers'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'invalid_secret'
  | 'no_matching_signature'

export type WebhookVerification =
  | { ok: true; id: string; timestamp: number }
  | { ok: false; reason: WebhookVerifyFailure; message: string }

/** The HMAC key bytes of a `whsec_…` secret. Throws a TypeError when the secret is not base64. */
export function webhookSecretKey(secret: string): Uint8Array {
  const encoded = secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret
  let key: Uint8Array
  try {
    key = base64.decode(encoded)
  } catch {
    throw new TypeError('webhook secret is not whsec_ followed by standard base64')
  }
  if (key.length === 0) throw new TypeError('webhook secret is empty')
  return key
}

/** The base64 HMAC-SHA256 over `id.timestamp.body` (without the `v1,` label). */
export function webhookSignature(
  secret: string,
  id: string,
  timestamp: number | string,
  rawBody: Uint8Array | string,
): string {
  return base64.encode(hmac(sha256, webhookSecretKey(secret), signedContent(id, String(timestamp), rawBody)))
}

/** The three headers a delivery carries, signed with every given secret (one `v1,` entry each). */
export function signWebhook(
  secrets: string | readonly string[],
  id: string,
  timestampSeconds: number,
  rawBody: Uint8Array | string,
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  const list = typeof secrets === 'string' ? [secrets] : secrets
  const timestamp = String(Math.floor(timestampSeconds))
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': list
      .map((secret) => `v1,${webhookSignature(secret, id, timestamp, rawBody)}`)
      .join(' '),
  }
}

/**
 * Check a delivery before parsing it: `rawBody` must be the bytes exactly as received. Authentic when any `v1`
 * entry of `webhook-signature` equals the HMAC under any of `secrets` (pass both during a rotation overlap),
 * compared in constant time, and `webhook-timestamp` is within the tolerance of `now`. Never throws, whatever
 * it is given: headers that are absent or unreadable are `missing_headers`, secrets that are not strings
 * `invalid_secret`, a body that is neither bytes nor text `no_matching_signature`, unreadable options the defaults.
 */
export function verifyWebhook(
  secrets: string | readonly string[],
  headers: WebhookHeaders,
  rawBody: Uint8Array | string,
  options: WebhookVerifyOptions = {},
): WebhookVerification {
  const id = headerValue(headers, 'webhook-id')
  const timestampText = headerValue(headers, 'webhook-timestamp')
  const signatureHeader = headerValue(headers, 'webhook-signature')
  if (id === undefined || timestampText === undefined || signatureHeader === undefined) {
    return fail('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are all required')
  }
  if (!/^[0-9]{1,15}$/.test(timestampText)) {
    return fail('invalid_timestamp', 'webhook-timestamp is not a whole number of seconds')
  }
  const timestamp = Number(timestampText)
  const { now, toleranceSeconds } = readOptions(options)
  const nowSeconds = Math.floor((now ?? Date.now()) / 1000)
  const tolerance = toleranceSeconds ?? defaultToleranceSeconds
  if (Math.abs(nowSeconds - timestamp) > tolerance) {
    return fail('timestamp_out_of_tolerance', `webhook-timestamp is more than ${tolerance} s from now`)
  }
  const candidates = signatureHeader
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => decodeSignature(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array => bytes !== undefined)
  const content = isBody(rawBody) ? signedContent(id, timestampText, rawBody) : undefined
  if (content === undefined)
    return fail('no_matching_signature', 'the body is neither the bytes nor the text received')
  const list = secretList(secrets)
  if (list === undefined)
    return fail('invalid_secret', 'webhook secrets must be a string or a list of strings')
  let matched = false
  for (const secret of list) {
    let key: Uint8Array
    try {
      key = webhookSecretKey(secret)
    } catch {
      return fail('invalid_secret', 'a webhook secret is not whsec_ followed by standard base64')
    }
    const expected = hmac(sha256, key, content)
    // Every candidate is compared, so the time taken does not reveal which entry matched.
    for (const candidate of candidates) matched = constantTimeEqual(expected, candidate) || matched
  }
  if (!matched) return fail('no_matching_signature', 'no v1 signature matches')
  return { ok: true, id, timestamp }
}

function signedContent(id: string, timestamp: string, rawBody: Uint8Array | string): Uint8Array {
  const prefix = encoder.encode(`${id}.${timestamp}.`)
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody
  const content = new Uint8Array(prefix.length + body.length)
  content.set(prefix, 0)
  content.set(body, prefix.length)
  return content
}

function decodeSignature(text: string): Uint8Array | undefined {
  try {
    return base64.decode(text)
  } catch {
    return undefined
  }
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let difference = 0
  for (let index = 0; index < a.length; index++) difference |= a[index]! ^ b[index]!
  return difference === 0
}

/** The value of one header, or undefined when it is absent, repeated, or the headers cannot be read. */
function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined
  try {
    return readHeader(headers, name)
  } catch {
    return undefined
  }
}

function readHeader(headers: WebhookHeaders, name: string): string | undefined {
  let value: string | readonly string[] | undefined | null
  if (typeof (headers as Headers).get === 'function') {
    value = (headers as Headers | ReadonlyMap<string, string>).get(name)
    if (value == null && headers instanceof Map) {
      for (const [key, entry] of headers) if (key.toLowerCase() === name) value = entry
    }
  } else {
    const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>
    value = record[name]
    if (value === undefined) {
      for (const key of Object.keys(record)) if (key.toLowerCase() === name) value = record[key]
    }
  }
  if (typeof value === 'string') return value.length > 0 ? value : undefined
  // A repeated header is ambiguous; refuse it rather than pick one.
  return Array.isArray(value) && value.length === 1 && typeof value[0] === 'string' ? value[0] : undefined
}

/** The secrets as a list of strings, or undefined when they are not one (or cannot be read). */
function secretList(secrets: string | readonly string[]): readonly string[] | undefined {
  if (typeof secrets === 'string') return [secrets]
  try {
    return Array.isArray(secrets) && secrets.every((secret) => typeof secret === 'string')
      ? [...secrets]
      : undefined
  } catch {
    return undefined
  }
}

function isBody(rawBody: unknown): rawBody is Uint8Array | string {
  try {
    return typeof rawBody === 'string' || rawBody instanceof Uint8Array
  } catch {
    return false
  }
}

/** `now` and `toleranceSeconds` when they are numbers; the defaults for anything else or unreadable options. */
function readOptions(options: WebhookVerifyOptions): WebhookVerifyOptions {
  try {
    const { now, toleranceSeconds } = options ?? {}
    return {
      ...(typeof now === 'number' ? { now } : {}),
      ...(typeof toleranceSeconds === 'number' ? { toleranceSeconds } : {}),
    }
  } catch {
    return {}
  }
}

function fail(reason: WebhookVerifyFailure, message: string): WebhookVerification {
  return { ok: false, reason, message }
}
