import { randomBytes } from 'node:crypto'

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** `prefix` + 24 random base62 characters (~142 bits): `pay_…`, `mrch_…`, `evt_…`, `opt_…`. */
export function newId(prefix: string, length = 24): string {
  const bytes = randomBytes(length * 2)
  let out = ''
  for (let index = 0; out.length < length && index < bytes.length; index++) {
    const byte = bytes[index]!
    // 248 = 4 × 62: reject the tail so every character is equally likely.
    if (byte < 248) out += alphabet[byte % 62]
  }
  return out.length === length ? `${prefix}${out}` : newId(prefix, length)
}

/** A webhook signing secret: `whsec_` + standard base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

/** A test-mode API key: `svc_test_` + 32 random base62 characters. */
export function newTestApiKey(): string {
  return newId('svc_test_', 32)
}

/** A live API key: `svc_` + 32 random base62 characters (never `svc_test_`: the first character is not 't'). */
export function newLiveApiKey(): string {
  const key = newId('svc_', 32)
  return key.startsWith('svc_test_') ? newLiveApiKey() : key
}

export function randomHex(bytes: number): `0x${string}` {
  return `0x${randomBytes(bytes).toString('hex')}`
}

export const iso = (ms: number): string => new Date(ms).toISOString()
