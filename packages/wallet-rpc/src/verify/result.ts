import { VerifyFailure } from '../checks/failure.js'

export { fail, VerifyFailure } from '../checks/failure.js'

/** What every verifier answers. `reason` says, in one line, why an answer did not verify. */
export type VerifyResult = { valid: true } | { valid: false; reason: string }

export const verified: VerifyResult = Object.freeze({ valid: true })

export function invalid(reason: string): VerifyResult {
  return { valid: false, reason }
}

/** Runs a check that throws on the first failure; never throws itself. */
export function guarded(check: () => void): VerifyResult {
  try {
    check()
    return verified
  } catch (error) {
    if (error instanceof VerifyFailure) return invalid(error.message)
    const message = error instanceof Error ? error.message.split('\n')[0] : 'unreadable input'
    return invalid(`malformed input: ${message}`)
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
