/**
 * Thrown inside a check to stop with a reason. `wallet-rpc/verify` turns it into `{ valid: false, reason }`
 * (`guarded`); bip122's final-bytes check turns it into a refusal.
 */
export class VerifyFailure extends Error {
  override name = 'VerifyFailure'
}

export function fail(reason: string): never {
  throw new VerifyFailure(reason)
}
