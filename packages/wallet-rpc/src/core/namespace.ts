import type { Clock } from './clock.js'
import type { JsonRpcErrorObject } from './errors.js'
import type { WalletEvent } from './events.js'
import type { AddressKey, AssetEffect } from './expectation.js'
import type { JournalSteps, JsonValue } from './journal.js'
import type { OriginValidation, ReviewDraft } from './review.js'
import type { Schema } from './schema.js'

/** What the router knows about one request, passed to every method. */
export type RequestContext = {
  id: string | number
  /** CAIP-2, e.g. `eip155:1`. */
  chainId: string
  /** The part after the namespace, e.g. `1` for `eip155:1`. */
  reference: string
  method: string
  /** The dapp's origin as the transport verified it (WalletConnect `verifyContext.verified.origin`). */
  origin: string | undefined
  originValidation: OriginValidation | undefined
  clock: Clock
}

/**
 * A method's plan: the review to show (null for a read that touches no key) and whatever `execute` needs.
 * Planning validates against wallet state and reads the chain; it must never touch a key.
 * `effects`: what the exact bytes it will sign or send move, decoded from them (never from a description);
 * absent when the method cannot tell. The router compares them with a caller's `expected` payment.
 */
export type Planned<Plan> = { review: ReviewDraft | null; plan: Plan; effects?: AssetEffect[] | undefined }

/**
 * One method: its params schema, its planner (validation beyond the schema, account resolution, chain
 * reads, the review) and its executor, which the router calls only after `approve` said yes.
 */
export type Method<Params, Plan, Result> = {
  params: Schema<Params>
  plan: (context: RequestContext, params: Params) => Promise<Planned<Plan>> | Planned<Plan>
  /**
   * Signs (and sends). A method that broadcasts awaits `journal.signed(…)` with the exact signed bytes before
   * the broadcast, so a repeat of the request sends those bytes again instead of signing anew (core/journal.ts).
   */
  execute: (context: RequestContext, plan: Plan, journal: JournalSteps) => Promise<Result> | Result
  /**
   * Every method that broadcasts has this: how the request journal replays it (core/journal.ts). `resend` sends
   * the bytes `execute` recorded with `journal.signed` again ("already known" counts as sent) and answers as
   * `execute` would; it never signs. `known` only looks them up: the answer when the chain has them (pending or
   * mined), undefined when it does not; it throws when the chain cannot tell. `fixed` is what the plan fixed
   * (coins, seqno), recorded with the approval for the wallet's own records.
   */
  sends?: {
    fixed?: (plan: Plan) => JsonValue
    resend: (context: RequestContext, signed: JsonValue) => Promise<Result>
    known: (context: RequestContext, signed: JsonValue) => Promise<Result | undefined>
  }
  /**
   * Called instead of `execute` when a planned request will not run (refused by policy, rejected, the
   * approval failed, or it expired meanwhile), so the plan can release what it reserved (coins, a nonce).
   */
  abandon?: (context: RequestContext, plan: Plan) => void
  /**
   * The error to answer when `approve` says no, when it is not the usual 5000 "User rejected." (EIP-5792's
   * `wallet_sendCalls` answers 5750 when the declined review asked to upgrade the account).
   */
  rejection?: (context: RequestContext, plan: Plan) => Error
}

// biome-ignore lint/suspicious/noExplicitAny: a method table holds methods of unrelated param and result types.
export type AnyMethod = Method<any, any, any>

export type MethodTable = Readonly<Record<string, AnyMethod>>

/** Identity, for inference: `defineMethod({ params, plan, execute })`. */
export function defineMethod<Params, Plan, Result>(
  method: Method<Params, Plan, Result>,
): Method<Params, Plan, Result> {
  return method
}

/** What `createWalletRpc` gives each namespace once, when the wallet is created. */
export type NamespaceHost = {
  emit: (event: WalletEvent) => void
  clock: Clock
  onError: (error: unknown) => void
}

/** A chain family plugged into the router: `bip122(...)`, `ton(...)`, `eip155(...)`. */
export type Namespace = {
  /** CAIP-2 namespace, e.g. `bip122`. */
  name: string
  /** CAIP-2 chain ids this wallet serves in the namespace. */
  chains: readonly string[]
  methods: MethodTable
  /** Session events the namespace may emit (e.g. `bip122_addressesChanged`). */
  events?: readonly string[]
  /** Account part of the CAIP-10 accounts to approve for `chainId` (bip122: only the account id). */
  accounts?: (chainId: string) => Promise<string[]>
  /**
   * Session properties this namespace contributes for a session on `chainIds` (some of its own chains;
   * all of them when not given). Values are strings, as WalletConnect requires.
   */
  sessionProperties?: (chainIds?: readonly string[]) => Promise<Record<string, string>>
  /** Called once by `createWalletRpc`. */
  attach?: (host: NamespaceHost) => void
  /** The wallet approved a session on `chainId` (the WalletKit adapter calls this). */
  announceSession?: (chainId: string) => Promise<void>
  /**
   * Rewords an error answer for this namespace's dapps, keeping its data (TON: @tonconnect/sdk reads the
   * error category from the message text; eip155 answers a refusal as EIP-1193's 4001, which ethers reads).
   */
  describeError?: (error: JsonRpcErrorObject) => JsonRpcErrorObject
  /**
   * The form in which two of this namespace's addresses name the same account, for comparing a third party's
   * description of a payment with what the request moves (TON: any TEP-2 form → raw). Default: eip155
   * case-insensitive, others exact.
   */
  addressKey?: AddressKey
  /** Stop watchers and timers. */
  close?: () => Promise<void> | void
}
