// eip155 `wallet_getCallsStatus` (EIP-5792): the answer is about the asked batch, in the 2.0.0 shape, with a
// status its receipts allow, and — given the chain's own receipts of the batch's transactions — receipts
// that are the chain's, not the wallet's say-so.
import { quantity } from './internal/evm.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

/** A receipt as `eth_getTransactionReceipt` answers it (null while the transaction is not mined). */
export type ChainReceipt = {
  transactionHash: string
  status: string
  blockHash: string
  blockNumber: string
  gasUsed: string
}

export type VerifyCallsStatusOptions = {
  /** The batch's chain (`wallet_sendCalls`' `chainId`). */
  chainId: number
  /**
   * The chain's receipts of the batch's transactions (`eth_getTransactionReceipt` of each hash
   * `wallet_sendCalls` reported, null for one not mined). Without them only the answer's shape and its
   * internal consistency are checked.
   */
  chainReceipts?: readonly (ChainReceipt | null)[]
}

const statusCodes = new Set([100, 200, 400, 500, 600])

/** Params are `[id]`. Never throws. */
export function verifyWalletGetCallsStatus(
  params: unknown,
  result: unknown,
  options: VerifyCallsStatusOptions,
): VerifyResult {
  return guarded(() => {
    if (!isRecord(options) || !Number.isSafeInteger(options.chainId)) fail('the batch chainId is needed')
    if (!Array.isArray(params) || typeof params[0] !== 'string') fail('params are not [id]')
    if (!isRecord(result)) fail('result is not an object')
    if (result.version !== '2.0.0') fail(`version ${String(result.version)} is not 2.0.0`)
    if (result.id !== params[0]) fail(`id ${String(result.id)} is not the asked ${params[0]}`)
    if (quantity(result.chainId, 'chainId') !== BigInt(options.chainId))
      fail(`chainId ${String(result.chainId)} is not the batch's chain ${options.chainId}`)
    if (typeof result.atomic !== 'boolean') fail('atomic is not a boolean')
    const { status } = result
    if (typeof status !== 'number' || !statusCodes.has(status))
      fail(`status ${String(status)} is not one of EIP-5792's 100, 200, 400, 500, 600`)
    if (!Array.isArray(result.receipts)) fail('receipts is not an array')
    const receipts = result.receipts.map((receipt, index) => checkedReceipt(receipt, index))
    const succeeded = receipts.filter((receipt) => receipt.status === '0x1').length
    const reverted = receipts.length - succeeded
    if (result.atomic && receipts.length > 1) fail(`an atomic batch with ${receipts.length} receipts`)
    if (status === 200 && (receipts.length === 0 || reverted > 0))
      fail('status 200 but not every receipt succeeded')
    if (status === 400 && receipts.length > 0)
      fail('status 400 (nothing included) but the batch has receipts')
    if (status === 500 && (receipts.length === 0 || succeeded > 0))
      fail('status 500 (reverted completely) but a receipt succeeded or none was mined')
    if (status === 600 && (succeeded === 0 || result.atomic))
      fail('status 600 (partially reverted) needs a non-atomic batch with a successful receipt')
    if (options.chainReceipts !== undefined) checkAgainstChain(receipts, status, options.chainReceipts)
  })
}

function checkedReceipt(receipt: unknown, index: number): ChainReceipt {
  if (!isRecord(receipt)) return fail(`receipts[${index}] is not an object`)
  const { transactionHash, status, blockHash, blockNumber, gasUsed, logs } = receipt
  if (typeof transactionHash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(transactionHash))
    fail(`receipts[${index}].transactionHash is not a 32-byte hash`)
  if (status !== '0x1' && status !== '0x0') fail(`receipts[${index}].status is not 0x1 or 0x0`)
  if (typeof blockHash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(blockHash))
    fail(`receipts[${index}].blockHash is not a 32-byte hash`)
  quantity(blockNumber, `receipts[${index}].blockNumber`)
  quantity(gasUsed, `receipts[${index}].gasUsed`)
  if (!Array.isArray(logs)) fail(`receipts[${index}].logs is not an array`)
  return { transactionHash, status, blockHash, blockNumber: String(blockNumber), gasUsed: String(gasUsed) }
}

/** Every mined transaction's receipt is in the answer, in order, as the chain has it; 200 needs all mined. */
function checkAgainstChain(
  receipts: readonly ChainReceipt[],
  status: number,
  chainReceipts: readonly (ChainReceipt | null)[],
): void {
  const mined = chainReceipts.filter((receipt): receipt is ChainReceipt => receipt !== null)
  if (mined.length !== receipts.length)
    fail(`${receipts.length} receipts, but the chain has mined ${mined.length} of the batch's transactions`)
  for (const [index, chain] of mined.entries()) {
    const got = receipts[index]!
    for (const field of ['transactionHash', 'status', 'blockHash', 'blockNumber', 'gasUsed'] as const)
      if (quantityOrText(got[field]) !== quantityOrText(chain[field]))
        fail(`receipts[${index}].${field} ${got[field]} is not the chain's ${chain[field]}`)
  }
  if (status === 200 && mined.length < chainReceipts.length)
    fail('status 200 while a transaction is not mined')
}

/** Hex compared by value where it is a quantity (`0x01` and `0x1`), else case-blind. */
function quantityOrText(value: string): string {
  return /^0x0*[0-9a-fA-F]{1,15}$/.test(value) ? BigInt(value).toString() : value.toLowerCase()
}
