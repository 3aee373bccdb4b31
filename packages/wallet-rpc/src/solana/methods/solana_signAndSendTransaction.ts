import * as v from 'valibot'
import { MethodNotSupportedError, PolicyRefusedError, ProviderError } from '../../core/errors.js'
import type { JsonValue } from '../../core/journal.js'
import { defineMethod } from '../../core/namespace.js'
import { readProvider } from '../../core/readProvider.js'
import type { SolanaWallet } from '../context.js'
import { transactionEffects } from '../effects.js'
import { decodeBase64, encodeBase58, encodeBase64 } from '../encoding.js'
import type { SendOptions, SolanaChainProvider } from '../provider.js'
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
export const solana_signAndSendTransaction = (wallet: SolanaWallet) => {
  return defineMethod({
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
        effects: transactionEffects(context.chainId, prepared, chain?.resolved),
      }
    },
    async execute(context, plan: Plan, journal): Promise<SolanaSignAndSendTransactionResult> {
      const { signed } = await signPrepared(wallet, plan.prepared)
      const recorded: SignedTransaction = {
        transaction: encodeBase64(encodeTransaction(signed)),
        signature: encodeBase58(signed.signatures[0]!),
        options: plan.options,
      }
      await journal.signed(recorded, [recorded.signature])
      const answer = await sendChecked(wallet.providers[context.chainId]!, recorded)
      await journal.broadcast(answer)
      return answer
    },

    sends: {
      async resend(context, stored): Promise<SolanaSignAndSendTransactionResult> {
        const recorded = readRecorded(stored)
        const provider = providerOf(context.chainId)
        try {
          // With preflight whatever the dapp asked: without it a node answers the signature of a transaction
          // whose blockhash expired while the wallet was down, which can never land.
          return await sendChecked(provider, {
            ...recorded,
            options: { ...recorded.options, skipPreflight: false },
          })
        } catch (error) {
          // Refused because the node already processed it ("already processed"): sent, once.
          const known = await provider.transactionKnown?.(recorded.signature).catch(() => false)
          if (known === true) return { signature: recorded.signature }
          throw error
        }
      },
      // A signature the node has not seen may still land (a blockhash or durable nonce still valid): only a seen
      // one is an answer; this never says "not there".
      async known(context, stored): Promise<SolanaSignAndSendTransactionResult> {
        const recorded = readRecorded(stored)
        if ((await providerOf(context.chainId).transactionKnown?.(recorded.signature)) === true)
          return { signature: recorded.signature }
        throw new ProviderError(`the node has not seen transaction ${recorded.signature} yet`)
      },
    },
  })

  function providerOf(chainId: string): SolanaChainProvider {
    const provider = wallet.providers[chainId]
    if (provider === undefined)
      throw new MethodNotSupportedError('solana_signAndSendTransaction', {
        details: `no provider for ${chainId}`,
      })
    return provider
  }
}

// As JSON, the record has no undefined members: the schema's optional fields are absent, not undefined.
const readRecorded = (stored: JsonValue) => v.parse(signedTransactionSchema, stored) as SignedTransaction

/** What the request journal records before the broadcast: the signed transaction and its id (first signature). */
const signedTransactionSchema = v.object({
  transaction: v.pipe(v.string(), v.base64()),
  signature: v.pipe(v.string(), v.regex(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)),
  options: v.object({
    skipPreflight: v.optional(v.boolean()),
    preflightCommitment: v.optional(commitment),
    minContextSlot: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  }),
})

type SignedTransaction = { transaction: string; signature: string; options: SendOptions }

/** Broadcasts once; the node must report the transaction's own first signature. */
async function sendChecked(
  provider: SolanaChainProvider,
  recorded: SignedTransaction,
): Promise<SolanaSignAndSendTransactionResult> {
  const bytes = decodeBase64(recorded.transaction, 'transaction')
  const reported = await readProvider('sendTransaction', () => provider.send(bytes, recorded.options))
  if (reported !== recorded.signature) {
    throw new ProviderError(
      `the node reported signature ${reported}, but the transaction's is ${recorded.signature}`,
    )
  }
  return { signature: recorded.signature }
}
