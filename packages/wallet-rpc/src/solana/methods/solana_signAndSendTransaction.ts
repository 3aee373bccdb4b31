import { equalBytes } from '@noble/curves/utils.js'
import * as v from 'valibot'
import { MethodNotSupportedError, PolicyRefusedError, ProviderError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { readProvider } from '../../core/readProvider.js'
import type { SolanaWallet } from '../context.js'
import { decodeBase58, encodeBase58 } from '../encoding.js'
import type { SendOptions } from '../provider.js'
import { type PreparedTransaction, prepareTransaction, signPrepared, transactionFields } from '../request.js'
import { transactionReview } from '../review.js'
import { chainFacts } from '../simulation.js'
import { encodeTransaction } from '../transaction.js'

const commitment = v.picklist(['processed', 'confirmed', 'finalized'])

/** `{ transaction, sendOptions? }` (plus AppKit's optional legacy copy). */
export const solanaSignAndSendTransactionParams = v.looseObject({
  ...transactionFields,
  sendOptions: v.optional(
    v.looseObject({
      skipPreflight: v.optional(v.boolean()),
      preflightCommitment: v.optional(commitment),
      // Accepted for compatibility and ignored: this wallet never retries a broadcast.
      maxRetries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      minContextSlot: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    }),
  ),
})

export type SolanaSignAndSendTransactionResult = { signature: string }

type Plan = { prepared: PreparedTransaction; options: SendOptions }

/**
 * `solana_signAndSendTransaction` → `{ signature }`: signs, broadcasts once (no retry, `maxRetries: 0`), and
 * checks that the node reports the transaction's first signature, its id. Every signature must be present
 * after ours: a transaction still missing a co-signer would only fail on chain.
 */
export const solana_signAndSendTransaction = (wallet: SolanaWallet) =>
  defineMethod({
    params: solanaSignAndSendTransactionParams,
    async plan(context, params) {
      if (wallet.providers[context.chainId] === undefined) {
        throw new MethodNotSupportedError('solana_signAndSendTransaction', {
          details: `no provider for ${context.chainId}`,
        })
      }
      const prepared = prepareTransaction(wallet, params, '')
      const { message } = prepared.transaction
      prepared.transaction.signatures.forEach((signature, slot) => {
        if (!prepared.ourSlots.some((ours) => ours.slot === slot) && signature.every((byte) => byte === 0)) {
          throw new PolicyRefusedError(
            `signer ${encodeBase58(message.staticAccountKeys[slot]!)} has not signed; the transaction cannot be sent`,
            { rule: 'solana.missing_signature' },
          )
        }
      })
      const chain = await chainFacts(context, wallet, prepared)
      const { skipPreflight, preflightCommitment, minContextSlot } = params.sendOptions ?? {}
      const options: SendOptions = {
        ...(skipPreflight === undefined ? {} : { skipPreflight }),
        ...(preflightCommitment === undefined ? {} : { preflightCommitment }),
        ...(minContextSlot === undefined ? {} : { minContextSlot }),
      }
      return {
        review: transactionReview(context, wallet, prepared, 'Send transaction', chain),
        plan: { prepared, options } satisfies Plan,
      }
    },
    async execute(context, plan: Plan): Promise<SolanaSignAndSendTransactionResult> {
      const provider = wallet.providers[context.chainId]!
      const { signed } = await signPrepared(wallet, plan.prepared)
      const bytes = encodeTransaction(signed)
      const expected = signed.signatures[0]!
      const reported = await readProvider('sendTransaction', () => provider.send(bytes, plan.options))
      let matches = false
      try {
        matches = equalBytes(decodeBase58(reported, 'signature'), expected)
      } catch {
        matches = false
      }
      if (!matches) {
        throw new ProviderError(
          `the node reported signature ${reported}, but the transaction's is ${encodeBase58(expected)}`,
        )
      }
      return { signature: encodeBase58(expected) }
    },
  })
