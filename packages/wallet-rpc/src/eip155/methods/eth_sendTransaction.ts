import * as v from 'valibot'
import type { Hex } from 'viem'
import { defineMethod } from '../../core/namespace.js'
import { accessOf, chainOf, type Eip155Env, nonceKey, signerOf } from '../env.js'
import { checkedHash } from '../transaction/hash.js'
import { withNonce } from '../transaction/nonce.js'
import { planTransactionRequest } from '../transaction/plan.js'
import { type TransactionDraft, transactionRequestSchema } from '../transaction/request.js'
import { oneTransactionSends, type SignedTransactions } from '../transaction/resend.js'
import { signDraft } from '../transaction/sign.js'
import { keccak256 } from '../viemUtils.js'

/**
 * `eth_sendTransaction [tx]`: fill, review, sign, record the signed transaction in the request journal,
 * broadcast once, return the checked hash. A repeat of the request sends the recorded bytes again.
 */
export const sendTransactionParams = v.strictTuple([transactionRequestSchema])

export const sendTransaction = (env: Eip155Env) =>
  defineMethod({
    params: sendTransactionParams,
    plan: (context, [request]) =>
      planTransactionRequest(env, context, request, { title: 'Send transaction', broadcasts: true }),
    async execute(context, draft: TransactionDraft, journal): Promise<Hex> {
      const access = accessOf(chainOf(env, context))
      const signer = await signerOf(env, draft.from)
      const sent = await withNonce(env, context, draft, { broadcasts: true }, async (nonce) => {
        const raw = await signDraft(signer, draft, nonce)
        const signed: SignedTransactions = {
          chainId: draft.chainId,
          transactions: [{ raw, from: draft.from, nonce, ours: true }],
        }
        await journal.signed(signed, [keccak256(raw)])
        const returned = await access.sendRawTransaction(raw)
        await journal.broadcast({ hash: returned })
        return { nonce, raw, returned }
      })
      // The provider accepted something with this nonce, so it counts as used even if the hash is wrong
      // (a no-op for a nonce the manager reserved; a dapp-given one moves the manager past it).
      env.nonces.observe(nonceKey(draft.chainId, draft.from), sent.nonce)
      return checkedHash(sent.raw, sent.returned)
    },
    sends: {
      fixed: (draft: TransactionDraft) => ({ from: draft.from, nonce: draft.nonce ?? null }),
      ...oneTransactionSends(env),
    },
  })
