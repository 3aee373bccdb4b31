// eip155 `wallet_sendCalls` (EIP-5792): the answer names the batch (the dapp's own id when it gave one) and,
// with the transactions it reports (`capabilities.caip345`, as UniversalProvider reads them), those carry
// exactly the requested calls, signed by the requested account, on the request's chain: ONE ERC-7821
// `execute` on the account itself (atomic, EIP-7702; any authorization signed by the account for this chain
// only), or one transaction per call, in order.
import type { Hex, SignedAuthorizationList, TransactionSerialized } from 'viem'
import {
  decodeAbiParameters,
  encodeAbiParameters,
  hashAuthorization,
  keccak256,
  parseTransaction,
  slice,
} from 'viem/utils'
import { isHexData, transactionSigner } from './eth_signTransaction.js'
import { checkedAddress, checkedSignature, quantity, recoverSigner, sameAddress } from './internal/evm.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type VerifySendCallsOptions = {
  /** The request's chain (`eip155:<chainId>`). */
  chainId: number
  /**
   * The broadcast transactions, in the order of `capabilities.caip345.transactionHashes` (e.g. from
   * `eth_getRawTransactionByHash`). Without them only the answer's shape and id are checked.
   */
  rawTransactions?: readonly string[]
  /** The delegate an EIP-7702 authorization must name, when the dapp knows the wallet's. */
  delegate?: string
}

/** ERC-7821 `execute(bytes32 mode, bytes executionData)`. */
const executeSelector = '0xe9ae5c53'
/** ERC-7821 single batch, revert on failure, no opData: call type 0x01, every other byte 0. */
const batchMode = `0x01${'0'.repeat(62)}`

const batchArgs = [
  {
    type: 'tuple[]',
    components: [
      { name: 'target', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'callData', type: 'bytes' },
    ],
  },
] as const

type Call = { to: Hex; value: bigint; data: Hex }

/** Params are `[{ version, id?, from?, chainId, atomicRequired?, calls, capabilities? }]`. Never throws. */
export function verifyWalletSendCalls(
  params: unknown,
  result: unknown,
  options: VerifySendCallsOptions,
): VerifyResult {
  return guarded(() => {
    if (!isRecord(options) || !Number.isSafeInteger(options.chainId)) fail('the request chainId is needed')
    if (!Array.isArray(params) || !isRecord(params[0])) fail('params are not [batch]')
    const request = params[0]
    if (quantity(request.chainId, 'chainId') !== BigInt(options.chainId))
      fail(`the batch's chainId ${String(request.chainId)} is not the request's chain ${options.chainId}`)
    const calls = requestedCalls(request.calls)
    const suffix = dataSuffix(request.capabilities)
    if (!isRecord(result) || typeof result.id !== 'string' || result.id === '') fail('result has no batch id')
    if (typeof request.id === 'string' && result.id !== request.id)
      fail(`id ${result.id} is not the requested ${request.id}`)
    const hashes = caip345Hashes(result.capabilities, options.chainId)
    if (options.rawTransactions === undefined) return
    const raws = options.rawTransactions
    if (raws.length === 0 || !raws.every(isHexData)) fail('rawTransactions are not hex transactions')
    if (hashes !== undefined) {
      if (hashes.length !== raws.length) fail(`${hashes.length} hashes for ${raws.length} transactions`)
      for (const [index, raw] of raws.entries())
        if (keccak256(raw as Hex) !== hashes[index]!.toLowerCase())
          fail(`transactionHashes[${index}] is not keccak256 of transaction ${index}`)
    }
    const account =
      request.from === undefined ? transactionSigner(raws[0] as Hex) : checkedAddress(request.from, 'from')
    const transactions = raws.map((raw, index) => {
      const signer = transactionSigner(raw as Hex)
      if (!sameAddress(signer, account)) fail(`transaction ${index} is signed by ${signer}, not ${account}`)
      const parsed = parseTransaction(raw as TransactionSerialized)
      if (parsed.chainId !== options.chainId)
        fail(`transaction ${index} is for chain ${parsed.chainId ?? 'none'}, not ${options.chainId}`)
      return parsed
    })
    const [first] = transactions
    const atomic =
      transactions.length === 1 &&
      first!.to != null &&
      sameAddress(first!.to, account) &&
      (first!.data ?? '0x').toLowerCase().startsWith(executeSelector)
    if (!atomic) {
      if (request.atomicRequired === true)
        fail(`atomicRequired, but the calls went out as ${transactions.length} separate transactions`)
      if (transactions.length !== calls.length)
        fail(`${transactions.length} transactions for ${calls.length} calls`)
      for (const [index, tx] of transactions.entries())
        sameCall(
          { to: tx.to ?? '0x', value: tx.value ?? 0n, data: (tx.data ?? '0x') as Hex },
          calls[index]!,
          suffix,
          `transaction ${index}`,
        )
      return
    }
    const tx = first!
    if ((tx.value ?? 0n) !== 0n) fail('the atomic transaction sends value to the account itself')
    const executed = executedCalls((tx.data ?? '0x') as Hex, suffix)
    if (executed.length !== calls.length) fail(`execute runs ${executed.length} calls, not ${calls.length}`)
    for (const [index, call] of executed.entries()) sameCall(call, calls[index]!, undefined, `call ${index}`)
    checkAuthorizations('authorizationList' in tx ? (tx.authorizationList ?? []) : [], account, options)
  })
}

