import type { Route } from '../context.js'
import { PayHttpError } from '../errors.js'

const paymentIdPattern = /^pay_[A-Za-z0-9_-]{1,128}$/
const schemePattern = /^[a-z][a-z0-9+.-]*:/i

/**
 * A gateway route whose `{id}` may also be a payment link: `@walletconnect/pay` extracts the id itself only from
 * links on WalletConnect's own hosts and sends any other link whole, percent-encoded twice (once by itself, once
 * as a path segment), and keeps using that string for fetch, confirm and status. The route sees the payment id.
 */
export function withPaymentLink(route: Route): Route {
  return {
    ...route,
    handle: (context) => {
      // Rewritten in place, not copied: the server journals the payment `params.id` names after the reply.
      const params = context.params as Record<string, string>
      params.id = paymentIdInPath(params.id!, context.sandbox.config.checkoutUrl)
      return route.handle(context)
    },
  }
}

/**
 * The payment id a path segment (already percent-decoded once) names: a bare id as is; a link (after one more
 * decoding when it was encoded twice) by the seed's link rule, on this sandbox's checkout host. Anything else is
 * returned as it is, and the lookup answers 404 payment_not_found.
 */
export function paymentIdInPath(segment: string, checkoutUrl: string): string {
  let text = segment
  if (!schemePattern.test(text) && /%[0-9A-Fa-f]{2}/.test(text)) {
    try {
      text = decodeURIComponent(text)
    } catch {
      throw invalidLink('the payment link in the path is not valid percent-encoding')
    }
  }
  return schemePattern.test(text) ? paymentIdOfLink(text, checkoutUrl) : text
}

/**
 * Seed rule 8: `{checkout_url}/<id>`, `{checkout_url}/?pid=<id>`, or a `wc:` URI whose one `pay` parameter holds
 * such a link; only the checkout host and its subdomains are trusted, checked on the parsed URL before extracting.
 */
function paymentIdOfLink(text: string, checkoutUrl: string): string {
  if (/^wc:/i.test(text)) {
    const query = text.indexOf('?')
    const links = query < 0 ? [] : new URLSearchParams(text.slice(query + 1)).getAll('pay')
    if (links.length !== 1 || /^wc:/i.test(links[0]!)) {
      throw invalidLink('a wc: URI must carry exactly one pay= payment link')
    }
    return paymentIdOfLink(links[0]!, checkoutUrl)
  }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw invalidLink('the payment link is not a URL')
  }
  const checkout = new URL(checkoutUrl)
  const trustedHost = url.hostname === checkout.hostname || url.hostname.endsWith(`.${checkout.hostname}`)
  if (
    !trustedHost ||
    url.protocol !== checkout.protocol ||
    url.port !== checkout.port ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw invalidLink(
      `${url.host} is not this gateway's checkout host ${checkout.host} or one of its subdomains`,
    )
  }
  const base = checkout.pathname.replace(/\/+$/, '')
  const rest = url.pathname.startsWith(`${base}/`) ? url.pathname.slice(base.length + 1) : undefined
  const pids = url.searchParams.getAll('pid')
  const id = rest === '' && pids.length === 1 ? pids[0] : pids.length === 0 ? rest : undefined
  if (id === undefined || !paymentIdPattern.test(id)) {
    throw invalidLink(
      `a payment link is ${checkout.origin}${base}/<pay_id> or ${checkout.origin}${base}/?pid=<pay_id>`,
    )
  }
  return id
}

const invalidLink = (message: string): PayHttpError =>
  new PayHttpError(400, 'invalid_params', message, { issues: [{ field: 'id', message }] })
