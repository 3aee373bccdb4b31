import * as v from 'valibot'
import { header, ok, portalBase, type RequestContext, type Route } from '../context.js'
import { badRequest, PayHttpError } from '../errors.js'
import type { Merchant, Payment } from '../model.js'
import { tokenAmount } from '../state.js'
import { fiatAmountSchema, isHttpsUrl, referenceIdSchema, validateBody } from '../validate.js'

/** The merchant named by `Merchant-Id`: missing → 400 params_validation, unknown → 404 merchant_not_found. */
function requireMerchant(context: RequestContext): Merchant {
  const id = header(context, 'merchant-id')
  if (id === undefined) {
    throw badRequest('the Merchant-Id header is required', [{ field: 'Merchant-Id', message: 'required' }])
  }
  const merchant = context.sandbox.state.merchants.get(id)
  if (merchant === undefined) throw new PayHttpError(404, 'merchant_not_found', `no merchant ${id}`)
  return merchant
}

/** The payment in the path, only if it belongs to the Merchant-Id merchant (otherwise 404 like an unknown id). */
function merchantPayment(context: RequestContext): Payment {
  const merchant = requireMerchant(context)
  const payment = context.sandbox.state.payment(context.params.id!)
  if (payment.merchantId !== merchant.id) {
    throw new PayHttpError(404, 'payment_not_found', `no payment ${context.params.id}`)
  }
  return payment
}

const createPaymentBody = v.object({ referenceId: referenceIdSchema, amount: fiatAmountSchema })

export const createPayment: Route = {
  method: 'POST',
  path: '/v1/payments',
  auth: 'apiKey',
  handle: (context) => {
    const merchant = requireMerchant(context)
    const body = validateBody(createPaymentBody, context.body)
    const { state, config } = context.sandbox
    const payment = state.createPayment({
      merchantId: merchant.id,
      referenceId: body.referenceId,
      amount: body.amount,
      flavour: 'general',
      checkout: null,
    })
    return ok(
      {
        id: payment.id,
        paymentLink: state.paymentLink(payment),
        status: payment.status,
        amount: payment.amount,
        referenceId: payment.referenceId,
        expiresAt: Math.floor(payment.expiresAt / 1000),
        isFinal: false,
        pollInMs: config.pollInMs,
      },
      201,
    )
  },
}

/** The general status body (also the gateway's status). */
export function statusJson(context: RequestContext, payment: Payment) {
  const final = context.sandbox.state.isFinal(payment)
  const route = payment.chosen?.route
  return {
    status: payment.status,
    isFinal: final,
    pollInMs: final ? null : context.sandbox.config.pollInMs,
    info: {
      txId: context.sandbox.state.txId(payment),
      optionAmount: route === undefined ? null : tokenAmount(route),
    },
  }
}

export const paymentStatus: Route = {
  method: 'GET',
  path: '/v1/payments/:id/status',
  auth: 'apiKey',
  handle: (context) => ok(statusJson(context, merchantPayment(context))),
}

/** The merchant checkout API's status vocabulary: `pending` for requires_action; cancelled shows as failed. */
function checkoutStatus(payment: Payment): string {
  if (payment.status === 'requires_action') return 'pending'
  if (payment.status === 'cancelled') return 'failed'
  return payment.status
}

const checkoutBody = v.object({
  referenceId: referenceIdSchema,
  amount: fiatAmountSchema,
  checkout: v.optional(v.object({ successUrl: v.optional(v.unknown()), errorUrl: v.optional(v.unknown()) })),
})

export const createCheckoutPayment: Route = {
  method: 'POST',
  path: '/v1/merchant/payment',
  auth: 'apiKey',
  handle: (context) => {
    const merchant = requireMerchant(context)
    const body = validateBody(checkoutBody, context.body)
    const { successUrl, errorUrl } = body.checkout ?? {}
    // Spec: when either URL is missing or not a valid HTTPS URL, redirects are disabled for the payment.
    const checkout = isHttpsUrl(successUrl) && isHttpsUrl(errorUrl) ? { successUrl, errorUrl } : null
    const { state, config } = context.sandbox
    const payment = state.createPayment({
      merchantId: merchant.id,
      referenceId: body.referenceId,
      amount: body.amount,
      flavour: 'checkout',
      checkout,
    })
    return ok(
      {
        paymentId: payment.id,
        // The checkout page the sandbox serves itself (the QR on it carries the wallet's payment link).
        gatewayUrl: `${portalBase(context.sandbox)}/${payment.id}`,
        status: checkoutStatus(payment),
        expiresAt: Math.floor(payment.expiresAt / 1000),
        isFinal: false,
        pollInMs: config.pollInMs,
      },
      201,
    )
  },
}

export const checkoutPaymentStatus: Route = {
  method: 'GET',
  path: '/v1/merchant/payment/:id/status',
  auth: 'apiKey',
  handle: (context) => {
    const payment = merchantPayment(context)
    return ok({ status: checkoutStatus(payment), isFinal: context.sandbox.state.isFinal(payment) })
  },
}
