import * as v from 'valibot'
import type { Hex } from 'viem'
import { defineMethod } from '../../core/namespace.js'
import { type Eip155Env, signerOf } from '../env.js'
import { withNonce } from '../transaction/nonce.js'
import { planTransactionRequest } from '../transaction/plan.js'
import { type TransactionDraft, transactionRequestSchema } from '../transaction/request.js'
import { signDraft } from '../transaction/sign.js'

/**
 * `eth_signTransaction [tx]`: the same checks and fill as `eth_sendTransaction`; returns the signed raw
 * transaction without broadcasting it. With every field given (nonce, gas, fees) it needs no chain
 * provider. A nonce it fills is taken from the nonce manager, so a later `eth_sendTransaction` never
 * reuses it (if the raw transaction is never broadcast, that nonce stays a gap until it is).
 */
export const signTransactionParams = v.strictTuple([transactionRequestSchema])

export const signTransaction = (env: Eip155Env) =>
  defineMethod({
    params: signTransactionParams,
    plan: (context, [request]) =>
      planTransactionRequest(env, context, request, { title: 'Sign transaction', broadcasts: false }),
    async execute(context, draft: TransactionDraft): Promise<Hex> {
      const signer = await signerOf(env, draft.from)
      return withNonce(env, context, draft, (nonce) => signDraft(signer, draft, nonce))
    },
  })
