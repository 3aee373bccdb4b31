import { createHash } from 'node:crypto'
import * as v from 'valibot'
import { header, ok, type Reply, type RequestContext, type Route } from '../context.js'
import { badRequest, PayHttpError } from '../errors.js'
import { iso, newId } from '../ids.js'
import type { CryptoSettlement, Merchant } from '../model.js'
import { validateBody } from '../validate.js'

const merchantJson = (merchant: Merchant) => ({
  id: merchant.id,
  name: merchant.name,
  email: merchant.email,
  status: merchant.status,
  createdAt: iso(merchant.createdAt),
})

const settlementJson = (settlement: CryptoSettlement) => ({
  id: settlement.id,
  asset: settlement.asset,
  destination: settlement.destination,
  createdAt: iso(settlement.createdAt),
  updatedAt: iso(settlement.updatedAt),
})

const idempotencyKeyPattern = /^[\x21-\x7e]{1,255}$/

/**
 * Runs `create` once per Idempotency-Key: a replay with the same body returns the original reply (with
 * `Idempotent-Replayed: true`) and creates nothing; the same key with another body is 409 idempotency_key_reused.
 */
function idempotent(context: RequestContext, required: boolean, create: () => Reply): Reply {
  const key = header(context, 'idempotency-key')
  if (key === undefined) {
    if (required) {
      throw badRequest('the Idempotency-Key header is required', [
        { field: 'Idempotency-Key', message: 'required (a fresh UUID per request)' },
      ])
    }
    return create()
  }
  if (!idempotencyKeyPattern.test(key)) {
    throw badRequest('Idempotency-Key must be 1-255 printable ASCII characters', [
      { field: 'Idempotency-Key', message: 'invalid' },
    ])
  }
  const slot = `${context.method} ${context.path} ${key}`
  const fingerprint = createHash('sha256').update(context.rawBody).digest('hex')
  const previous = context.sandbox.idempotency.get(slot)
  if (previous !== undefined) {
    if (previous.fingerprint !== fingerprint) {
      throw new PayHttpError(
        409,
        'idempotency_key_reused',
        'this Idempotency-Key was used with a different body',
      )
    }
    return { ...previous.reply, headers: { ...previous.reply.headers, 'idempotent-replayed': 'true' } }
  }
  const reply = create()
  if (reply.status < 300) {
    const entry = { fingerprint, reply }
    context.sandbox.idempotency.set(slot, entry)
    context.sandbox.persist?.({ k: 'idempotency', id: slot, v: entry })
  }
  return reply
}

const createMerchantBody = v.object({
  merchantName: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  merchantEmail: v.pipe(v.string(), v.email()),
  // Sandbox extension (the spec has no icon field here): the checkout page shows it when https.
  merchantIconUrl: v.optional(v.pipe(v.string(), v.url(), v.maxLength(2048))),
})

export const createMerchant: Route = {
  method: 'POST',
  path: '/v1/merchants',
  auth: 'apiKey',
  handle: (context) =>
    idempotent(context, true, () => {
      const body = validateBody(createMerchantBody, context.body)
      const merchant = context.sandbox.state.createMerchant(
        body.merchantName,
        body.merchantEmail,
        body.merchantIconUrl ?? null,
      )
      return ok({ merchant: merchantJson(merchant) }, 201)
    }),
}

export const listMerchants: Route = {
  method: 'GET',
  path: '/v1/merchants',
  auth: 'apiKey',
  handle: (context) => ok({ data: [...context.sandbox.state.merchants.values()].map(merchantJson) }),
}

const caip19 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}\/[-a-z0-9]{3,8}:[-.%a-zA-Z0-9]{1,128}$/
const caip10 = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}:[-.%a-zA-Z0-9]{1,128}$/

const settlementEntry = v.pipe(
  v.object({
    asset: v.pipe(v.string(), v.regex(caip19, 'must be a CAIP-19 asset id')),
    destination: v.pipe(v.string(), v.regex(caip10, 'must be a CAIP-10 account')),
  }),
  v.check(
    (entry) => entry.destination.startsWith(`${entry.asset.split('/')[0]}:`),
    'destination must be on the same chain as the asset',
  ),
)

const createSettlementsBody = v.object({ settlements: v.pipe(v.array(settlementEntry), v.minLength(1)) })

function merchantOf(context: RequestContext): Merchant {
  const merchant = context.sandbox.state.merchants.get(context.params.merchantId!)
  if (merchant === undefined) throw new PayHttpError(404, 'merchant_not_found', 'no such merchant')
  return merchant
}

export const createCryptoSettlements: Route = {
  method: 'POST',
  path: '/v1/merchants/:merchantId/settlements/crypto',
  auth: 'apiKey',
  handle: (context) =>
    idempotent(context, false, () => {
      const merchant = merchantOf(context)
      const body = validateBody(createSettlementsBody, context.body)
      const assets = body.settlements.map((entry) => entry.asset)
      const conflict = assets.find(
        (asset, index) =>
          assets.indexOf(asset) !== index || merchant.settlements.some((s) => s.asset === asset),
      )
      if (conflict !== undefined) {
        throw new PayHttpError(409, 'settlement_asset_conflict', `asset ${conflict} is already registered`, {
          details: { asset: conflict },
        })
      }
      const now = context.sandbox.state.now()
      const created = body.settlements.map((entry) => ({
        id: newId('stl_'),
        ...entry,
        createdAt: now,
        updatedAt: now,
      }))
      merchant.settlements.push(...created)
      return ok({ settlements: created.map(settlementJson) }, 201)
    }),
}

const updateSettlementBody = v.object({
  destination: v.pipe(v.string(), v.regex(caip10, 'must be a CAIP-10 account')),
})

export const updateCryptoSettlement: Route = {
  method: 'PUT',
  path: '/v1/merchants/:merchantId/settlements/crypto/:id',
  auth: 'apiKey',
  handle: (context) => {
    const merchant = merchantOf(context)
    const settlement = merchant.settlements.find((entry) => entry.id === context.params.id)
    if (settlement === undefined) throw new PayHttpError(404, 'settlement_not_found', 'no such settlement')
    const body = validateBody(updateSettlementBody, context.body)
    if (!body.destination.startsWith(`${settlement.asset.split('/')[0]}:`)) {
      throw badRequest('destination must be on the same chain as the asset', [
        { field: 'destination', message: 'must be on the same chain as the asset' },
      ])
    }
    settlement.destination = body.destination
    settlement.updatedAt = context.sandbox.state.now()
    return ok({ settlement: settlementJson(settlement) })
  },
}

export const listCryptoSettlements: Route = {
  method: 'GET',
  path: '/v1/merchants/:merchantId/settlements/crypto',
  auth: 'apiKey',
  handle: (context) => ok({ data: merchantOf(context).settlements.map(settlementJson) }),
}
