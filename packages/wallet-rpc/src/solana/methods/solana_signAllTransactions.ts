import * as v from 'valibot'
import { PolicyRefusedError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { group } from '../../core/review.js'
import { timeSlicer } from '../../core/yielding.js'
import type { SolanaWallet } from '../context.js'
import { encodeSigned, type PreparedTransaction, prepareTransaction, signPrepared } from '../request.js'
import { transactionReviewParts } from '../review.js'
import { chainFacts } from '../simulation.js'

/** `{ transactions: string[] }`, each base64 (or base58). */
export const solanaSignAllTransactionsParams = v.looseObject({
  transactions: v.pipe(
    v.array(v.string('must be a base64 (or base58) serialized transaction')),
    v.minLength(1, 'must hold at least one transaction'),
  ),
})

export type SolanaSignAllTransactionsResult = { transactions: string[] }

/**
 * `solana_signAllTransactions` → `{ transactions }`, signed in order, each in the encoding it came in. One
 * review lists every transaction; one approval covers all of them, and none is signed unless all are valid.
 */
export const solana_signAllTransactions = (wallet: SolanaWallet) =>
  defineMethod({
    params: solanaSignAllTransactionsParams,
    async plan(context, params) {
      if (params.transactions.length > wallet.maxTransactions) {
        throw new PolicyRefusedError(
          `${params.transactions.length} transactions in one request; this wallet signs at most ${wallet.maxTransactions}`,
          { rule: 'solana.too_many_transactions' },
        )
      }
      // Thousands of transactions: every loop gives the event loop a turn every few ms (core/yielding.ts).
      const pause = timeSlicer()
      const prepared: PreparedTransaction[] = []
      for (const [index, transaction] of params.transactions.entries()) {
        prepared.push(prepareTransaction(wallet, { transaction }, `transactions.${index}`))
        await pause()
      }
      const items = []
      const warnings = []
      for (const [index, one] of prepared.entries()) {
        await pause()
        const chain = await chainFacts(context, wallet, one)
        const parts = transactionReviewParts(context, wallet, one, chain?.resolved)
        items.push(
          group(`Transaction ${index + 1} of ${prepared.length}`, [...parts.items, ...(chain?.items ?? [])]),
        )
        warnings.push(...parts.warnings, ...(chain?.warnings ?? []))
      }
      return {
        review: {
          account: prepared[0]!.account,
          title: `Sign ${prepared.length} transactions`,
          items,
          warnings,
        },
        plan: prepared,
      }
    },
    async execute(_context, prepared: PreparedTransaction[]): Promise<SolanaSignAllTransactionsResult> {
      const pause = timeSlicer()
      const transactions: string[] = []
      for (const one of prepared) {
        transactions.push(encodeSigned(one, (await signPrepared(wallet, one)).signed))
        await pause()
      }
      return { transactions }
    },
  })
