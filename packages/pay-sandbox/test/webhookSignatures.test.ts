import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { signWebhook, verifyWebhook, webhookSignature } from 'wallet-rpc/pay'

type Case = { name: string; secret: string; id: string; timestamp: string; body: string; signature: string }
const vectors = JSON.parse(
  readFileSync(new URL('../../wallet-rpc/test-vectors/pay/webhook-signatures.json', import.meta.url), 'utf8'),
) as {
  cases: Case[]
  rotation: { secrets: string[]; id: string; timestamp: string; body: string; header: string }
}

/** The independent implementation: node:crypto's HMAC, key decoded with Buffer's base64. */
function nodeSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`
}

describe('webhook signature vectors', () => {
  for (const vector of vectors.cases) {
    it(`${vector.name}: node:crypto, signWebhook and verifyWebhook agree with the recorded signature`, () => {
      expect(nodeSignature(vector.secret, vector.id, vector.timestamp, vector.body)).toBe(vector.signature)
      const headers = signWebhook(vector.secret, vector.id, Number(vector.timestamp), vector.body)
      expect(headers['webhook-signature']).toBe(vector.signature)
      expect(
        `v1,${webhookSignature(vector.secret, vector.id, vector.timestamp, new TextEncoder().encode(vector.body))}`,
      ).toBe(vector.signature)
      const result = verifyWebhook(
        vector.secret,
        {
          'webhook-id': vector.id,
          'webhook-timestamp': vector.timestamp,
          'webhook-signature': vector.signature,
        },
        new TextEncoder().encode(vector.body),
        { now: Number(vector.timestamp) * 1000 },
      )
      expect(result).toEqual({ ok: true, id: vector.id, timestamp: Number(vector.timestamp) })
    })
  }

  it('rotation: both secrets sign, new first; either secret alone verifies', () => {
    const { secrets, id, timestamp, body, header } = vectors.rotation
    expect(signWebhook(secrets, id, Number(timestamp), body)['webhook-signature']).toBe(header)
    expect(header).toBe(secrets.map((secret) => nodeSignature(secret, id, timestamp, body)).join(' '))
    const headers = { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': header }
    for (const secret of secrets) {
      expect(verifyWebhook(secret, headers, body, { now: Number(timestamp) * 1000 }).ok).toBe(true)
    }
  })
})

describe('verifyWebhook refusals', () => {
  const vector = vectors.cases[1]!
  const now = Number(vector.timestamp) * 1000
  const headers = {
    'webhook-id': vector.id,
    'webhook-timestamp': vector.timestamp,
    'webhook-signature': vector.signature,
  }
  const reasonOf = (result: ReturnType<typeof verifyWebhook>) => (result.ok ? 'ok' : result.reason)

  it('a tampered body, id or timestamp does not verify', () => {
    expect(reasonOf(verifyWebhook(vector.secret, headers, `${vector.body} `, { now }))).toBe(
      'no_matching_signature',
    )
    expect(
      reasonOf(verifyWebhook(vector.secret, { ...headers, 'webhook-id': 'evt_other' }, vector.body, { now })),
    ).toBe('no_matching_signature')
    const shifted = String(Number(vector.timestamp) + 1)
    expect(
      reasonOf(
        verifyWebhook(vector.secret, { ...headers, 'webhook-timestamp': shifted }, vector.body, { now }),
      ),
    ).toBe('no_matching_signature')
  })

  it('a wrong secret does not verify; an undecodable secret is reported', () => {
    expect(reasonOf(verifyWebhook(vectors.cases[2]!.secret, headers, vector.body, { now }))).toBe(
      'no_matching_signature',
    )
    expect(reasonOf(verifyWebhook('whsec_not base64!', headers, vector.body, { now }))).toBe('invalid_secret')
  })

  it('accepts any v1 entry among others, ignores v2 and malformed entries', () => {
    const signature = `v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc= v2,${vector.signature.slice(3)} v1,@@@ ${vector.signature}`
    expect(
      verifyWebhook(vector.secret, { ...headers, 'webhook-signature': signature }, vector.body, { now }).ok,
    ).toBe(true)
    const onlyV2 = `v2,${vector.signature.slice(3)}`
    expect(
      reasonOf(
        verifyWebhook(vector.secret, { ...headers, 'webhook-signature': onlyV2 }, vector.body, { now }),
      ),
    ).toBe('no_matching_signature')
    const truncated = vector.signature.slice(0, 20)
    expect(
      reasonOf(
        verifyWebhook(vector.secret, { ...headers, 'webhook-signature': truncated }, vector.body, { now }),
      ),
    ).toBe('no_matching_signature')
  })

  it('5-minute tolerance: 300 s either side passes, 301 s fails', () => {
    expect(verifyWebhook(vector.secret, headers, vector.body, { now: now + 300_000 }).ok).toBe(true)
    expect(verifyWebhook(vector.secret, headers, vector.body, { now: now - 300_000 }).ok).toBe(true)
    expect(reasonOf(verifyWebhook(vector.secret, headers, vector.body, { now: now + 301_000 }))).toBe(
      'timestamp_out_of_tolerance',
    )
    expect(reasonOf(verifyWebhook(vector.secret, headers, vector.body, { now: now - 301_000 }))).toBe(
      'timestamp_out_of_tolerance',
    )
  })

  it('missing or malformed headers are refused before any HMAC', () => {
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _dropped, ...rest } = headers
      expect(reasonOf(verifyWebhook(vector.secret, rest, vector.body, { now }))).toBe('missing_headers')
    }
    for (const bad of ['hello', '1771416000.5', '-1', '']) {
      const result = verifyWebhook(vector.secret, { ...headers, 'webhook-timestamp': bad }, vector.body, {
        now,
      })
      expect(['invalid_timestamp', 'missing_headers']).toContain(reasonOf(result))
    }
    const repeated = { ...headers, 'webhook-signature': [vector.signature, vector.signature] }
    expect(reasonOf(verifyWebhook(vector.secret, repeated, vector.body, { now }))).toBe('missing_headers')
  })

  it('reads Headers objects and mixed-case records; accepts a secret without the whsec_ prefix', () => {
    const fetchHeaders = new Headers(headers)
    expect(verifyWebhook(vector.secret, fetchHeaders, vector.body, { now }).ok).toBe(true)
    const mixed = {
      'Webhook-Id': vector.id,
      'WEBHOOK-TIMESTAMP': vector.timestamp,
      'Webhook-Signature': vector.signature,
    }
    expect(verifyWebhook(vector.secret, mixed, vector.body, { now }).ok).toBe(true)
    expect(verifyWebhook(vector.secret.slice('whsec_'.length), headers, vector.body, { now }).ok).toBe(true)
  })
})

describe('verifyWebhook against node:crypto on random inputs (fast-check)', () => {
  it('accepts what node:crypto signs, and refuses any single flipped body byte', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.uint8Array({ minLength: 1, maxLength: 512 }),
        fc.stringMatching(/^[A-Za-z0-9_]{1,40}$/),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.nat(),
        (keyBytes, body, id, timestamp, flipAt) => {
          const secret = `whsec_${Buffer.from(keyBytes).toString('base64')}`
          const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body])
          const signature = createHmac('sha256', Buffer.from(keyBytes)).update(content).digest('base64')
          const headers = {
            'webhook-id': id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': `v1,${signature}`,
          }
          const now = timestamp * 1000
          expect(verifyWebhook(secret, headers, body, { now }).ok).toBe(true)
          const tampered = Uint8Array.from(body)
          const index = flipAt % tampered.length
          tampered[index] = tampered[index]! ^ 0x01
          expect(verifyWebhook(secret, headers, tampered, { now }).ok).toBe(false)
        },
      ),
      { numRuns: 300 },
    )
  })
})