function requestedCalls(value: unknown): Call[] {
  if (!Array.isArray(value) || value.length === 0) return fail('calls is not a non-empty array')
  return value.map((call, index) => {
    if (!isRecord(call)) return fail(`calls[${index}] is not an object`)
    const data = call.data ?? '0x'
    if (data !== '0x' && !isHexData(data)) fail(`calls[${index}].data is not hex`)
    return {
      to: checkedAddress(call.to, `calls[${index}].to`),
      value: quantity(call.value, `calls[${index}].value`) ?? 0n,
      data: data as Hex,
    }
  })
}

/** ERC-8021's suffix, when the batch asked for one: appended to each transaction's calldata. */
function dataSuffix(capabilities: unknown): Hex | undefined {
  if (!isRecord(capabilities) || !isRecord(capabilities.dataSuffix)) return undefined
  const { value } = capabilities.dataSuffix
  if (!isHexData(value)) return fail('capabilities.dataSuffix.value is not hex')
  return value
}

function caip345Hashes(capabilities: unknown, chainId: number): string[] | undefined {
  if (!isRecord(capabilities) || capabilities.caip345 === undefined) return undefined
  const { caip345 } = capabilities
  if (!isRecord(caip345)) return fail('capabilities.caip345 is not an object')
  if (caip345.caip2 !== `eip155:${chainId}`)
    fail(`caip345.caip2 ${String(caip345.caip2)} is not eip155:${chainId}`)
  const hashes = caip345.transactionHashes
  if (
    !Array.isArray(hashes) ||
    !hashes.every((hash) => typeof hash === 'string' && /^0x[0-9a-fA-F]{64}$/.test(hash))
  )
    return fail('caip345.transactionHashes are not 32-byte hashes')
  return hashes as string[]
}

function sameCall(got: Call, wanted: Call, suffix: Hex | undefined, what: string): void {
  if (!sameAddress(got.to, wanted.to)) fail(`${what} goes to ${got.to}, not ${wanted.to}`)
  if (got.value !== wanted.value) fail(`${what} sends ${got.value}, not ${wanted.value}`)
  const data = `${wanted.data}${suffix?.slice(2) ?? ''}`.toLowerCase()
  if (got.data.toLowerCase() !== data)
    fail(`${what}'s data is not the requested${suffix ? ' (with the suffix)' : ''}`)
}

/** The calls an `execute(batchMode, abi.encode(Call[]))` runs; the suffix, when asked, ends the calldata. */
function executedCalls(data: Hex, suffix: Hex | undefined): Call[] {
  let body = data
  if (suffix !== undefined) {
    if (!body.toLowerCase().endsWith(suffix.slice(2).toLowerCase()))
      fail('the atomic transaction does not end with the requested data suffix')
    body = body.slice(0, body.length - (suffix.length - 2)) as Hex
  }
  const executeArgs = [{ type: 'bytes32' }, { type: 'bytes' }] as const
  const [mode, executionData] = decodeAbiParameters(executeArgs, slice(body, 4))
  if (mode.toLowerCase() !== batchMode) fail(`execute mode ${mode} is not ERC-7821's plain batch`)
  const [calls] = decodeAbiParameters(batchArgs, executionData)
  // Canonical encoding only: nothing trailing or hidden that the calls above do not account for.
  if (
    encodeAbiParameters(executeArgs, [mode, executionData]) !== slice(body, 4).toLowerCase() ||
    encodeAbiParameters(batchArgs, [calls]) !== executionData.toLowerCase()
  )
    fail(
      `the atomic transaction's calldata is not exactly execute(batch)${suffix ? ' ‖ the data suffix' : ''}`,
    )
  return calls.map((call) => ({ to: call.target, value: call.value, data: call.callData }))
}

/** Every EIP-7702 authorization is the account's own, for this chain only, to the expected delegate. */
function checkAuthorizations(
  authorizations: SignedAuthorizationList,
  account: Hex,
  options: VerifySendCallsOptions,
): void {
  for (const [index, authorization] of authorizations.entries()) {
    const { r, s, yParity } = authorization
    if (r === undefined || s === undefined || (yParity !== 0 && yParity !== 1))
      fail(`authorization ${index} is not signed`)
    const digest = hashAuthorization({
      chainId: authorization.chainId,
      address: authorization.address as Hex,
      nonce: authorization.nonce,
    })
    const signature =
      `0x${r.slice(2).padStart(64, '0')}${s.slice(2).padStart(64, '0')}${yParity === 0 ? '1b' : '1c'}` as Hex
    const authority = recoverSigner(digest, checkedSignature(signature))
    if (!sameAddress(authority, account))
      fail(`authorization ${index} is signed by ${authority}, not ${account}`)
    if (authorization.chainId !== options.chainId)
      fail(
        `authorization ${index} is for chain ${authorization.chainId}${authorization.chainId === 0 ? ' (every chain)' : ''}`,
      )
    if (options.delegate !== undefined && !sameAddress(authorization.address, options.delegate))
      fail(`authorization ${index} delegates to ${authorization.address}, not ${options.delegate}`)
  }
}
