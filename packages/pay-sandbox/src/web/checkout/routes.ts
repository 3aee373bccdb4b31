import { isPaymentId } from 'wallet-rpc/pay'
import { ok, type Reply, type RequestContext, type Route } from '../../context.js'
import { PayHttpError } from '../../errors.js'
import type { Payment } from '../../model.js'
import { html, pageReply } from '../html.js'
import { checkoutScript, checkoutStyles } from './client.js'
import { checkoutBody, notFoundBody, redirectUrl, statusLabel } from './view.js'

/** Without JavaScript, a page that is not final reloads this often. */
const noscriptRefreshSeconds = 5
/** The longest a status long poll is held (under common proxy idle timeouts). */
const longPollMs = 25_000

/**
 * The payment a checkout URL names, or undefined when no such payment exists. A path segment that is not
 * payment-id shaped is not a checkout URL at all: the API's JSON 404, as before these routes existed.
 */
function paymentOf(context: RequestContext): Payment | undefined {
  const id = context.params.id!
  if (!isPaymentId(id)) {
    throw new PayHttpError(404, 'not_found', `no route ${context.method} ${context.path}`)
  }
  const payment = context.sandbox.state.payments.get(id)
  if (payment !== undefined) context.sandbox.state.refresh(payment)
  return payment
}

/** `GET /<pay_id>`: the buyer's checkout page (`gatewayUrl`; also the payment link behind `--checkout-url`). */
export const checkoutPage: Route = {
  method: 'GET',
  path: '/:id',
  auth: 'none',
  handle: async (context): Promise<Reply> => {
    const payment = paymentOf(context)
    if (payment === undefined) return pageReply(404, { title: 'Payment not found', body: notFoundBody })
    const { state } = context.sandbox
    const final = state.isFinal(payment)
    const redirect = redirectUrl(payment, final)
    if (redirect !== null) {
      return pageReply(
        303,
        {
          title: statusLabel(payment.status),
          body: html`<main><h1>${statusLabel(payment.status)}</h1>
<p><a href="${redirect}">Continue to the merchant</a></p></main>`,
        },
        { location: redirect },
      )
    }
    const body = await checkoutBody({
      payment,
      merchant: state.merchants.get(payment.merchantId),
      link: state.paymentLink(payment),
      final,
      remainingMs: payment.expiresAt - state.now(),
      statusPath: `/${payment.id}/status`,
      live: context.sandbox.live !== undefined,
    })
    return pageReply(200, {
      title: `${statusLabel(payment.status)}: ${state.merchants.get(payment.merchantId)?.name ?? 'checkout'}`,
      body,
      styles: [checkoutStyles],
      ...(final ? {} : { scripts: [checkoutScript], noscriptRefreshSeconds }),
    })
  },
}

/**
 * `GET /<pay_id>/status?version=N`: the page's live status. With the version the page shows, the answer waits
 * until the payment changes (or ~25 s); it carries only this payment's status and, once terminal with redirects
 * enabled, where to send the buyer.
 */
export const checkoutStatus: Route = {
  method: 'GET',
  path: '/:id/status',
  auth: 'none',
  handle: async (context) => {
    const payment = paymentOf(context)
    if (payment === undefined)
      throw new PayHttpError(404, 'payment_not_found', `no payment ${context.params.id}`)
    const { state, config } = context.sandbox
    const version = context.query.get('version') ?? ''
    if (/^[0-9]{1,9}$/.test(version) && !state.isFinal(payment))
      await state.waitForChange(payment, Number(version), Math.min(longPollMs, config.maxLongPollMs))
    state.refresh(payment)
    const final = state.isFinal(payment)
    return ok({
      status: payment.status,
      label: statusLabel(payment.status),
      version: payment.stateVersion,
      final,
      redirectUrl: redirectUrl(payment, final),
    })
  },
}

/** The portal's routes; last in the table, so a fixed one-segment path (e.g. `/dashboard`) wins over `/:id`. */
export const checkoutRoutes: readonly Route[] = [checkoutPage, checkoutStatus]
