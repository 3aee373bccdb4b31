import * as v from 'valibot'
import type { Address, Hex } from 'viem'
import type { JsonValue } from '../../core/journal.js'
import type { RequestContext } from '../../core/namespace.js'
import { accessOf, chainOf, type Eip155Env, nonceKey } from '../env.js'
import type { ChainAccess } from '../provider.js'
import { keccak256 } from '../viemUtils.js'
import { checkedHash } from './hash.js'

/**
 * What an eip155 method records in the request journal before it broadcasts (core/journal.ts): each signed
 * transaction in sending order, with the account and nonces the wallet's nonce manager must hold when the
 * transactions are sent again after a restart. `extra` is the method's own (a batch's record).
 */
export type SignedTransactions = {
  chainId: number
  transactions: SignedTransaction[]
  extra?: JsonValue
}

export type SignedTransaction = {
  raw: Hex
  from: Address
  nonce: number
  /** A self-sponsored EIP-7702 transaction's authorization nonce (the transaction's + 1). */
  authorizationNonce?: number
  /** Sent by an account the wallet holds: its nonces are the manager's to hold. */
  ours: boolean
}

const hex = v.pipe(v.string(), v.regex(/^0x(?:[0-9a-fA-F]{2})+$/))
const nonce = v.pipe(v.number(), v.safeInteger(), v.minValue(0))
const signedTransactionsSchema = v.object({
  chainId: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  transactions: v.pipe(
    v.array(
      v.object({
        raw: hex,
        from: v.pipe(v.string(), v.regex(/^0x[0-9a-fA-F]{40}$/)),
        nonce,
        authorizationNonce: v.optional(nonce),
        ours: v.boolean(),
      }),
    ),
    v.minLength(1),
  ),
  extra: v.optional(v.unknown()),
})

/** The journal's replay of a method that sends one transaction and answers its hash. */
export function oneTransactionSends(env: Eip155Env) {
  return {
    async resend(context: RequestContext, signed: JsonValue): Promise<Hex> {
      const access = accessOf(chainOf(env, context))
      const [hash] = await resendTransactions(env, access, readSignedTransactions(signed))
      return hash!
    },
    async known(context: RequestContext, signed: JsonValue): Promise<Hex | undefined> {
      const access = accessOf(chainOf(env, context))
      return (await knownTransactions(env, access, readSignedTransactions(signed)))?.[0]
    },
  }
}

/** The record as the journal kept it; a record another version wrote in another shape is not sent. */
export function readSignedTransactions(signed: JsonValue): SignedTransactions {
  return v.parse(signedTransactionsSchema, signed) as SignedTransactions
}

/**
 * Sends the recorded transactions again, in order, stopping at the first the node neither accepts nor knows.
 * A node that refuses a transaction it already has ("already known", "nonce too low" once it is mined) but
 * finds it by hash counts it as sent. Our nonces are held as broadcast, as after a first send. Returns the
 * hashes sent (at least the first, else it throws the first transaction's failure).
 */
export async function resendTransactions(
  env: Eip155Env,
  access: ChainAccess,
  signed: SignedTransactions,
): Promise<Hex[]> {
  const hashes: Hex[] = []
  for (const transaction of signed.transactions) {
    let hash: Hex
    try {
      hash = await resendRaw(access, transaction.raw)
    } catch (error) {
      if (hashes.length === 0) throw error
      break
    }
    observe(env, signed.chainId, transaction)
    hashes.push(hash)
  }
  return hashes
}

/**
 * The hashes of the recorded transactions the node has (pending or mined), in order, up to the first it has
 * not; undefined when it has not the first. Our nonces are held as broadcast for those it has. Throws when the
 * node cannot be asked.
 */
export async function knownTransactions(
  env: Eip155Env,
  access: ChainAccess,
  signed: SignedTransactions,
): Promise<Hex[] | undefined> {
  const hashes: Hex[] = []
  for (const transaction of signed.transactions) {
    const hash = keccak256(transaction.raw)
    if (!(await access.knowsTransaction(hash))) break
    observe(env, signed.chainId, transaction)
    hashes.push(hash)
  }
  return hashes.length === 0 ? undefined : hashes
}

function observe(env: Eip155Env, chainId: number, transaction: SignedTransaction): void {
  if (transaction.ours)
    env.nonces.observe(nonceKey(chainId, transaction.from), transaction.nonce, transaction.authorizationNonce)
}

async function resendRaw(access: ChainAccess, raw: Hex): Promise<Hex> {
  try {
    return checkedHash(raw, await access.sendRawTransaction(raw))
  } catch (error) {
    const hash = keccak256(raw)
    if (await access.knowsTransaction(hash).catch(() => false)) return hash
    throw error
  }
}
