import * as v from 'valibot'
import type { Address, Hex } from 'viem'
import type { JsonValue } from '../../core/journal.js'
import { type Eip155Env, nonceKey } from '../env.js'
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
    if (transaction.ours)
      env.nonces.observe(
        nonceKey(signed.chainId, transaction.from),
        transaction.nonce,
        transaction.authorizationNonce,
      )
    hashes.push(hash)
  }
  return hashes
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
