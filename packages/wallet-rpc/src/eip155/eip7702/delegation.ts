import type { Address, Hex } from 'viem'
import type { ChainAccess } from '../provider.js'
import type { Delegation } from '../types.js'
import { getAddress } from '../viemUtils.js'

export type { Delegation } from '../types.js'

/** EIP-7702's delegation designator: an account's code is `0xef0100 ‖ delegate address` once delegated. */
const designatorPrefix = '0xef0100'

export function delegationOf(code: Hex): Delegation {
  const lower = code.toLowerCase()
  if (lower === '0x' || lower === '0x0') return { status: 'none' }
  if (lower.startsWith(designatorPrefix) && lower.length === designatorPrefix.length + 40)
    return { status: 'delegated', delegate: getAddress(`0x${lower.slice(designatorPrefix.length)}`) }
  return { status: 'contract' }
}

/** The account's delegation now (its code at the latest block). */
export async function readDelegation(access: ChainAccess, account: Address): Promise<Delegation> {
  return delegationOf(await access.code(account))
}

export const delegationCode = (delegate: Address): Hex =>
  `${designatorPrefix}${delegate.slice(2).toLowerCase()}` as Hex

/**
 * EIP-5792's `atomic` capability of an account on a chain whose configured delegate is `delegate`:
 * `supported` once the account is delegated to it (batches run atomically, nothing to approve first),
 * `ready` while it is not delegated yet (the first atomic batch upgrades it, on the user's approval),
 * `unsupported` without a delegate, or when the account is delegated elsewhere or holds contract code
 * (this wallet neither batches atomically there nor suggests an upgrade).
 */
export function atomicStatus(
  delegate: Address | undefined,
  delegation: Delegation,
): 'ready' | 'supported' | 'unsupported' {
  if (delegate === undefined) return 'unsupported'
  if (delegation.status === 'none') return 'ready'
  if (delegation.status === 'delegated' && delegation.delegate.toLowerCase() === delegate.toLowerCase())
    return 'supported'
  return 'unsupported'
}
