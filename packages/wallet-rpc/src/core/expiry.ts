import type { Clock } from './clock.js'
import type { Envelope } from './envelope.js'
import { RequestExpiredError } from './errors.js'

/** setTimeout's largest delay; a later expiry is as good as none for a pending approval. */
const maxTimerMs = 2 ** 31 - 1

/**
 * The approval, or 8000 once the request's expiry (WalletKit's `expiryTimestamp`) passes while the wallet is
 * still asking: a dapp stops waiting then, so the wallet must too. An approval that arrives later is ignored,
 * and the check after approval refuses one that raced the timer.
 */
export function untilExpiry<T>(
  envelope: Pick<Envelope, 'expiresAtMs'>,
  clock: Clock,
  ask: () => T | Promise<T>,
): T | Promise<T> {
  const remaining =
    envelope.expiresAtMs === undefined ? Number.POSITIVE_INFINITY : envelope.expiresAtMs - clock()
  if (remaining > maxTimerMs) return ask()
  return raceExpiry(remaining, ask)
}

async function raceExpiry<T>(remaining: number, ask: () => T | Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RequestExpiredError()), Math.max(0, remaining))
  })
  try {
    return await Promise.race([Promise.resolve().then(ask), expired])
  } finally {
    clearTimeout(timer)
  }
}

export function refuseIfExpired(envelope: Pick<Envelope, 'expiresAtMs'>, clock: Clock): void {
  if (envelope.expiresAtMs !== undefined && envelope.expiresAtMs <= clock()) throw new RequestExpiredError()
}
