import * as v from 'valibot'

/**
 * What the gateway sends, parsed tolerantly (unknown fields are kept out, not refused) but strictly where
 * the client acts on a value: action kinds, chain ids, methods, option ids, statuses.
 * Shapes follow the spec's Gateway API and the gateway's OpenAPI (`wc-pay-docs` `api/2026-02-18.json`).
 */

const nullish = <T extends v.GenericSchema>(schema: T) => v.nullish(schema)

const amountSchema = v.looseObject({
  unit: v.string(),
  value: v.string(),
  display: nullish(
    v.looseObject({
      assetSymbol: v.string(),
      assetName: v.optional(v.string()),
      decimals: v.optional(v.number()),
      networkName: nullish(v.string()),
      iconUrl: nullish(v.string()),
    }),
  ),
})
export type Amount = v.InferOutput<typeof amountSchema>

/** `params` is an array in the OpenAPI and "JSON-encoded" in the spec and the SDK: both are accepted. */
const walletRpcActionSchema = v.object({
  type: v.literal('walletRpc'),
  data: v.looseObject({
    chain_id: v.pipe(
      v.string(),
      v.regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'must be a CAIP-2 chain id'),
    ),
    method: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
    params: v.union([v.array(v.unknown()), v.string()]),
  }),
})
export type WalletRpcAction = v.InferOutput<typeof walletRpcActionSchema>

const buildActionSchema = v.object({
  type: v.literal('build'),
  data: v.looseObject({ data: v.string() }),
})

const actionSchema = v.variant('type', [walletRpcActionSchema, buildActionSchema])
export type Action = v.InferOutput<typeof actionSchema>

const collectDataFieldSchema = v.looseObject({
  id: v.string(),
  name: v.optional(v.string()),
  type: v.optional(v.string()),
  required: v.optional(v.boolean()),
})
export type CollectDataField = v.InferOutput<typeof collectDataFieldSchema>

/** Per option and at response level: a web-view `url`, a JSON `schema` (object or JSON text), and/or `fields`. */
const collectDataSchema = v.looseObject({
  url: nullish(v.string()),
  schema: nullish(v.union([v.record(v.string(), v.unknown()), v.string()])),
  fields: nullish(v.array(collectDataFieldSchema)),
})
export type CollectData = v.InferOutput<typeof collectDataSchema>

const optionSchema = v.looseObject({
  id: v.pipe(v.string(), v.minLength(1)),
  account: v.optional(v.string()),
  amount: v.optional(amountSchema),
  etaS: v.optional(v.number()),
  /** Unix seconds, when the option's route expires earlier than the payment. */
  expiresAt: nullish(v.number()),
  actions: v.array(actionSchema),
  collectData: nullish(collectDataSchema),
})
export type RawOption = v.InferOutput<typeof optionSchema>

const paymentInfoSchema = v.looseObject({
  status: v.optional(v.string()),
  amount: v.optional(amountSchema),
  /** Unix seconds. */
  expiresAt: v.optional(v.number()),
  merchant: nullish(v.looseObject({ name: v.optional(v.string()), iconUrl: nullish(v.string()) })),
})
export type PaymentInfo = v.InferOutput<typeof paymentInfoSchema>

export const optionsResponseSchema = v.looseObject({
  options: v.array(optionSchema),
  info: nullish(paymentInfoSchema),
  collectData: nullish(collectDataSchema),
})

export const fetchResponseSchema = v.looseObject({ actions: v.array(actionSchema) })

const paymentStatusSchema = v.picklist([
  'requires_action',
  'processing',
  'succeeded',
  'failed',
  'expired',
  'cancelled',
])
export type PaymentStatus = v.InferOutput<typeof paymentStatusSchema>

export const confirmResponseSchema = v.looseObject({
  status: paymentStatusSchema,
  isFinal: v.boolean(),
  pollInMs: nullish(v.pipe(v.number(), v.minValue(0))),
  info: nullish(v.looseObject({ txId: v.optional(v.string()) })),
})
export type ConfirmResponse = v.InferOutput<typeof confirmResponseSchema>

/** The gateway's error body. */
export const errorBodySchema = v.looseObject({
  message: v.string(),
  code: v.string(),
  details: v.optional(v.unknown()),
  issues: v.optional(v.array(v.looseObject({ field: v.string(), message: v.string() }))),
})
