import { InvalidParamsError, PolicyRefusedError } from '../../core/errors.js'
import type { AssetEffect } from '../../core/expectation.js'
import type { RequestContext } from '../../core/namespace.js'
import type { ReviewDraft } from '../../core/review.js'
import { transactionEffects } from '../effects.js'
import { accessOf, type ChainConfig, chainOf, type Eip155Env, ownedAddress } from '../env.js'
import { assertCovered, estimateFees, fillFees, maxFeeOf } from './fees.js'
import { fillGas } from './gas.js'
import { dataOf, feesComplete, type TransactionDraft, type TransactionRequest } from './request.js'
import { reviewTransaction } from './review.js'

/**
 * `plan` of `eth_sendTransaction` and `eth_signTransaction`: check and fill the request, then review it.
 * A provider is required to broadcast, and to reserve a nonce the dapp left out.
 */
export async function planTransactionRequest(
  env: Eip155Env,
  context: RequestContext,
  request: TransactionRequest,
  method: { title: string; broadcasts: boolean },
): Promise<{ review: ReviewDraft; plan: TransactionDraft; effects: AssetEffect[] | undefined }> {
  const chain = chainOf(env, context)
  const draft = await planTransaction(env, chain, context, request)
  if (method.broadcasts || draft.nonce === undefined) accessOf(chain)
  return {
    review: await reviewTransaction(method.title, chain, draft),
    plan: draft,
    effects: transactionEffects(context.chainId, draft),
  }
}

/**
 * Everything `eth_sendTransaction` and `eth_signTransaction` check and fill before review: ownership of
 * `from`, field consistency, chainId, fees (EIP-1559 when the chain has a base fee), gas (estimate with a
 * margin, capped below the block gas limit). Chain reads fail as -32603 with the node's reason, so a
 * reverting or unaffordable transaction is refused before the user is asked.
 */
export async function planTransaction(
  env: Eip155Env,
  chain: ChainConfig,
  context: RequestContext,
  request: TransactionRequest,
): Promise<TransactionDraft> {
  if (request.authorizationList !== undefined) {
    throw new PolicyRefusedError(
      'a dapp-supplied EIP-7702 authorizationList would hand the account to a contract the dapp chose; this wallet only delegates through wallet_sendCalls to its own configured delegate',
      { rule: 'eip7702.dapp_authorization' },
    )
  }
  const data = dataOf(request)
  const feeFields = request.maxFeePerGas !== undefined || request.maxPriorityFeePerGas !== undefined
  if (request.gasPrice !== undefined && feeFields) {
    throw new InvalidParamsError('gasPrice cannot be combined with maxFeePerGas/maxPriorityFeePerGas', {
      path: '0.gasPrice',
    })
  }
  if ((request.type === '0x0' || request.type === '0x1') && feeFields) {
    throw new InvalidParamsError(`type ${request.type} takes gasPrice, not EIP-1559 fee fields`, {
      path: '0.type',
    })
  }
  if (request.type === '0x2' && request.gasPrice !== undefined) {
    throw new InvalidParamsError('type 0x2 takes maxFeePerGas/maxPriorityFeePerGas, not gasPrice', {
      path: '0.gasPrice',
    })
  }
  if (request.type === '0x0' && request.accessList !== undefined) {
    throw new InvalidParamsError('type 0x0 cannot carry an access list', { path: '0.accessList' })
  }
  if (
    request.maxFeePerGas !== undefined &&
    request.maxPriorityFeePerGas !== undefined &&
    request.maxPriorityFeePerGas > request.maxFeePerGas
  ) {
    throw new InvalidParamsError('maxPriorityFeePerGas exceeds maxFeePerGas', {
      path: '0.maxPriorityFeePerGas',
    })
  }
  if (request.chainId !== undefined && request.chainId !== BigInt(chain.chainId)) {
    throw new PolicyRefusedError(
      `transaction chainId ${request.chainId} differs from the request's chain ${context.chainId}`,
      { rule: 'chain_mismatch' },
    )
  }
  const to = request.to ?? undefined
  if (to === undefined && data === '0x') {
    throw new InvalidParamsError('a transaction without `to` deploys a contract and needs its code in data', {
      path: '0.to',
    })
  }
  const from = await ownedAddress(env, request.from)
  const value = request.value ?? 0n

  const needsChain = request.gas === undefined || !feesComplete(request)
  const access = needsChain ? accessOf(chain) : chain.access
  // One read of the latest block serves both the fee choice and the gas cap.
  const node = access === undefined ? undefined : { access, block: await access.latestBlock() }
  const fees = await fillFees(node, request)
  const funds =
    node === undefined
      ? undefined
      : { from, balance: await node.access.balance(from), symbol: chain.nativeSymbol }
  if (funds !== undefined) assertCovered(funds, value, 'the transaction sends')
  const { gas, gasEstimate, callReverted } = await fillGas(
    env,
    node,
    request,
    { from, to, value, data, fees: estimateFees(fees) },
    { revertReviewed: chain.simulation !== undefined },
  )
  if (funds !== undefined)
    assertCovered(funds, value + gas * maxFeeOf(fees), 'its value and maximum network fee come to')
  return {
    from,
    chainId: chain.chainId,
    to,
    value,
    data,
    gas,
    fees,
    accessList: request.accessList,
    nonce: request.nonce === undefined ? undefined : Number(request.nonce),
    gasEstimate,
    ...(callReverted === undefined ? {} : { callReverted }),
  }
}
