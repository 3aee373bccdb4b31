// eip155 `eth_signTransaction`: the signed transaction is from the requested account, on the request's chain,
// replay-protected, with every field the request set.
import type { Hex, TransactionSerialized } from 'viem'
import { keccak256, parseTransaction, serializeTransaction } from 'viem/utils'
import { checkedAddress, quantity, recoverSigner, sameAddress } from './internal/evm.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type VerifyTransactionOptions = {
  /** The request's chain (`eip155:<chainId>`). */
  chainId: number
}

/** Params are `[tx]`; the result is the signed raw transaction. Never throws. */
export function verifyEthSignTransaction(
  params: unknown,
  result: unknown,
  options: VerifyTransactionOptions,
): VerifyResult {
  return guarded(() => checkSignedTransaction(params, result, options))
}

const typeNames: Record<string, string> = {
  '0x0': 'legacy',
  '0x1': 'eip2930',
  '0x2': 'eip1559',
  '0x3': 'eip4844',
  '0x4': 'eip7702',
}

/** Strict 0x-hex with whole bytes. */
export function isHexData(value: unknown): value is Hex {
  return typeof value === 'string' && /^0x([0-9a-fA-F]{2})+$/.test(value)
}

/** The address that signed a raw transaction. */
export function transactionSigner(raw: Hex): Hex {
  const { r, s, v, yParity, ...unsigned } = parseTransaction(raw as TransactionSerialized)
  if (r === undefined || s === undefined) return fail('the transaction is not signed')
  const parity = yParity ?? (v === undefined ? undefined : Number(v >= 35n ? (v - 35n) % 2n : v - 27n))
  if (parity !== 0 && parity !== 1) return fail('the transaction signature has no recovery bit')
  const digest = keccak256(serializeTransaction(unsigned as never))
  const signature =
    `0x${r.slice(2).padStart(64, '0')}${s.slice(2).padStart(64, '0')}${parity === 0 ? '1b' : '1c'}` as Hex
  return recoverSigner(digest, signature)
}

export function checkSignedTransaction(
  params: unknown,
  raw: unknown,
  options: VerifyTransactionOptions,
): void {
  if (!Array.isArray(params) || !isRecord(params[0])) fail('params are not [transaction]')
  if (!isRecord(options) || !Number.isSafeInteger(options.chainId)) fail('the request chainId is needed')
  const request = params[0]
  const from = checkedAddress(request.from, 'from')
  if (!isHexData(raw)) fail('result is not a hex transaction')
  const tx = parseTransaction(raw as TransactionSerialized)
  const signer = transactionSigner(raw)
  if (!sameAddress(signer, from)) fail(`signed by ${signer}, not ${from}`)
  if (tx.chainId === undefined) fail('the transaction has no chainId (replayable on every chain)')
  if (tx.chainId !== options.chainId)
    fail(`chainId ${tx.chainId} is not the request's chain ${options.chainId}`)
  const requestedChain = quantity(request.chainId, 'chainId')
  if (requestedChain !== undefined && requestedChain !== BigInt(tx.chainId))
    fail('chainId differs from the request')
  if (request.to === undefined || request.to === null || request.to === '0x') {
    if (tx.to) fail('the request creates a contract but the transaction has a recipient')
  } else if (!tx.to || !sameAddress(checkedAddress(request.to, 'to'), tx.to)) {
    fail(`to ${tx.to ?? 'nothing'} is not ${String(request.to)}`)
  }
  const data = request.data ?? request.input ?? '0x'
  if (typeof data !== 'string' || (tx.data ?? '0x').toLowerCase() !== data.toLowerCase())
    fail('data differs from the request')
  const value = quantity(request.value, 'value') ?? 0n
  if ((tx.value ?? 0n) !== value) fail(`value ${tx.value ?? 0n} is not the requested ${value}`)
  const expectEqual = (field: string, got: bigint | number | undefined) => {
    const wanted = quantity(request[field], field)
    if (wanted !== undefined && BigInt(got ?? 0) !== wanted)
      fail(`${field} ${got} is not the requested ${wanted}`)
  }
  expectEqual('nonce', tx.nonce)
  expectEqual('gas', tx.gas)
  expectEqual('gasLimit', tx.gas)
  expectEqual('gasPrice', tx.gasPrice)
  expectEqual('maxFeePerGas', tx.maxFeePerGas)
  expectEqual('maxPriorityFeePerGas', tx.maxPriorityFeePerGas)
  if (request.type !== undefined) {
    const wanted = typeof request.type === 'string' ? typeNames[request.type.toLowerCase()] : undefined
    if (wanted !== tx.type) fail(`type ${tx.type} is not the requested ${String(request.type)}`)
  }
}
