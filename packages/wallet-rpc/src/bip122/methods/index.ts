import type { AnyMethod, MethodTable } from '../../core/namespace.js'
import type { Bip122Wallet } from '../types.js'
import { getAccountAddresses } from './getAccountAddresses.js'
import { sendTransfer } from './sendTransfer.js'
import { signMessage } from './signMessage.js'
import { signPsbt } from './signPsbt.js'

/** Builds one method for one wallet (methods need the wallet's keys, chains and providers). */
export type MethodFactory = (wallet: Bip122Wallet) => AnyMethod

/**
 * The bip122 method table: one line per method, each naming the file that holds its schema, review and
 * handler. Adding a method = adding its file and its line here.
 */
export const bip122MethodFactories = {
  getAccountAddresses,
  signMessage,
  signPsbt,
  sendTransfer,
} as const satisfies Record<string, MethodFactory>

export function createMethodTable(wallet: Bip122Wallet): MethodTable {
  return Object.fromEntries(
    Object.entries(bip122MethodFactories).map(([name, factory]) => [name, factory(wallet)]),
  )
}
