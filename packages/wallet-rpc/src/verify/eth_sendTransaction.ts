// eip155 `eth_sendTransaction`: the hash is keccak256 of the broadcast transaction, which passes every
// `eth_signTransaction` check against the request.
import { keccak256 } from 'viem/utils'
import { checkSignedTransaction, isHexData, type VerifyTransactionOptions } from './eth_signTransaction.js'
import { fail, guarded, type VerifyResult } from './result.js'

export type VerifySentTransactionOptions = VerifyTransactionOptions & {
  /** The broadcast transaction (e.g. from `eth_getRawTransactionByHash`). */
  rawTransaction: string
}

/** Params are `[tx]`; the result is the transaction hash of `options.rawTransaction`. Never throws. */
export function verifyEthSendTransaction(
  params: unknown,
  result: unknown,
  options: VerifySentTransactionOptions,
): VerifyResult {
  return guarded(() => {
    checkTransactionHash(result, options?.rawTransaction)
    checkSignedTransaction(params, options.rawTransaction, options)
  })
}

export function checkTransactionHash(hash: unknown, raw: unknown): void {
  if (typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash))
    fail('result is not a 32-byte transaction hash')
  if (!isHexData(raw)) fail('the raw transaction is not hex')
  const expected = keccak256(raw)
  if (hash.toLowerCase() !== expected) fail(`hash ${hash} is not keccak256 of the transaction (${expected})`)
}
