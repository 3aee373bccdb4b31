import { InvalidParamsError } from '../../core/errors.js'
import type { Eip155Env } from '../env.js'
import type { EstimateRequest } from '../provider.js'
import { isRevert, nodeErrorOf, revertReasonOf } from '../simulation/nodeError.js'
import type { ChainState } from './fees.js'
import type { TransactionRequest } from './request.js'

/** Gas limits are capped at this share of the block gas limit so one transaction never claims a whole block. */
const blockGasCapPercent = 95n

/**
 * The gas limit. With a provider the transaction is always run first (eth_call, then eth_estimateGas),
 * even when the dapp set `gas`, so an unaffordable value is refused with the node's reason before the user
 * is asked. So is a revert, except when the dapp set `gas` and reviews simulate: then the review's
 * simulation shows the revert as a `danger` warning the wallet's policy decides on (a transaction signed
 * now may be meant for a later state, e.g. after a pending approval).
 */
export async function fillGas(
  env: Eip155Env,
  node: ChainState | undefined,
  request: TransactionRequest,
  estimate: EstimateRequest,
  options: { revertReviewed: boolean },
): Promise<{ gas: bigint; gasEstimate: bigint | undefined; callReverted?: string }> {
  // Signing-only chain: planTransaction required every field.
  if (node === undefined) return { gas: request.gas!, gasEstimate: undefined }
  const blockGasLimit = node.block.gasLimit
  if (request.gas !== undefined && request.gas > blockGasLimit) {
    throw new InvalidParamsError(`gas ${request.gas} exceeds the block gas limit ${blockGasLimit}`, {
      path: '0.gas',
    })
  }
  // eth_call first: its failure carries the clearest node reason (revert data, insufficient funds).
  try {
    await node.access.simulate(estimate)
  } catch (error) {
    const node = nodeErrorOf(error)
    if (request.gas !== undefined && options.revertReviewed && isRevert(node))
      return { gas: request.gas, gasEstimate: undefined, callReverted: revertReasonOf(node) }
    throw error
  }
  const estimated = await node.access.estimateGas(estimate)
  if (request.gas !== undefined) return { gas: request.gas, gasEstimate: estimated }
  const padded = (estimated * BigInt(100 + env.gasMarginPercent)) / 100n
  const cap = (blockGasLimit * blockGasCapPercent) / 100n
  // The margin never pushes the limit past the cap, and the cap never cuts below what the node estimated.
  return { gas: padded < cap ? padded : estimated > cap ? estimated : cap, gasEstimate: estimated }
}
