import { type AllowanceChange, type BalanceChange, balanceChangesSection } from '../../core/balanceChanges.js'
import { item, type ReviewItem, type ReviewWarning, type Severity } from '../../core/review.js'
import type { ChainAccess } from '../provider.js'
import type { SimulationOptions } from '../types.js'
import { getAddress } from '../viemUtils.js'
import { decodeBalanceChanges } from './decodeBalanceChanges.js'
import { type SimulatedCall, type SimulationOutcome, simulate } from './simulate.js'
import { type TokenMetadata, tokenMetadata } from './tokenMetadata.js'

export type { SimulationOptions } from '../types.js'

export const defaultSimulationOptions: SimulationOptions = {
  timeoutMs: 5000,
  maxLogs: 500,
  maxTokenLookups: 16,
}

/**
 * The simulation part of a transaction review: the account's balance changes and approvals, or a `danger`
 * `tx.simulation_reverted` with the revert reason, or a `caution` saying what could not be shown and why
 * (node unreachable, too slow, no eth_simulateV1). Never throws: signing is never blocked by a simulation
 * that could not run, but the user is told.
 */
export async function reviewSimulation(
  access: ChainAccess,
  call: SimulatedCall,
  nativeSymbol: string,
  options: SimulationOptions,
): Promise<{ items: ReviewItem[]; warnings: ReviewWarning[] }> {
  return reviewOutcome(access, call.from, await simulate(access, call, options), nativeSymbol, options)
}

/** The review section of a simulation's outcome (one call or a batch) for the account `from`. */
export async function reviewOutcome(
  access: ChainAccess,
  from: SimulatedCall['from'],
  outcome: SimulationOutcome,
  nativeSymbol: string,
  options: SimulationOptions,
): Promise<{ items: ReviewItem[]; warnings: ReviewWarning[] }> {
  if (outcome.status === 'unavailable') {
    return simulationLine(
      `unavailable: ${outcome.reason}`,
      'tx.simulation_unavailable',
      'caution',
      `The transaction could not be simulated (${outcome.reason}); what it does to your balances is not shown.`,
    )
  }
  if (outcome.status === 'reverted') {
    return {
      items: [item('Simulation', `reverts: ${outcome.reason}`)],
      warnings: [revertedWarning(outcome.reason)],
    }
  }
  if (outcome.via === 'eth_call') {
    return simulationLine(
      'succeeds (eth_call); balance changes unavailable: the node lacks eth_simulateV1',
      'tx.balance_changes_unavailable',
      'caution',
      'The node cannot simulate balance changes (no eth_simulateV1): the call succeeds, but what it does to your tokens is not shown.',
    )
  }

  const decoded = decodeBalanceChanges(outcome.logs, from, { maxLogs: options.maxLogs })
  const tokens = [
    ...new Set([
      ...decoded.changes.flatMap((change) => (change.asset === undefined ? [] : [change.asset])),
      ...decoded.approvals.map((approval) => approval.asset),
    ]),
  ]
  const looked = tokens.slice(0, options.maxTokenLookups)
  const metadata = new Map<string, TokenMetadata>(
    await Promise.all(
      looked.map(async (token) => [token, await tokenMetadata(access, token, options)] as const),
    ),
  )
  const symbolOf = (asset: string | undefined) =>
    asset === undefined ? undefined : metadata.get(asset)?.symbol
  const decimalsOf = (asset: string | undefined) =>
    asset === undefined ? undefined : metadata.get(asset)?.decimals
  // Shown checksummed (EIP-55), as wallets and explorers spell them.
  const changes: BalanceChange[] = decoded.changes.map((change) => ({
    ...change,
    asset: change.asset === undefined ? undefined : getAddress(change.asset),
    symbol: symbolOf(change.asset),
    decimals: change.kind === 'fungible' ? decimalsOf(change.asset) : undefined,
  }))
  const approvals: AllowanceChange[] = decoded.approvals.map((approval) => ({
    ...approval,
    asset: getAddress(approval.asset),
    spender: getAddress(approval.spender),
    symbol: symbolOf(approval.asset),
    decimals: approval.kind === 'fungible' ? decimalsOf(approval.asset) : undefined,
  }))
  const notes = ['network fee not included (see Max network fee)']
  if (decoded.notDecoded > 0)
    notes.push(`${decoded.notDecoded} more events not decoded (the review decodes ${options.maxLogs})`)
  if (decoded.unrecognized > 0)
    notes.push(
      `${decoded.unrecognized} events name your account but are not transfers or approvals decoded here`,
    )
  if (decoded.batchEntriesCut > 0) notes.push(`${decoded.batchEntriesCut} ERC-1155 batch entries not counted`)
  if (tokens.length > looked.length)
    notes.push(
      `${tokens.length - looked.length} tokens shown by address only (symbols read for ${looked.length})`,
    )
  const section = balanceChangesSection({ nativeSymbol, nativeDecimals: 18, changes, approvals, notes })
  if (decoded.notDecoded > 0 || decoded.batchEntriesCut > 0) {
    section.warnings.push({
      code: 'tx.simulation_incomplete',
      severity: 'caution',
      message: `The transaction emits more events than the review decodes (${decoded.notDecoded + decoded.batchEntriesCut} left out): the balance changes shown may be incomplete.`,
    })
  }
  return section
}

/** One "Simulation" line and the warning that goes with it. */
function simulationLine(shown: string, code: string, severity: Severity, message: string) {
  return { items: [item('Simulation', shown)], warnings: [{ code, severity, message }] }
}

/** The `danger` warning of a transaction that reverts (in the simulation, or in eth_call before it). */
export function revertedWarning(reason: string): ReviewWarning {
  return {
    code: 'tx.simulation_reverted',
    severity: 'danger',
    message: `The transaction reverts when simulated (${reason}): it would fail and still cost its network fee.`,
  }
}
