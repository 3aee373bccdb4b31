import * as v from 'valibot'
import { defineMethod } from '../../core/namespace.js'
import type { Bip122Wallet } from '../types.js'

export const getAccountAddressesParams = v.object({
  account: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  intentions: v.optional(v.array(v.pipe(v.string(), v.maxLength(32)))),
})

// Placeholder wiring until the account listing lands (same session); see issue 4.
export const getAccountAddresses = (wallet: Bip122Wallet) =>
  defineMethod({
    params: getAccountAddressesParams,
    plan: async (context, params) => ({
      review: null,
      plan: await wallet.resolveAccount(context.chainId, params.account),
    }),
    execute: (_context, account) => [{ address: account.id }],
  })
