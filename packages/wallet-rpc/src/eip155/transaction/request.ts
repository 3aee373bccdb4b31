import * as v from 'valibot'
import type { AccessList, Address, Hex } from 'viem'
import { InvalidParamsError } from '../../core/errors.js'
import {
  addressSchema,
  bytes32Schema,
  dataSchema,
  maxUint64,
  maxUint256,
  quantitySchema,
} from '../schemas.js'
import type { Fees } from '../types.js'

export type { Fees } from '../types.js'

/**
 * The transaction object of `eth_sendTransaction` / `eth_signTransaction` (execution-apis
 * `GenericTransaction`), strictly: unknown fields are refused rather than silently dropped, and blob
 * (type 3) and EIP-7702 (type 4) transactions are not accepted from dapps.
 */
export const transactionRequestSchema = v.strictObject(
  {
    from: addressSchema,
    to: v.optional(v.nullable(addressSchema)),
    gas: v.optional(quantitySchema(maxUint64, '2^64 - 1')),
    gasPrice: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    maxFeePerGas: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    maxPriorityFeePerGas: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    value: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    // EIP-2681 caps nonces at 2^64 - 2; viem needs a safe integer, which is lower still.
    nonce: v.optional(quantitySchema(BigInt(Number.MAX_SAFE_INTEGER), '2^53 - 1')),
    chainId: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    type: v.optional(
      v.picklist(
        ['0x0', '0x1', '0x2'],
        'must be 0x0, 0x1 or 0x2 (blob and EIP-7702 transactions are not accepted from dapps)',
      ),
    ),
    data: v.optional(dataSchema),
    input: v.optional(dataSchema),
    accessList: v.optional(
      v.array(v.strictObject({ address: addressSchema, storageKeys: v.array(bytes32Schema) })),
    ),
    // Read only to be refused with its own reason (plan.ts): a dapp never delegates the user's account.
    authorizationList: v.optional(v.unknown()),
  },
  'must be a transaction object with only the execution-apis fields (unknown fields are refused)',
)

export type TransactionRequest = v.InferOutput<typeof transactionRequestSchema>

/** A fully filled transaction except, when the dapp left it out, the nonce (reserved only after approval). */
export type TransactionDraft = {
  from: Address
  chainId: number
  to: Address | undefined
  value: bigint
  data: Hex
  gas: bigint
  fees: Fees
  accessList: AccessList | undefined
  nonce: number | undefined
  /** What the node estimated, when a provider was asked (a dapp-set gas below it is flagged). */
  gasEstimate: bigint | undefined
  /**
   * Why eth_call reverted, when the wallet went on anyway (the dapp set gas and reviews simulate): the
   * review shows it as a `danger` warning even if the simulation itself cannot run.
   */
  callReverted?: string
}

export function dataOf(request: TransactionRequest): Hex {
  if (request.data !== undefined && request.input !== undefined && request.data !== request.input) {
    throw new InvalidParamsError('data and input are both given and differ', { path: '0.input' })
  }
  return request.input ?? request.data ?? '0x'
}

export function feesComplete(request: TransactionRequest): boolean {
  return (
    request.gasPrice !== undefined ||
    (request.maxFeePerGas !== undefined && request.maxPriorityFeePerGas !== undefined)
  )
}
