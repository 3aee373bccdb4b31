import * as v from 'valibot'
import type { Hex } from 'viem'
import { defineMethod } from '../../core/namespace.js'
import { accessOf, chainOf, type Eip155Env, nonceKey, signerOf } from '../env.js'
import {
  broadcastChecked,
  checkedHash,
  planTransaction,
  reviewTransaction,
  signDraft,
  type TransactionDraft,
  transactionRequestSchema,
} from '../transaction.js'

/** `eth_sendTransaction [tx]`: fill, review, sign, broadcast once, return the checked hash. */
export const sendTransactionParams = v.strictTuple([transactionRequestSchema])

export const sendTransaction = (env: Eip155Env) =>
  defineMethod({
    params: sendTransactionParams,
    async plan(context, [request]) {
      const chain = chainOf(env, context)
      const draft = await planTransaction(env, chain, context, request)
      // Sending needs the chain even when the dapp filled every field.
      accessOf(chain)
      return { review: await reviewTransaction('Send transaction', chain, draft), plan: draft }
    },
    async execute(context, draft: TransactionDraft): Promise<Hex> {
      const access = accessOf(chainOf(env, context))
      const signer = await signerOf(env, draft.from)
      const key = nonceKey(draft.chainId, draft.from)
      if (draft.nonce !== undefined) {
        const hash = await broadcastChecked(access, await signDraft(signer, draft, draft.nonce))
        env.nonces.observe(key, draft.nonce)
        return hash
      }
      // The nonce is reserved only now, after approval: a rejected request leaves no gap.
      const reservation = await env.nonces.reserve(key, () => access.pendingNonce(draft.from))
      let raw: Hex
      try {
        raw = await signDraft(signer, draft, reservation.nonce)
      } catch (error) {
        reservation.settle(false)
        throw error
      }
      let returned: Hex
      try {
        returned = await access.sendRawTransaction(raw)
      } catch (error) {
        reservation.settle(false)
        throw error
      }
      // The provider accepted something with this nonce, so it counts as used even if the hash is wrong.
      reservation.settle(true)
      return checkedHash(raw, returned)
    },
  })
