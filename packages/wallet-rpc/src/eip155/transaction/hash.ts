import type { Hex } from 'viem'
import { ProviderError } from '../../core/errors.js'
import { keccak256 } from '../viemUtils.js'

/**
 * keccak256 of the raw transaction, after checking that the hash the provider reported for its broadcast
 * is that same hash: a provider that rewrote or substituted the transaction is caught.
 */
export function checkedHash(raw: Hex, returned: unknown): Hex {
  const expected = keccak256(raw)
  if (typeof returned !== 'string' || returned.toLowerCase() !== expected) {
    throw new ProviderError(`provider returned hash ${String(returned)}, expected ${expected}`)
  }
  return expected
}

// Review
