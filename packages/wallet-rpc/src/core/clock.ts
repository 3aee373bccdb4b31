/** Milliseconds since the Unix epoch. Injected everywhere time matters so tests and the CLI's `--now` are reproducible. */
export type Clock = () => number

export const systemClock: Clock = () => Date.now()

/** A clock frozen at `unixSeconds`, for reproducible outputs (`wallet-rpc handle --now`). */
export function fixedClock(unixSeconds: number): Clock {
  return () => unixSeconds * 1000
}
