import type { RequestContext, Route } from '../../context.js'
import type { PaySandboxControl } from '../../control.js'
import { currencyOf } from '../../currencies.js'
import { PayHttpError } from '../../errors.js'
import type { MinorAmount, PaymentEvent } from '../../model.js'
import { controlRoutes } from '../../routes/control.js'
import { type Html, html } from '../html.js'
import { callRoute } from './api.js'
import { csrfField, dashboardPage, formatMinor, refusal, sessionAction, sessionPage } from './layout.js'
import type { Session } from './session.js'

/** The simulation console's buttons: the control route's actions, in the order a payment meets them. */
const consoleActions = [
  { action: 'process', label: 'Process', hint: 'requires_action → processing' },
  { action: 'succeed', label: 'Succeed', hint: 'requires_action or processing → succeeded' },
  { action: 'fail', label: 'Fail', hint: 'requires_action or processing → failed', reason: true },
  { action: 'expire', label: 'Expire', hint: 'requires_action → expired' },
  { action: 'cancel', label: 'Cancel', hint: 'requires_action → cancelled', reason: true },
  { action: 'settle', label: 'Settle', hint: 'succeeded → settled (payment.settled)' },
  { action: 'expire-routes', label: 'Expire option routes', hint: 'fetch and confirm then answer 409' },
  { action: 'require-collect-data', label: 'Require data collection', hint: 'options carry collectData' },
] as const

type Snapshot = {
  payment_id: string
  payment_state_version: number
  status: string
  live: boolean
  merchant_id: string
  reference_id: string
  amount: MinorAmount
  token_amount: MinorAmount | null
  buyer: { account_caip10: string } | null
  tx_id: string | null
  created_at: string
  updated_at: string
  expires_at: string
  fee: { total_amount: MinorAmount } | null
  failure_reason: string | null
  cancellation_reason: string | null
  settlement: { settled: boolean; amount?: MinorAmount; tx_hash?: string }
  settled_at: string | null
  flavour: string
  checkout: { successUrl: string; errorUrl: string } | null
  collect_data: boolean
  transaction_hash: string | null
}

function fiat(amount: MinorAmount | null | undefined): string {
  if (amount === null || amount === undefined) return '—'
  const currency = currencyOf(amount.unit)
  return currency === undefined
    ? `${amount.value} ${amount.unit}`
    : `${formatMinor(amount.value, currency.decimals)} ${currency.code}`
}

const paymentPath = (id: string) => `/dashboard/payments/${encodeURIComponent(id)}`

function facts(context: RequestContext, payment: Snapshot): Html {
  const merchant = context.sandbox.state.merchants.get(payment.merchant_id)
  const row = (label: string, value: Html | string | number) =>
    html`<tr><th scope="row">${label}</th><td>${value}</td></tr>`
  return html`<table id="facts">
${row('Status', html`<strong id="payment-status">${payment.status}</strong>`)}
${row('State version', html`<span id="state-version">${payment.payment_state_version}</span>`)}
${row('Reference', html`<span class="reference">${payment.reference_id}</span>`)}
${row(
  'Merchant',
  html`<a class="merchant" href="/dashboard/merchants/${encodeURIComponent(payment.merchant_id)}">${merchant?.name ?? payment.merchant_id}</a>`,
)}
${row('Amount', fiat(payment.amount))}
${row('Fee', fiat(payment.fee?.total_amount))}
${row('Token amount', payment.token_amount === null ? '—' : html`<code>${payment.token_amount.value} ${payment.token_amount.unit}</code>`)}
${row('Buyer', payment.buyer === null ? '—' : html`<code>${payment.buyer.account_caip10}</code>`)}
${row('Transaction', payment.transaction_hash === null ? '—' : html`<code>${payment.transaction_hash}</code>`)}
${row('Created by', payment.flavour === 'checkout' ? 'merchant checkout API' : 'general API')}
${row(
  'Redirects',
  payment.checkout === null
    ? 'disabled (generic result views)'
    : html`success <code>${payment.checkout.successUrl}</code>, error <code>${payment.checkout.errorUrl}</code>`,
)}
${row('Created', payment.created_at)}
${row('Last updated', payment.updated_at)}
${row('Expires', payment.expires_at)}
${payment.failure_reason === null ? '' : row('Failure reason', payment.failure_reason)}
${payment.cancellation_reason === null ? '' : row('Cancellation reason', payment.cancellation_reason)}
${row(
  'Settlement',
  payment.settlement.settled
    ? html`${fiat(payment.settlement.amount)} at ${payment.settled_at ?? ''}, <code>${payment.settlement.tx_hash ?? ''}</code>`
    : 'not settled',
)}
${row('Data collection', payment.collect_data ? 'required' : 'not required')}
</table>`
}

