import { createHash } from 'node:crypto'
import QRCode from 'qrcode'
import { formatFiat } from '../../currencies.js'
import type { Merchant, Payment, PaymentStatus } from '../../model.js'
import { type Html, html, merchantIcon, trustedHtml } from '../html.js'

/** What the buyer reads for each status: the live status line and the terminal views' headings. */
const statusText: Record<PaymentStatus, { label: string; detail: string }> = {
  requires_action: {
    label: 'Waiting for payment',
    detail: 'Scan the code with your wallet, or open the link in a wallet app on this device.',
  },
  processing: {
    label: 'Payment submitted, confirming',
    detail: 'Your wallet sent the payment. This page updates once it is confirmed.',
  },
  succeeded: { label: 'Payment succeeded', detail: 'Thank you. The merchant received your payment.' },
  failed: {
    label: 'Payment failed',
    detail: 'The payment did not go through. Return to the merchant to try again.',
  },
  expired: {
    label: 'Payment expired',
    detail: 'The time to pay ran out before a payment arrived. Return to the merchant to start again.',
  },
  cancelled: { label: 'Payment cancelled', detail: 'This payment was cancelled. Nothing was paid.' },
}

export const statusLabel = (status: PaymentStatus): string => statusText[status].label

/**
 * Where a terminal payment sends the buyer. The spec's rule: only when both `successUrl` and `errorUrl` were
 * valid HTTPS URLs at creation (`payment.checkout` is null otherwise) — success goes to `successUrl`, every
 * other terminal state (failed, expired, cancelled) to `errorUrl`. Null: show the generic terminal view.
 */
export function redirectUrl(payment: Payment, final: boolean): string | null {
  if (!final || payment.checkout === null) return null
  return payment.status === 'succeeded' ? payment.checkout.successUrl : payment.checkout.errorUrl
}

/**
 * The `wc:` form of the link (spec, Gateway API rule 8): a pairing URI whose `pay` parameter carries the
 * URL-encoded payment link. The sandbox runs no relay, so the pairing part (topic, symKey) is derived from the
 * payment id and never used: a wallet checks for `pay` before treating a `wc:` URI as a pairing.
 */
export function walletConnectUri(paymentId: string, link: string): string {
  const derive = (label: string) => createHash('sha256').update(`${label}:${paymentId}`).digest('hex')
  return `wc:${derive('topic')}@2?relay-protocol=irn&symKey=${derive('symKey')}&pay=${encodeURIComponent(link)}`
}

export type CheckoutView = {
  payment: Payment
  merchant: Merchant | undefined
  /** The payment link a wallet scans (`<checkoutUrl>/<pay_id>`). */
  link: string
  final: boolean
  /** Time left to pay, by the sandbox's clock (the page counts down from it, not from the buyer's clock). */
  remainingMs: number
  /** Where the page asks for status changes (long poll). */
  statusPath: string
  /** A live-mode payment (real transfers on the sandbox's chains): said plainly on the page. */
  live: boolean
}

/** The QR code of the link as inline SVG (made by `qrcode` from the link, which holds no markup). */
async function qrSvg(link: string): Promise<Html> {
  const svg = await QRCode.toString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 4, width: 264 })
  return trustedHtml(svg.replace('<svg ', '<svg role="img" aria-labelledby="qr-caption" focusable="false" '))
}

function merchantHeader(merchant: Merchant | undefined, payment: Payment): Html {
  return html`<header class="merchant">
${merchantIcon(merchant?.iconUrl)}
<div><p class="muted eyebrow">Pay</p><h1>${merchant?.name ?? 'Merchant'}</h1>
<p class="muted">Order <span class="reference">${payment.referenceId}</span></p></div>
</header>`
}

/** The body of the checkout page: merchant, amount, live status line, then the pay section or a terminal view. */
export async function checkoutBody(view: CheckoutView): Promise<Html> {
  const { payment, final } = view
  const text = statusText[payment.status]
  const amount = formatFiat(payment.amount)
  const awaiting = payment.status === 'requires_action'
  const wc = walletConnectUri(payment.id, view.link)
  const content = awaiting
    ? html`<section aria-labelledby="scan-heading">
<h2 id="scan-heading">Scan to pay</h2>
<p>${text.detail}</p>
<figure class="qr" data-until-expiry>${await qrSvg(view.link)}
<figcaption id="qr-caption">QR code of the payment link for ${amount}</figcaption></figure>
<p data-until-expiry><a class="wallet-link" href="${wc}">Open in a wallet app</a></p>
<p>Time left to pay: <time id="countdown" role="timer" datetime="${new Date(payment.expiresAt).toISOString()}">${formatRemaining(view.remainingMs)}</time>
<span class="muted">(until ${new Date(payment.expiresAt).toISOString().slice(11, 19)} UTC)</span></p>
<details data-until-expiry><summary>Payment link as text</summary>
<p><label>Link <input readonly value="${view.link}" aria-describedby="link-help"></label></p>
<p><label>WalletConnect form <input readonly value="${wc}"></label></p>
<p id="link-help" class="muted">Paste either into a wallet that supports WalletConnect Pay.</p></details>
</section>`
    : html`<section aria-labelledby="result-heading" class="result result-${payment.status}">
<h2 id="result-heading" tabindex="-1">${text.label}</h2>
<p>${text.detail}</p>
</section>`
  return html`${merchantHeader(view.merchant, payment)}
<p class="amount"><span class="sr-only">Amount: </span>${amount}</p>
<p id="status" role="status" class="status status-${payment.status}${final ? ' sr-only' : ''}">${text.label}</p>
<main id="checkout" data-payment-status="${payment.status}" data-final="${String(final)}"
 data-version="${payment.stateVersion}" data-remaining-ms="${Math.max(0, view.remainingMs)}"
 data-status-url="${view.statusPath}">${content}</main>
<footer class="muted"><p>${view.live ? 'Live mode: this payment moves real tokens on the sandbox chains.' : 'Test mode: no funds move.'} Payment <code>${payment.id}</code></p></footer>`
}

/** `14:59`, or `1:02:03` above an hour; never negative. */
export function formatRemaining(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000))
  const two = (value: number) => String(value).padStart(2, '0')
  const minutes = `${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}`
  return seconds >= 3600 ? `${Math.floor(seconds / 3600)}:${minutes}` : minutes
}

export const notFoundBody = html`<main><h1>Payment not found</h1>
<p>There is no payment at this address. Check the link the merchant gave you, or ask the merchant for a new one.</p>
</main>`
