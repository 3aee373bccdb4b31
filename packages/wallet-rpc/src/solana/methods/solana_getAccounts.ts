import * as v from 'valibot'
import { defineMethod } from '../../core/namespace.js'
import type { SolanaWallet } from '../context.js'

/** No params: `{}`, `[]` or none. */
export const solanaGetAccountsParams = v.optional(v.union([v.strictObject({}), v.strictTuple([])]))

export type SolanaAccount = { pubkey: string }

/** `solana_getAccounts` → `[{ pubkey }]`, the wallet's accounts (base58). Touches no key. */
export const solana_getAccounts = (wallet: SolanaWallet) =>
  defineMethod({
    params: solanaGetAccountsParams,
    plan: () => ({ review: null, plan: undefined }),
    execute: (): SolanaAccount[] => [...wallet.signers.keys()].map((pubkey) => ({ pubkey })),
  })
