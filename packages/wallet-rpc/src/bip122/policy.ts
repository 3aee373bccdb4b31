/** What protects a coin from being spent by accident (`policy.assets.spend` lists the kinds a wallet allows). */
export type AssetKind = 'inscriptions' | 'runes' | 'rareSats' | 'unknown'

/**
 * What a wallet decides about bip122 signing and sending. Every field has a safe default.
 * Dangerous sighash types (SIGHASH_NONE, NONE|ANYONECANPAY) are not configured here: they raise the
 * `danger` review warning `psbt.sighash_none`, which the router refuses unless the wallet lists that code
 * in `createWalletRpc({ policy: { allowDangerous } })`.
 */
export type Bip122Policy = {
  /** Refuse when the fee rate exceeds this, sat/vB. Default 1000 (bitcoinjs-lib refuses at 5000). */
  maxFeeRate?: number
  /** Refuse when the fee exceeds this many satoshis. Default: no absolute cap. */
  maxFeeSats?: number
  /** PSBT size and count caps. */
  psbtLimits?: Partial<PsbtLimits>
  /** sendTransfer: confirmation target (blocks) whose fee estimate is used. Default 3. */
  confirmationTarget?: number
  /**
   * How long coins picked for a transfer stay reserved awaiting approval. Default 2 min. A declined
   * transfer gives them back at once; an approval slower than this still succeeds unless another transfer
   * took the coins meanwhile.
   */
  reservationMs?: number
  /**
   * With a chain's `assets` provider (`ordServer()`): coins carrying inscriptions, runes or rare sats, and coins
   * the index does not know, are never spent by accident.
   */
  assets?: {
    /**
     * sendTransfer may spend coins of these kinds, after every clean coin, saying in the review where their
     * inscriptions, rare sats and runes go. Default none: such coins are held back.
     */
    spend?: readonly AssetKind[]
    /** signPsbt: an input the wallet signs whose contents are unknown is `danger` (refused unless allowed), not `caution`. */
    strict?: boolean
  }
}

/** The PSBT caps `decodePsbt` applies (defaults below); part of the policy a wallet may tighten. */
export type PsbtLimits = {
  /** Largest decoded PSBT accepted, bytes. Default 4 MiB (the router's params cap is about the same). */
  maxBytes: number
  /** Most inputs, and most outputs, accepted. Default 5000 each. */
  maxInputs: number
  maxOutputs: number
}

export const defaultPsbtLimits: PsbtLimits = { maxBytes: 4 * 1024 * 1024, maxInputs: 5000, maxOutputs: 5000 }

export type ResolvedPolicy = Required<Omit<Bip122Policy, 'maxFeeSats' | 'psbtLimits' | 'assets'>> & {
  maxFeeSats: number | undefined
  psbtLimits: PsbtLimits
  assets: { spend: readonly AssetKind[]; strict: boolean }
}

export function resolvePolicy(policy: Bip122Policy | undefined): ResolvedPolicy {
  return {
    maxFeeRate: policy?.maxFeeRate ?? 1000,
    maxFeeSats: policy?.maxFeeSats,
    psbtLimits: { ...defaultPsbtLimits, ...policy?.psbtLimits },
    confirmationTarget: policy?.confirmationTarget ?? 3,
    reservationMs: policy?.reservationMs ?? 2 * 60_000,
    assets: { spend: policy?.assets?.spend ?? [], strict: policy?.assets?.strict ?? false },
  }
}
