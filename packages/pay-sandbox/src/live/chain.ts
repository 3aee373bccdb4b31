import type { Route } from '../model.js'
import type { Treasury } from './treasury.js'

/** Why a payment's transaction does not pay it. */
export type Failure = { reason: string }

/** A settlement transfer signed by the treasury: the bytes to broadcast (hex or base64) and their id. */
export type SignedTransfer = { wire: string; txHash: string }

/** What every chain of live mode is given: the treasury, its limits, where to report, whether to stop. */
export type LiveChainOptions = {
  treasury: Treasury
  /** How long confirm's transaction (or a settlement) may take to be mined. */
  confirmTimeoutMs: number
  /** Limit on every single chain call. */
  rpcTimeoutMs: number
  /** Receipt / status polling interval. */
  pollMs: number
  log: (line: string) => void
  /** True once the engine stopped: polling ends early. */
  stopped: () => boolean
}

/**
 * One chain family of live mode (EVM, Solana): it judges a payment's transaction and moves the treasury's
 * settlements. The engine keeps everything chain-neutral (one transfer pays one payment, settlement queues,
 * the journal); a chain only talks to its nodes.
 */
export interface LiveChain<R extends Route> {
  /** Undefined when the transaction paid the route exactly; else why not. */
  check(route: R, hash: string): Promise<Failure | undefined>
  /** Whether a merchant's settlement asset is the route's (address case rules differ per chain). */
  sameAsset(route: R, asset: string): boolean
  /** The treasury's transfer of `amount` (token units) to `destination` (the CAIP-10 account part). */
  signTransfer(route: R, destination: string, amount: bigint): Promise<SignedTransfer>
  /** Broadcasts (again, after a restart) and waits: true once mined, 'pending' when not yet, or why it failed. */
  broadcast(route: R, transfer: SignedTransfer): Promise<true | 'pending' | string>
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())

/** The first line of an error's message: node errors carry pages of request details after it. */
export const firstLine = (error: unknown) => (error as Error).message.split('\n')[0]
