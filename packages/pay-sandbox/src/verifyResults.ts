import {
  type Address,
  createPublicClient,
  type Hex,
  http,
  isAddressEqual,
  isHex,
  keccak256,
  type PublicClient,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  type Signature,
  serializeTransaction,
  type Transaction,
  type TransactionSerializable,
} from 'viem'
import type { ExpectedResult } from './model.js'
import { checkAndSubmit } from './solanaOption.js'

/** A chain the sandbox may read to check `eth_sendTransaction` results: an RPC URL or a viem public client. */
export type ChainReader = string | PublicClient

/** `transactionHash`: the EVM hash, or the Solana transaction's signature (base58), of the submitted transaction. */
export type ResultCheck = { ok: true; transactionHash?: string } | { ok: false; reason: string }

/**
 * Checks one confirm result against what the action asked for.
 * - Typed data: the signature must recover (secp256k1, EIP-712 hash computed here) to the option's account.
 * - Transaction: the result is a hash. With a chain reader for the chain, the transaction is fetched, re-serialised
 *   from its fields and signature, its keccak256 must equal the hash, the signer recovered from the signature must
 *   be the account, and chain, `to` and calldata must be the approval's. Without a reader the hash can only be
 *   checked for form (32 bytes, not the zero hash): test mode moves no funds, and a hash alone carries no signature.
 */
export async function checkResult(
  expected: ExpectedResult,
  result: string,
  readers: ReadonlyMap<number, PublicClient>,
): Promise<ResultCheck> {
  if (expected.kind === 'typedData') {
    if (!isHex(result) || result.length !== 132) return fail('signature is not 65 bytes of hex')
    let signer: Address
    try {
      signer = await recoverTypedDataAddress({ ...expected.typedData, signature: result })
    } catch {
      return fail('signature does not recover')
    }
    return isAddressEqual(signer, expected.from)
      ? { ok: true }
      : fail('typed-data signature is not the account')
  }
  if (expected.kind === 'solanaTransaction') {
    const check = await checkAndSubmit(expected.option, expected, result)
    return check.ok ? { ok: true, transactionHash: check.signature } : check
  }
  if (!isHex(result) || result.length !== 66) return fail('transaction hash is not 32 bytes of hex')
  if (/^0x0{64}$/.test(result)) return fail('transaction hash is the zero hash')
  const reader = readers.get(expected.chainId)
  if (reader === undefined) return { ok: true, transactionHash: result }
  let transaction: Transaction
  try {
    transaction = await reader.getTransaction({ hash: result })
  } catch {
    return fail('transaction not found on the chain')
  }
  const serialized = serializeSigned(transaction)
  if (serialized === undefined) return fail(`transaction type ${transaction.type} is not checked`)
  if (keccak256(serialized) !== result.toLowerCase())
    return fail('transaction fields do not hash to the result')
  const signer = await recoverTransactionAddress({ serializedTransaction: serialized as never })
  if (!isAddressEqual(signer, expected.from)) return fail('transaction is not signed by the account')
  if (transaction.chainId !== expected.chainId) return fail('transaction is for another chain')
  if (transaction.to == null || !isAddressEqual(transaction.to, expected.to))
    return fail('transaction `to` differs')
  if (transaction.input.toLowerCase() !== expected.data.toLowerCase())
    return fail('transaction calldata differs')
  return { ok: true, transactionHash: result }
}

export function chainReaders(readers: Readonly<Record<string, ChainReader>>): Map<number, PublicClient> {
  const map = new Map<number, PublicClient>()
  for (const [chainId, reader] of Object.entries(readers)) {
    const match = /^eip155:([0-9]{1,15})$/.exec(chainId)
    if (match === null) throw new TypeError(`chain reader key ${chainId} is not an eip155 CAIP-2 id`)
    map.set(
      Number(match[1]),
      typeof reader === 'string' ? createPublicClient({ transport: http(reader) }) : reader,
    )
  }
  return map
}

/** The signed serialisation of a fetched transaction, rebuilt from its fields (so the node's `from` is not trusted). */
function serializeSigned(transaction: Transaction): Hex | undefined {
  const base = {
    chainId: transaction.chainId ?? 0,
    nonce: transaction.nonce,
    gas: transaction.gas,
    value: transaction.value,
    data: transaction.input,
    ...(transaction.to == null ? {} : { to: transaction.to }),
  }
  const signature: Signature =
    transaction.type === 'legacy'
      ? { r: transaction.r, s: transaction.s, v: transaction.v }
      : { r: transaction.r, s: transaction.s, yParity: transaction.yParity ?? 0 }
  let unsigned: TransactionSerializable
  switch (transaction.type) {
    case 'legacy':
      unsigned = { ...base, type: 'legacy', gasPrice: transaction.gasPrice }
      break
    case 'eip2930':
      unsigned = {
        ...base,
        type: 'eip2930',
        gasPrice: transaction.gasPrice,
        accessList: transaction.accessList,
      }
      break
    case 'eip1559':
      unsigned = {
        ...base,
        type: 'eip1559',
        maxFeePerGas: transaction.maxFeePerGas,
        maxPriorityFeePerGas: transaction.maxPriorityFeePerGas,
        accessList: transaction.accessList,
      }
      break
    default:
      return undefined
  }
  try {
    return serializeTransaction(unsigned, signature)
  } catch {
    return undefined
  }
}

const fail = (reason: string): ResultCheck => ({ ok: false, reason })
