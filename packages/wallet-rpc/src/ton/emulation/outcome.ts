/**
 * What every emulator adapter shares when it reads a trace: account keys, amounts, the failure rule, and the
 * tally of jetton and NFT moves for one wallet. toncenterAnswer.ts and tonapiAnswer.ts feed it; so does
 * the @ton/sandbox adapter in packages/devchains (through `emulationFailure`, exported).
 */
import type { TonEmulationFailure, TonEmulationResult, TonJettonChange, TonNftMove } from '../types.js'

/** The most transactions and actions an answer may hold; a longer trace is not read (and not shown in part). */
export const maxTraceEntries = 1024

/** An emulator's answer the wallet cannot read: the review says the request could not be simulated, and why. */
export class EmulationAnswerError extends Error {
  override name = 'EmulationAnswerError'
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const rawAddress = /^(-1|0):([0-9a-fA-F]{64})$/

/** An address as the emulators write it (raw, either case) as `<workchain>:<lower-case hex>`; else undefined. */
export function accountKey(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const match = rawAddress.exec(value)
  return match === null ? undefined : `${match[1]}:${match[2]!.toLowerCase()}`
}

/** A non-negative integer written as digits (toncenter) or a JSON number (tonapi), else undefined. */
export function unsignedAmount(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined
  return typeof value === 'string' && /^\d{1,78}$/.test(value) ? BigInt(value) : undefined
}

export function signedAmount(value: unknown): bigint | undefined {
  if (typeof value === 'string' && /^-\d{1,78}$/.test(value)) return -BigInt(value.slice(1))
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
  return unsignedAmount(value)
}

/** A list the answer must hold, cut at nothing: over `maxTraceEntries` the answer is not read. */
export function boundedList(value: unknown, what: string): unknown[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) throw new EmulationAnswerError(`${what} is not a list`)
  if (value.length > maxTraceEntries) {
    throw new EmulationAnswerError(`the trace holds more than ${maxTraceEntries} ${what}`)
  }
  return value
}

/** One transaction of a trace, in the terms the failure rule needs (both emulators' answers map onto it). */
export type TonTransactionSummary = {
  /** Raw `0:<hex>`. */
  account: string
  aborted: boolean
  computeSkipped: boolean
  /** Why the compute phase was skipped (`no_state`, `no_gas`…), as the emulator names it. */
  computeSkipReason?: string | undefined
  computeSuccess: boolean | undefined
  exitCode: number | undefined
  actionSuccess: boolean | undefined
  actionResultCode: number | undefined
  skippedActions: number
  /** The 32-bit opcode of the incoming internal message's body, when it has one. */
  inOpcode: number | undefined
  /** The incoming message is internal and bounceable. */
  inBounce: boolean
  /** This transaction sent the incoming coins back (its bounce phase ran). */
  bounced: boolean
}

/**
 * The compute and action phases of a transaction as both emulators write them (toncenter `compute_ph` /
 * `action`, tonapi `compute_phase` / `action_phase`: the same field names).
 */
export function phasesOf(
  compute: Record<string, unknown>,
  action: Record<string, unknown> | undefined,
  skipReason: unknown,
): Pick<
  TonTransactionSummary,
  | 'computeSkipped'
  | 'computeSkipReason'
  | 'computeSuccess'
  | 'exitCode'
  | 'actionSuccess'
  | 'actionResultCode'
  | 'skippedActions'
> {
  const skipped = unsignedAmount(action?.skipped_actions)
  return {
    computeSkipped: compute.skipped === true,
    computeSkipReason: typeof skipReason === 'string' ? skipReason.slice(0, 32) : undefined,
    computeSuccess: typeof compute.success === 'boolean' ? compute.success : undefined,
    exitCode: typeof compute.exit_code === 'number' ? compute.exit_code : undefined,
    actionSuccess: typeof action?.success === 'boolean' ? action.success : undefined,
    actionResultCode: typeof action?.result_code === 'number' ? action.result_code : undefined,
    skippedActions: skipped === undefined ? 0 : Number(skipped),
  }
}

/**
 * Opcodes whose transaction may fail without the transfer failing: the last hop of a jetton or NFT transfer.
 * A recipient wallet sent 1 nanoton with a jetton_notify cannot pay for gas, so its transaction aborts; the
 * jettons have arrived. ton-connect/kit `utils/toncenter/isFailedTrace.ts` allows for the same, and the recorded
 * `ft-sent` / `nft-sent` traces there show it.
 */
const transferEnds = new Set([
  0x7362d09c, // jetton_notify (TEP-74 transfer_notification)
  0x05138d91, // ownership_assigned (TEP-62)
  0xd53276db, // excesses
])

/**
 * The failure a transaction shows, or undefined: it aborted, its compute or action phase failed, or it
 * skipped outgoing messages (a send the balance could not pay). Two kinds are not failures:
 * - the end of a jetton or NFT transfer (`transferEnds` above);
 * - a plain transfer (no body or a text comment, not bounceable) to an account that runs no code for it
 *   (not deployed yet, or too few coins to pay for gas): its compute phase is skipped and the transaction
 *   counts as aborted, but the coins are credited, which is what the sender asked for.
 */
