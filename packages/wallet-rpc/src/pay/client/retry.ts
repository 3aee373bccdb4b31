/**
 * Back-off for gateway calls (spec, Gateway API rule 9, and Limits: "3, from 100 ms, doubling, with jitter").
 * Retry n (0-based) waits `initialDelayMs * 2^n` plus a jitter drawn uniformly from `[0, initialDelayMs)`,
 * so with `random = () => 0` the waits are exactly 100, 200, 400 ms.
 */
export type RetryOptions = {
  /** Retries after the first attempt. Default 3. */
  retries: number
  /** First back-off. Default 100 ms. */
  initialDelayMs: number
}

export const defaultRetry: RetryOptions = { retries: 3, initialDelayMs: 100 }

export function backoffDelayMs(retry: number, options: RetryOptions, random: () => number): number {
  const jitter = Math.floor(Math.min(Math.max(random(), 0), 0.999_999) * options.initialDelayMs)
  return options.initialDelayMs * 2 ** retry + jitter
}

/** Only 5xx answers are retried; every 4xx (including 409 and 410) is final for that call. */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 && status <= 599
}
