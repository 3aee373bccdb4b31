import type { Address, Hex } from 'viem'
import type { ReviewWarning } from '../../core/review.js'
import type { ChainAccess } from '../provider.js'
import { within } from '../simulation/within.js'
import type { Delegation } from '../types.js'
import { getAddress, isAddressEqual } from '../viemUtils.js'

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

/**
 * The `caution` `eip7702.foreign_delegate` for an account delegated to a contract other than the chain's
 * configured delegate (any contract where none is configured): whatever the account signs or sends, that code
 * runs for it (calls to the account, ERC-1271 checks of its signatures).
 */
export function foreignDelegationWarning(
  chainDelegate: Address | undefined,
  account: Address,
  delegation: Delegation,
): ReviewWarning | undefined {
  if (delegation.status !== 'delegated') return undefined
  if (chainDelegate !== undefined && isAddressEqual(delegation.delegate, chainDelegate)) return undefined
  return {
    code: 'eip7702.foreign_delegate',
    severity: 'caution',
    message: `Your account ${account} is delegated (EIP-7702) to ${delegation.delegate}, a contract this wallet does not use: that code runs for your account, and it is what contracts ask when they check your signatures (ERC-1271).`,
  }
}

/** How long a signing method waits for the account's code before it goes on without the check. */
const delegationReadMs = 3000

/**
 * The delegation warning of a method that signs for `account`, from one read of its code when the chain has a
 * provider. Signing is never blocked by the read: a failed or slow one (past 3 s) leaves the warning out.
 */
export async function delegationWarnings(
  chain: { access: ChainAccess | undefined; delegate: Address | undefined },
  account: Address,
): Promise<ReviewWarning[]> {
  if (chain.access === undefined) return []
  try {
    const delegation = await within(readDelegation(chain.access, account), delegationReadMs)
    const warning = foreignDelegationWarning(chain.delegate, account, delegation)
    return warning === undefined ? [] : [warning]
  } catch {
    return []
  }
}