export function emulationFailure(tx: TonTransactionSummary): TonEmulationFailure | undefined {
  const computeFailed = tx.computeSuccess === false && !tx.computeSkipped
  const actionFailed = tx.actionSuccess === false
  if (!tx.aborted && !computeFailed && !actionFailed && tx.skippedActions <= 0) return undefined
  if (tx.inOpcode !== undefined && transferEnds.has(tx.inOpcode)) return undefined
  const plainTransfer = tx.inOpcode === undefined || tx.inOpcode === 0
  if (tx.computeSkipped && !tx.inBounce && plainTransfer && !actionFailed && tx.skippedActions <= 0) {
    return undefined
  }
  let reason: string
  let exitCode: number | undefined
  if (computeFailed) {
    exitCode = tx.exitCode
    reason = 'compute phase failed'
  } else if (tx.computeSkipped) {
    reason = `compute phase skipped${tx.computeSkipReason === undefined ? '' : ` (${tx.computeSkipReason})`}`
  } else if (actionFailed) {
    exitCode = tx.actionResultCode
    reason = 'action phase failed'
  } else if (tx.skippedActions > 0) {
    reason = `${tx.skippedActions} outgoing message${tx.skippedActions === 1 ? '' : 's'} not sent (action phase)`
  } else {
    reason = 'transaction aborted'
  }
  return { account: tx.account, exitCode, bounced: tx.bounced, reason }
}

/** A 32-bit opcode written `0x…` (both emulators), else undefined. */
export function opcodeOf(value: unknown): number | undefined {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{1,8}$/.test(value)
    ? Number.parseInt(value, 16)
    : undefined
}

/** The jetton and NFT moves of one wallet, collected action by action. */
export class WalletTally {
  private readonly jettons = new Map<string, bigint>()
  private readonly metadata = new Map<string, { symbol: string | undefined; decimals: number | undefined }>()
  private readonly nfts = new Map<string, TonNftMove>()
  private readonly unread = new Set<string>()
  readonly failures: TonEmulationFailure[] = []

  constructor(readonly wallet: string) {}

  /** `amount` base units of `master` from `from` to `to` (raw keys); only the wallet's side counts. */
  jetton(master: string | undefined, from: string | undefined, to: string | undefined, amount: bigint): void {
    if (master === undefined || from === to) return
    const sign = from === this.wallet ? -1n : to === this.wallet ? 1n : 0n
    if (sign === 0n) return
    this.jettons.set(master, (this.jettons.get(master) ?? 0n) + sign * amount)
  }

  /** What the emulator says about a master; the first answer is kept. */
  jettonMetadata(master: string, symbol: string | undefined, decimals: number | undefined): void {
    if (!this.metadata.has(master)) this.metadata.set(master, { symbol, decimals })
  }

  nft(
    item: string | undefined,
    from: string | undefined,
    to: string | undefined,
    collection: string | undefined,
    index: string | undefined,
  ): void {
    if (item === undefined || from === to) return
    const direction = from === this.wallet ? 'out' : to === this.wallet ? 'in' : undefined
    if (direction === undefined) return
    const earlier = this.nfts.get(item)
    // Out and back in (or the reverse) in one trace leaves the wallet as it was.
    if (earlier !== undefined && earlier.direction !== direction) this.nfts.delete(item)
    else this.nfts.set(item, { item, collection, index, direction })
  }

  /** An action involving the wallet whose jetton or NFT moves this reader does not break down. */
  notRead(kind: string): void {
    this.unread.add(kind)
  }

  failure(failure: TonEmulationFailure): void {
    if (this.failures.length < maxTraceEntries) this.failures.push(failure)
  }

  result(emulator: string, ton: bigint, incomplete: boolean): TonEmulationResult {
    const jettons: TonJettonChange[] = []
    for (const [master, amount] of this.jettons) {
      if (amount === 0n) continue
      const known = this.metadata.get(master)
      jettons.push({ master, amount, symbol: known?.symbol, decimals: known?.decimals })
    }
    return {
      emulator,
      ton,
      jettons,
      nfts: [...this.nfts.values()],
      failures: this.failures,
      ...(incomplete ? { incomplete } : {}),
      ...(this.unread.size > 0 ? { unreadActions: [...this.unread].sort() } : {}),
    }
  }
}

/** Decimals as a jetton reports them (TEP-64 allows 0 to 255), else undefined. */
export function decimalsOf(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value
  return typeof number === 'number' && Number.isInteger(number) && number >= 0 && number <= 255
    ? number
    : undefined
}

/** A symbol as reported, when it is a non-empty string; the review shows it through `printableLine`. */
export function symbolOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined
}

/** True when any string inside `value` (objects and lists, a few levels deep) is the wallet's raw key. */
export function mentions(value: unknown, wallet: string, depth = 3): boolean {
  if (typeof value === 'string') return accountKey(value) === wallet
  if (depth === 0 || typeof value !== 'object' || value === null) return false
  const entries = Array.isArray(value) ? value.slice(0, 64) : Object.values(value).slice(0, 64)
  return entries.some((entry) => mentions(entry, wallet, depth - 1))
}
