import { defineMethod } from '../../core/namespace.js'
import type { SolanaWallet } from '../context.js'
import { transactionEffects } from '../effects.js'
import { encodeBase58 } from '../encoding.js'
import {
  encodeSigned,
  type PreparedTransaction,
  prepareTransaction,
  signPrepared,
  transactionParams,
} from '../request.js'
import { transactionReview } from '../review.js'
import { chainFacts } from '../simulation.js'

/** `{ transaction, pubkey?, feePayer?, recentBlockhash?, instructions? }`: the last three AppKit's legacy copy. */
export const solanaSignTransactionParams = transactionParams

/**
 * `{ signature, transaction }`: the signature of the requested (or our first) signer in base58, which AppKit
 * reads first, and the whole signed transaction in the encoding it came in (base64 per the reference).
 */
export type SolanaSignTransactionResult = { signature: string; transaction: string }

/** `solana_signTransaction`: fills our signer slots, keeps the others, does not broadcast. */
export const solana_signTransaction = (wallet: SolanaWallet) =>
  defineMethod({
    params: solanaSignTransactionParams,
    async plan(context, params) {
      const prepared = prepareTransaction(wallet, params, '')
      const pending = chainFacts(context, wallet, prepared)
      const chain = pending === undefined ? undefined : await pending
      return {
        review: transactionReview(context, wallet, prepared, 'Sign transaction', chain),
        plan: prepared,
        effects: transactionEffects(context.chainId, prepared, chain?.resolved),
      }
    },
    async execute(_context, prepared: PreparedTransaction): Promise<SolanaSignTransactionResult> {
      const { signed, signature } = await signPrepared(wallet, prepared)
      return { signature: encodeBase58(signature), transaction: encodeSigned(prepared, signed) }
    },
  })
