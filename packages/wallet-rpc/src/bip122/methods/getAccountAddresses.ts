import * as v from 'valibot'
import { defineMethod } from '../../core/namespace.js'
import type { AddressEntry, Bip122Wallet } from '../types.js'

/**
 * `getAccountAddresses {account, intentions?}` → `[{address, publicKey, path, intention}]`, by the spec's rules:
 * - the first external address (the account id, m/84'/c'/a'/0/0) always comes first;
 * - every address of the account holding a UTXO (any purpose, receive or change);
 * - a dynamic wallet adds the next unused receive and change addresses (2 each, after the highest used index),
 *   so unused addresses stay well below the gap limit of 20;
 * - a static wallet returns its one address.
 * Intentions: `payment` = purposes 44, 49, 84 (unused suggestions are P2WPKH); `ordinal` = purpose 86 (P2TR,
 * unused suggestions P2TR, and its first external address m/86'/c'/a'/0/0). Without `intentions` both are
 * listed; unknown intentions match nothing. `publicKey` is the 33-byte compressed key, for P2TR the 32-byte
 * x-only internal key (what a dapp puts in `tapInternalKey`). A read: no review, no key touched.
 */
export const getAccountAddressesParams = v.object({
  account: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  intentions: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(64))), v.maxLength(16))),
})

export type GetAccountAddressesParams = v.InferOutput<typeof getAccountAddressesParams>

export const getAccountAddresses = (wallet: Bip122Wallet) =>
  defineMethod({
    params: getAccountAddressesParams,
    async plan(context, params) {
      const account = await wallet.resolveAccount(context.chainId, params.account)
      return { review: null, plan: await account.addressEntries(params.intentions) }
    },
    execute: (_context, entries: readonly AddressEntry[]) => entries,
  })
