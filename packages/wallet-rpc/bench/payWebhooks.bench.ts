import { createHmac } from 'node:crypto'
import { hmac } from '@noble/hashes/hmac.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { signWebhook, verifyWebhook } from '../src/pay/webhook/signature.js'

/**
 * verifyWebhook (header parsing, base64, HMAC-SHA256 with @noble/hashes, constant-time compare, tolerance)
 * against the raw primitive a receiver would otherwise call: node:crypto's HMAC-SHA256 over the same content,
 * measured in the same run, interleaved, on a typical 1 KiB event; and against the same @noble HMAC alone, which
 * isolates what the verification adds around the primitive. Reported as ratios; no target is enforced.
 */
const secret = 'whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8='
const key = Buffer.from(secret.slice('whsec_'.length), 'base64')

function medianMicros(rounds: number, perRound: number, work: () => unknown): number {
  const samples: number[] = []
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < perRound; i++) work()
    samples.push(Number(process.hrtime.bigint() - start) / 1000 / perRound)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(samples.length / 2)]!
}

export async function run(): Promise<void> {
  const body = JSON.stringify({
    id: 'evt_bench',
    type: 'payment.succeeded',
    data: { padding: 'x'.repeat(900) },
  })
  const raw = new TextEncoder().encode(body)
  const timestamp = 1771416000
  const headers = signWebhook(secret, 'evt_bench', timestamp, raw)
  const now = timestamp * 1000
  const direct = () =>
    createHmac('sha256', key).update(`evt_bench.${timestamp}.`).update(raw).digest('base64')
  const prefix = new TextEncoder().encode(`evt_bench.${timestamp}.`)
  const content = new Uint8Array(prefix.length + raw.length)
  content.set(prefix)
  content.set(raw, prefix.length)
  const noble = () => hmac(sha256, key, content)
  const full = () => {
    if (!verifyWebhook(secret, headers, raw, { now }).ok) throw new Error('verification failed')
  }
  if (`v1,${direct()}` !== headers['webhook-signature'])
    throw new Error('node:crypto and signWebhook disagree')
  medianMicros(3, 500, direct)
  medianMicros(3, 500, full)
  medianMicros(3, 500, noble)
  const rawRuns: number[] = []
  const nobleRuns: number[] = []
  const fullRuns: number[] = []
  for (let repeat = 0; repeat < 5; repeat++) {
    rawRuns.push(medianMicros(5, 1000, direct))
    nobleRuns.push(medianMicros(5, 1000, noble))
    fullRuns.push(medianMicros(5, 1000, full))
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const rawMicros = median(rawRuns)
  const nobleMicros = median(nobleRuns)
  const fullMicros = median(fullRuns)
  console.log(
    `verifyWebhook (1 KiB body): ${fullMicros.toFixed(2)} µs; vs @noble HMAC alone ${nobleMicros.toFixed(2)} µs ` +
      `→ ${(fullMicros / nobleMicros).toFixed(2)}x; vs node:crypto HMAC ${rawMicros.toFixed(2)} µs → ` +
      `${(fullMicros / rawMicros).toFixed(2)}x`,
  )
}
