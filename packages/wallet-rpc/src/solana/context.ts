import { UnauthorizedError } from '../core/errors.js'
import { addressOf } from './encoding.js'
import type { SolanaChainProvider, SolanaPolicy, SolanaSigner, SolanaWallet } from './types.js'

export type { SolanaPolicy, SolanaWallet } from './types.js'

export function createSolanaWallet(
  keys: readonly SolanaSigner[],
  providers: Partial<Record<string, SolanaChainProvider>>,
  policy: SolanaPolicy,
): SolanaWallet {
  if (keys.length === 0) throw new TypeError('solana needs at least one key')
  const signers = new Map<string, SolanaSigner>()
  for (const signer of keys) {
    const address = addressOf(signer.publicKey)
    if (signers.has(address)) throw new TypeError(`key ${address} given twice`)
    signers.set(address, signer)
  }
  const maxTransactions = policy.maxTransactions ?? 50
  if (!Number.isInteger(maxTransactions) || maxTransactions < 1 || maxTransactions > 10_000) {
    throw new RangeError('policy.maxTransactions must be a whole number from 1 to 10000')
  }
  return { signers, providers, maxTransactions }
}

/** The signer of an address this wallet owns, or 4100. */
export function ownedSigner(wallet: SolanaWallet, address: string): SolanaSigner {
  const signer = wallet.signers.get(address)
  if (signer === undefined) throw new UnauthorizedError(address)
  return signer
}
