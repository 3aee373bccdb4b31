import type { Address } from 'viem'
import { InvalidParamsError, PolicyRefusedError } from '../../core/errors.js'
import type { ChainAccess, EstimateRequest } from '../provider.js'
import { formatEther } from '../viemUtils.js'
import type { Fees, TransactionRequest } from './request.js'

/** A chain provider and the latest block, read once per transaction. */
export type ChainState = { access: ChainAccess; block: Awaited<ReturnType<ChainAccess['latestBlock']>> }

export async function fillFees(node: ChainState | undefined, request: TransactionRequest): Promise<Fees> {
  const legacyType = request.accessList !== undefined || request.type === '0x1' ? 'eip2930' : 'legacy'
  if (request.gasPrice !== undefined) return { type: legacyType, gasPrice: request.gasPrice }
  if (request.maxFeePerGas !== undefined && request.maxPriorityFeePerGas !== undefined) {
    return {
      type: 'eip1559',
      maxFeePerGas: request.maxFeePerGas,
      maxPriorityFeePerGas: request.maxPriorityFeePerGas,
    }
  }
  // Never default a missing fee to 0 (viem would): read the chain (planTransaction required a provider).
  const { access, block } = node!
  if (request.type === '0x0' || request.type === '0x1')
    return { type: legacyType, gasPrice: await access.gasPrice() }
  const { baseFeePerGas } = block
  if (baseFeePerGas === undefined) {
    if (
      request.type === '0x2' ||
      request.maxFeePerGas !== undefined ||
      request.maxPriorityFeePerGas !== undefined
    ) {
      throw new InvalidParamsError('this chain has no EIP-1559 base fee; send gasPrice instead', {
        path: '0.type',
      })
    }
    return { type: legacyType, gasPrice: await access.gasPrice() }
  }
  let maxPriorityFeePerGas = request.maxPriorityFeePerGas ?? (await access.maxPriorityFeePerGas())
  // Twice the base fee absorbs six full blocks of base-fee growth (12.5% each) before the tx stalls.
  const maxFeePerGas = request.maxFeePerGas ?? baseFeePerGas * 2n + maxPriorityFeePerGas
  if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas
  return { type: 'eip1559', maxFeePerGas, maxPriorityFeePerGas }
}

export const maxFeeOf = (fees: Fees) => (fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice)

/**
 * What the account must hold is checked against one read of its balance, before the user is asked: the value
 * alone before any gas estimate (a node answers an unaffordable estimate in words of its own, or not at all:
 * some skip the check), then the value with the worst-case fee (nodes check only the value in eth_call, and
 * would refuse the broadcast after approval). Refused with -32602 `tx.insufficient_funds`, in the native unit.
 */
export function assertCovered(
  account: { from: Address; balance: bigint; symbol: string },
  cost: bigint,
  what: string,
): void {
  const { from, balance, symbol } = account
  if (balance >= cost) return
  throw new PolicyRefusedError(
    `insufficient funds: ${what} ${formatEther(cost)} ${symbol}, but ${from} holds ${formatEther(balance)} ${symbol}`,
    { rule: 'tx.insufficient_funds' },
  )
}

export const estimateFees = (fees: Fees): EstimateRequest['fees'] =>
  fees.type === 'eip1559'
    ? { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas }
    : { gasPrice: fees.gasPrice }