function consoleView(session: Session, payment: Snapshot): Html {
  return html`<section id="console" aria-labelledby="console-title">
<h2 id="console-title">Simulation console</h2>
<p class="muted">Each button runs the sandbox's test control with the API's transition rules; a transition the
rules forbid is refused with the API's error and changes nothing.</p>
<div class="console">${consoleActions.map(
    (entry) => html`<form method="post" action="${paymentPath(payment.payment_id)}/${entry.action}">
${csrfField(session)}
${'reason' in entry ? html`<label>Reason <input name="reason" maxlength="500" size="14"></label> ` : ''}
<button type="submit" name="action" value="${entry.action}" title="${entry.hint}">${entry.label}</button>
</form>`,
  )}</div>
</section>`
}

function timeline(context: RequestContext, paymentId: string): Html {
  const events = context.sandbox.state.events
    .filter((event) => event.data.payment_id === paymentId)
    .map((event, order) => ({ event, order }))
    .sort(
      (a, b) =>
        Number(a.event.data.payment_state_version) - Number(b.event.data.payment_state_version) ||
        a.order - b.order,
    )
  const deliveries = new Map<string, string[]>()
  for (const delivery of context.sandbox.webhooks.deliveries()) {
    deliveries.set(delivery.eventId, [...(deliveries.get(delivery.eventId) ?? []), delivery.state])
  }
  const row = ({ event }: { event: PaymentEvent }) => html`<tr>
<td>${String(event.data.payment_state_version)}</td><td>${event.type}</td><td>${String(event.data.status)}</td>
<td><time datetime="${event.created_at}">${event.created_at}</time></td><td class="mono">${event.id}</td>
<td>${deliveries.get(event.id)?.join(', ') ?? 'not sent (no endpoint or not subscribed)'}</td></tr>`
  return html`<section aria-labelledby="timeline-title">
<h2 id="timeline-title">Event timeline</h2>
<table id="timeline"><thead><tr><th scope="col">payment_state_version</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col">At</th><th scope="col">Event id</th><th scope="col">Webhook delivery</th></tr></thead>
<tbody>${events.map(row)}</tbody></table>
</section>`
}

export function paymentRoutes(control: PaySandboxControl): Route[] {
  const controlGet = controlRoutes(control).find(
    (route) => route.method === 'GET' && route.path === '/_sandbox/payments/:id',
  )!
  const controlPost = controlRoutes(control).find((route) => route.method === 'POST')!

  const page = sessionPage('/dashboard/payments/:id', async (context, session) => {
    const outcome = await callRoute<{ payment: Snapshot }>(context, session, controlGet, {
      params: { id: context.params.id! },
    })
    if (!outcome.ok) throw outcome.error
    const payment = outcome.body.payment
    return dashboardPage(session, {
      title: `Payment ${payment.payment_id}`,
      section: 'payments',
      body: html`<p><a href="/dashboard/payments">← All payments</a></p>
${facts(context, payment)}${consoleView(session, payment)}${timeline(context, payment.payment_id)}`,
    })
  })

  const action = sessionAction('/dashboard/payments/:id/:action', async (context, session, form) => {
    const id = context.params.id!
    const name = context.params.action!
    if (!consoleActions.some((entry) => entry.action === name)) {
      throw new PayHttpError(404, 'not_found', `no console action ${name}`)
    }
    const reason = form.get('reason')?.trim()
    const outcome = await callRoute<{ payment: Snapshot }>(context, session, controlPost, {
      params: { id, action: name },
      ...(reason ? { body: { reason } } : {}),
    })
    if (!outcome.ok && outcome.error.status === 404) throw outcome.error
    return {
      redirect: `${paymentPath(id)}#console`,
      flash: outcome.ok
        ? {
            kind: 'ok',
            message: `${name}: status now ${outcome.body.payment.status} (payment_state_version ${outcome.body.payment.payment_state_version}).`,
          }
        : refusal(outcome.error),
    }
  })
  return [page, action]
}
