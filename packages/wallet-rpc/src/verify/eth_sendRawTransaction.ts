// eip155 `eth_sendRawTransaction`: the hash is keccak256 of the submitted bytes, on the request's chain.
import type { TransactionSerialized } from 'viem'
import { parseTransaction } from 'viem/utils'
import { checkTransactionHash } from './eth_sendTransaction.js'
import { fail, guarded, type VerifyResult } from './result.js'

/** Params are `[raw]`; the result is its hash. Never throws. */
export function verifyEthSendRawTransaction(
  params: unknown,
  result: unknown,
  options: { chainId?: number } = {},
): VerifyResult {
  return guarded(() => {
    if (!Array.isArray(params) || typeof params[0] !== 'string') fail('params are not [rawTransaction]')
    checkTransactionHash(result, params[0])
    if (options?.chainId !== undefined) {
      const chainId = parseTransaction(params[0] as TransactionSerialized).chainId
      if (chainId !== options.chainId) fail(`the transaction is for chain ${chainId}, not ${options.chainId}`)
    }
  })
}
