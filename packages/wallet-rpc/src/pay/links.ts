/**
 * Payment link detection (spec, Gateway API rule 8). Four forms carry a payment id:
 *   https://<host>/<pay_id>, https://<host>/?pid=<pay_id>, wc:<topic>@2?...&pay=<url-encoded link>, bare pay_<id>.
 * Only `https` links whose host is a trusted checkout host or one of its subdomains are accepted; the host is
 * checked on the parsed URL (never by substring), so `pay.walletconnect.com.evil.io`, `evilpay.walletconnect.com`
 * and `https://pay.walletconnect.com@evil.io/…` are refused. The reference wallet's `isPaymentLink` is a loose
 * substring test; this is the strict version.
 */

/** The production checkout host (WalletConnect Pay); its subdomains (staging., dev.) are trusted too. */
export const defaultCheckoutHost = 'pay.walletconnect.com'

export type PaymentLinkOptions = {
  /** Checkout hosts to trust (each also trusts its subdomains). Default: `[defaultCheckoutHost]`. */
  trustedHosts?: readonly string[]
}

/** `pay_` then 1–128 characters of the id alphabet (letters, digits, `_`, `-`). */
const paymentIdPattern = /^pay_[A-Za-z0-9_-]{1,128}$/
const hostnamePattern =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
/** Longer inputs are not links anyone scans; refusing them bounds the work. */
const maxInputLength = 4096

export function isPaymentId(value: string): boolean {
  return paymentIdPattern.test(value)
}

/**
 * The payment id the input names, or null when it is not a payment link from a trusted host. Never throws for
 * any input; a `trustedHosts` option that is not a list of bare hostnames is a TypeError (`trustedHosts: …`).
 */
export function parsePaymentLink(input: unknown, options: PaymentLinkOptions = {}): string | null {
  if (typeof input !== 'string' || input.length > maxInputLength) return null
  const hosts = trustedHostsOf(options)
  const text = input.trim()
  if (paymentIdPattern.test(text)) return text
  if (/^wc:/i.test(text)) return fromPairingUri(text, hosts)
  return fromCheckoutUrl(text, hosts)
}

/**
 * Whether a scanned or pasted string is a payment link. Check this before treating the string as a
 * WalletConnect pairing URI or a generic URL (a `wc:` URI with a `pay` parameter is a payment, not a pairing).
 */
export function isPaymentLink(input: unknown, options: PaymentLinkOptions = {}): boolean {
  return parsePaymentLink(input, options) !== null
}

function trustedHostsOf(options: PaymentLinkOptions | null): readonly string[] {
  let hosts: readonly unknown[] | undefined
  try {
    const given: unknown = options?.trustedHosts ?? [defaultCheckoutHost]
    hosts = Array.isArray(given) ? [...given] : undefined
  } catch {
    hosts = undefined
  }
  if (hosts === undefined) throw new TypeError('trustedHosts: expected a list of bare hostnames')
  return hosts.map((host) => {
    const normalized = typeof host === 'string' ? host.toLowerCase() : ''
    if (!hostnamePattern.test(normalized))
      throw new TypeError(
        `trustedHosts: ${typeof host === 'string' ? `"${host}"` : typeof host} is not a bare hostname`,
      )
    return normalized
  })
}

function fromPairingUri(text: string, hosts: readonly string[]): string | null {
  const query = text.indexOf('?')
  if (query < 0) return null
  const links = new URLSearchParams(text.slice(query + 1)).getAll('pay')
  // One unambiguous link, and it must itself be a trusted https link (not a bare id, not another wc: URI).
  if (links.length !== 1) return null
  return fromCheckoutUrl(links[0]!, hosts)
}

function fromCheckoutUrl(text: string, hosts: readonly string[]): string | null {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return null
  }
  if (url.protocol !== 'https:') return null
  // Credentials in the authority are the classic lookalike (`https://pay.walletconnect.com@evil.io/`); a link
  // with an explicit port is not one the checkout host issues.
  if (url.username !== '' || url.password !== '' || url.port !== '') return null
  if (!isTrustedHost(url.hostname, hosts)) return null

  const segments = url.pathname.split('/').filter((segment) => segment !== '')
  if (segments.length > 1) return null
  const fromPath = segments[0]
  const pids = url.searchParams.getAll('pid')
  if (pids.length > 1) return null
  const fromQuery = pids[0]
  if (fromPath !== undefined && fromQuery !== undefined) return null
  const id = fromPath ?? fromQuery
  return id !== undefined && paymentIdPattern.test(id) ? id : null
}

function isTrustedHost(hostname: string, hosts: readonly string[]): boolean {
  return hosts.some((host) => hostname === host || hostname.endsWith(`.${host}`))
}

/**
 * What goes in the gateway path for a payment link `parsePaymentLink` accepted, as `@walletconnect/pay` sends it:
 * the id for a bare id or a link on WalletConnect's own hosts; any other checkout link whole, percent-encoded
 * (every character but `A-Za-z0-9-_.~`), so the gateway applies its own host rule to it. The path segment is this
 * value percent-encoded once more.
 */
export function gatewayPathId(input: string, paymentId: string): string {
  const text = input.trim()
  if (paymentIdPattern.test(text)) return text
  const link = /^wc:/i.test(text) ? new URLSearchParams(text.slice(text.indexOf('?') + 1)).get('pay') : text
  if (link === null || isTrustedHost(new URL(link).hostname, [defaultCheckoutHost])) return paymentId
  return encodeURIComponent(link).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}
