import * as v from 'valibot'
import { ProviderError, WalletRpcError } from '../../core/errors.js'
import type { JsonValue } from '../../core/journal.js'
import { verifiedTransaction } from '../providers/previousOutputs.js'
import type { ChainProvider } from '../types.js'
import { fromHex } from './bytes.js'

/**
 * Sends a signed transaction exactly once (never retried: a retry after a timeout could be a second
 * broadcast the wallet cannot account for) and checks that the provider echoes the txid we computed.
 * Every failure is a ProviderError (-32603) carrying the provider's reason.
 */
export async function broadcastOnce(
  provider: ChainProvider,
  raw: Uint8Array,
  expectedTxid: string,
): Promise<string> {
  let reported: string
  try {
    reported = await provider.broadcast(raw)
  } catch (error) {
    if (error instanceof WalletRpcError) throw error
    throw new ProviderError(`broadcast failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    })
  }
  if (typeof reported !== 'string' || reported.trim().toLowerCase() !== expectedTxid) {
    throw new ProviderError(
      `provider reported txid ${String(reported).slice(0, 80)}, expected ${expectedTxid}`,
    )
  }
  return expectedTxid
}

/**
 * What a bip122 method records in the request journal before it broadcasts (core/journal.ts): the signed
 * transaction, its txid, and the answer's PSBT when the method answers one.
 */
const signedSchema = v.object({
  raw: v.pipe(v.string(), v.regex(/^(?:[0-9a-f]{2})+$/)),
  txid: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  psbt: v.optional(v.string()),
})

export type SignedBitcoinTransaction = v.InferOutput<typeof signedSchema>

/** The record as the journal kept it; a record of another shape is not sent. */
export function readSignedTransaction(signed: JsonValue): SignedBitcoinTransaction {
  return v.parse(signedSchema, signed)
}

/**
 * Sends a recorded transaction again (a repeat of the request after a crash or a lost answer): accepted, or
 * refused while the provider serves it by its txid (in the mempool or mined: "already known") → its txid.
 */
export async function broadcastAgain(
  provider: ChainProvider,
  signed: SignedBitcoinTransaction,
): Promise<string> {
  try {
    return await broadcastOnce(provider, fromHex(signed.raw), signed.txid)
  } catch (error) {
    const known = await verifiedTransaction(provider, signed.txid).then(
      () => true,
      () => false,
    )
    if (known) return signed.txid
    throw error
  }
}
