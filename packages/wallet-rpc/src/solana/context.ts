import { UnauthorizedError } from '../core/errors.js'
import { addressOf } from './encoding.js'
import type { SolanaSigner } from './keys.js'
import type { SolanaChainProvider } from './provider.js'

export type SolanaPolicy = {
  /** Most transactions one `solana_signAllTransactions` may carry. Default 50. */
  maxTransactions?: number
}

/** What every solana method shares: the accounts, the chains' providers, the policy. */
export type SolanaWallet = {
  /** base58 address → signer, in the order the keys were given. */
  signers: ReadonlyMap<string, SolanaSigner>
  providers: Partial<Record<string, SolanaChainProvider>>
  maxTransactions: number
}

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
