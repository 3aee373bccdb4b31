import * as v from 'valibot'
import { addressSchema, dataSchema, maxUint256, quantitySchema } from '../schemas.js'

/**
 * The params of `wallet_sendCalls` (EIP-5792 2.0.0, and the 1.0 shape without `atomicRequired`), checked
 * field by field before anything reads the chain. Unknown fields are refused, as for transactions.
 */

/** A capability object: `optional: true` lets a wallet that does not know it go on without it. */
const capabilitySchema = v.looseObject(
  { optional: v.optional(v.boolean('must be a boolean')) },
  'must be a capability object',
)

export const capabilitiesSchema = v.optional(
  v.pipe(
    v.record(v.string(), capabilitySchema, 'must be an object of capabilities'),
    v.check((record) => Object.keys(record).length <= 32, 'must not list more than 32 capabilities'),
  ),
)

export const callSchema = v.strictObject(
  {
    to: v.optional(addressSchema),
    data: v.optional(dataSchema),
    value: v.optional(quantitySchema(maxUint256, '2^256 - 1')),
    capabilities: capabilitiesSchema,
  },
  'must be a call object with to, data, value and capabilities only',
)

/** EIP-5792 ids are strings of up to 4096 bytes; ours never reach that. */
const idSchema = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(4096, 'must not exceed 4096 characters'),
)

export const sendCallsRequestSchema = v.strictObject(
  {
    version: v.picklist(['2.0.0', '1.0', '1.0.0'], 'must be "2.0.0" (or the 1.0 shape\'s "1.0")'),
    id: v.optional(idSchema),
    from: v.optional(addressSchema),
    chainId: quantitySchema(BigInt(Number.MAX_SAFE_INTEGER), '2^53 - 1'),
    atomicRequired: v.optional(v.boolean('must be a boolean')),
    calls: v.pipe(
      v.array(callSchema, 'must be an array of calls'),
      v.minLength(1, 'must hold at least one call'),
    ),
    capabilities: capabilitiesSchema,
  },
  'must be an EIP-5792 wallet_sendCalls object (version, id, from, chainId, atomicRequired, calls, capabilities)',
)

export type SendCallsRequest = v.InferOutput<typeof sendCallsRequestSchema>

export const callsIdSchema = idSchema
