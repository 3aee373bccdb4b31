import { UnauthorizedError } from '../core/errors.js'
import { outputScriptOf } from './chains.js'
import type { Account, AccountAddress } from './types.js'

/**
 * The account's address named by `address` (request field `path`): -32602 when it is not an address of the
 * account's network, 4100 when it is a valid address this account does not own.
 */
export async function ownedAddress(account: Account, address: string, path: string): Promise<AccountAddress> {
  // Addresses already derived for this account are on its network by construction.
  const known = account.knownAddress(address)
  if (known) return known
  // By script, so every spelling of one of our addresses names it (BIP-173 allows all-uppercase bech32).
  const owner = await account.findScript(outputScriptOf(address, account.chain, path))
  if (!owner) throw new UnauthorizedError(address)
  return owner
}
