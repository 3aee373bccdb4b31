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
 * provider. A nonce it fills is the chain's next one but is not held: a raw transaction nobody broadcasts
 * must not stall the wallet's own later sends (a later send may take the same nonce; the node then refuses
 * whichever arrives second as "nonce too low").
 */
export const signTransactionParams = v.strictTuple([transactionRequestSchema])

export const signTransaction = (env: Eip155Env) =>
  defineMethod({
    params: signTransactionParams,
    plan: (context, [request]) =>
      planTransactionRequest(env, context, request, { title: 'Sign transaction', broadcasts: false }),
    async execute(context, draft: TransactionDraft): Promise<Hex> {
      const signer = await signerOf(env, draft.from)
      return withNonce(env, context, draft, { broadcasts: false }, (nonce) => signDraft(signer, draft, nonce))
    },
  })
