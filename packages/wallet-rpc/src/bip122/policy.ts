import { defaultPsbtLimits, type PsbtLimits } from './psbt/decode.js'

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
}

export type ResolvedPolicy = Required<Omit<Bip122Policy, 'maxFeeSats' | 'psbtLimits'>> & {
  maxFeeSats: number | undefined
  psbtLimits: PsbtLimits
}

export function resolvePolicy(policy: Bip122Policy | undefined): ResolvedPolicy {
  return {
    maxFeeRate: policy?.maxFeeRate ?? 1000,
    maxFeeSats: policy?.maxFeeSats,
    psbtLimits: { ...defaultPsbtLimits, ...policy?.psbtLimits },
    confirmationTarget: policy?.confirmationTarget ?? 3,
    reservationMs: policy?.reservationMs ?? 2 * 60_000,
  }
}

export const sighashNames: Readonly<Record<number, string>> = {
  0: 'DEFAULT',
  1: 'ALL',
  2: 'NONE',
  3: 'SINGLE',
  129: 'ALL|ANYONECANPAY',
  130: 'NONE|ANYONECANPAY',
  131: 'SINGLE|ANYONECANPAY',
}

/** `0.00012345 BTC (12345 sat)`. */
export function formatSats(sats: bigint): string {
  const negative = sats < 0n
  const abs = negative ? -sats : sats
  const whole = abs / 100_000_000n
  const fraction = (abs % 100_000_000n).toString().padStart(8, '0')
  return `${negative ? '-' : ''}${whole}.${fraction} BTC (${sats} sat)`
}

export function formatFeeRate(fee: bigint, vsize: number): string {
  return `${(Number(fee) / vsize).toFixed(2)} sat/vB`
}
