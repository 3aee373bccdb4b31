import type { RequestContext } from '../../context.js'
import { listPayments } from '../../routes/listPayments.js'
import { type Html, html } from '../html.js'
import { callRoute } from './api.js'
import { dashboardPage, flashView, formatMinor, refusal, sessionPage, utcFromInput } from './layout.js'
import type { Session } from './session.js'

type Display = { assetSymbol: string; decimals: number; networkName?: string }
export type ListItem = {
  paymentId: string
  merchant: { id: string; name: string }
  referenceId: string
  status: string
  isTerminal: boolean
  fiatAmount: { value: string; display: Display }
  tokenAmount?: { value: string; display: Display }
  buyer?: { accountCaip10: string }
  settlement?: { settled: boolean }
  createdAt: string
  lastUpdatedAt: string
  settledAt?: string
}
type ListBody = {
  data: ListItem[]
  nextCursor: string | null
  stats: {
    totalRevenue: Array<{ amount: number; currency: string }>
    totalTransactions: number
    totalCustomers: number
  }
}

/** The list endpoint's status filter values (cancelled payments are listed as failed). */
const statuses = ['requires_action', 'processing', 'succeeded', 'failed', 'expired'] as const
const singleFilters = [
  'token_symbol',
  'network',
  'referenceId',
  'sortBy',
  'sortDir',
  'limit',
  'cursor',
] as const

/**
 * The page's query → the list endpoint's query: the same names, except the two times, which the form takes as
 * `datetime-local` (UTC) and the endpoint as RFC 3339. A time that does not parse goes through as typed, so the
 * endpoint's own refusal names it.
 */
function listQuery(page: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams()
  for (const status of page.getAll('status')) if (status !== '') query.append('status', status)
  for (const merchantId of page.getAll('merchantId'))
    if (merchantId !== '') query.append('merchantId', merchantId)
  for (const name of singleFilters) {
    const value = page.get(name)?.trim()
    if (value !== undefined && value !== '') query.set(name, value)
  }
  for (const [field, name] of [
    ['from', 'startTs'],
    ['to', 'endTs'],
  ] as const) {
    const text = page.get(field)?.trim()
    if (text !== undefined && text !== '') query.set(name, utcFromInput(text) ?? text)
  }
  return query
}

const amount = (value: { value: string; display: Display } | undefined): string =>
  value === undefined
    ? '—'
    : `${formatMinor(value.value, value.display.decimals)} ${value.display.assetSymbol}`

function filterForm(context: RequestContext, page: URLSearchParams): Html {
  const chosen = new Set(page.getAll('status'))
  const merchants = [...context.sandbox.state.merchants.values()]
  const value = (name: string) => page.get(name) ?? ''
  const option = (name: string, option: string, label: string) =>
    html`<option value="${option}"${value(name) === option ? html` selected` : ''}>${label}</option>`
  return html`<form method="get" action="/dashboard/payments" aria-label="Filter payments">
<fieldset><legend>Status</legend>${statuses.map(
    (status) =>
      html`<label><input type="checkbox" name="status" value="${status}"${chosen.has(status) ? html` checked` : ''}> ${status}</label> `,
  )}</fieldset>
<div class="filters">
<label>Reference contains <input name="referenceId" value="${value('referenceId')}" maxlength="35"></label>
<label>Merchant <select name="merchantId"><option value="">any</option>${merchants.map((merchant) =>
    option('merchantId', merchant.id, merchant.name),
  )}</select></label>
<label>Token symbol <input name="token_symbol" value="${value('token_symbol')}" size="8" placeholder="USDC"></label>
<label>Networks (CAIP-2, comma-separated) <input name="network" value="${value('network')}" placeholder="eip155:1"></label>
<label>Created from (UTC) <input type="datetime-local" name="from" value="${value('from')}"></label>
<label>Created before (UTC) <input type="datetime-local" name="to" value="${value('to')}"></label>
<label>Sort by <select name="sortBy">${option('sortBy', 'date', 'date')}${option('sortBy', 'amount', 'amount')}</select></label>
<label>Direction <select name="sortDir">${option('sortDir', 'desc', 'newest / largest first')}${option('sortDir', 'asc', 'oldest / smallest first')}</select></label>
<label>Per page <input type="number" name="limit" min="1" max="200" value="${value('limit') || '50'}" size="4"></label>
<button type="submit">Apply</button> <a href="/dashboard/payments">Reset</a>
</div>
</form>`
}

function statsView(stats: ListBody['stats']): Html {
  const revenue =
    stats.totalRevenue.length === 0
      ? '0'
      : stats.totalRevenue.map((entry) => `${entry.amount} ${entry.currency}`).join(', ')
  return html`<section class="stats" aria-label="Statistics of the filtered payments">
<p>Revenue (succeeded): <strong>${revenue}</strong></p>
<p>Transactions: <strong id="stat-transactions">${stats.totalTransactions}</strong></p>
<p>Customers: <strong>${stats.totalCustomers}</strong></p>
</section>`
}

function table(items: ListItem[]): Html {
  if (items.length === 0) return html`<p>No payments match.</p>`
  return html`<table id="payments">
<caption class="muted">Newest data at the time of loading; cancelled payments are listed as failed.</caption>
<thead><tr><th scope="col">Payment</th><th scope="col">Reference</th><th scope="col">Merchant</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Token amount</th><th scope="col">Created</th><th scope="col">Settled</th></tr></thead>
<tbody>${items.map(
    (item) => html`<tr>
<td><a class="mono" href="/dashboard/payments/${encodeURIComponent(item.paymentId)}">${item.paymentId}</a></td>
<td class="reference">${item.referenceId}</td>
<td class="merchant">${item.merchant.name}</td>
<td>${item.status}</td>
<td>${amount(item.fiatAmount)}</td>
<td>${amount(item.tokenAmount)}</td>
<td><time datetime="${item.createdAt}">${item.createdAt}</time></td>
<td>${item.settledAt ?? (item.settlement === undefined ? '—' : 'not yet')}</td>
</tr>`,
  )}</tbody></table>`
}

async function render(context: RequestContext, session: Session) {
  const outcome = await callRoute<ListBody>(context, session, listPayments, {
    query: listQuery(context.query),
  })
  let results: Html | string
  if (!outcome.ok) {
    results = flashView(refusal(outcome.error))
  } else {
    const next = new URLSearchParams(context.query)
    const { nextCursor } = outcome.body
    if (nextCursor !== null) next.set('cursor', nextCursor)
    const first = new URLSearchParams(context.query)
    first.delete('cursor')
    results = html`${statsView(outcome.body.stats)}${table(outcome.body.data)}
<nav aria-label="Pages"><p>${
      context.query.has('cursor')
        ? html`<a href="/dashboard/payments?${first.toString()}">First page</a> `
        : ''
    }${nextCursor === null ? '' : html`<a rel="next" href="/dashboard/payments?${next.toString()}">Next page</a>`}</p></nav>`
  }
  return dashboardPage(session, {
    title: 'Payments',
    section: 'payments',
    body: html`${filterForm(context, context.query)}${results}`,
    status: outcome.ok ? 200 : outcome.error.status,
  })
}

export const paymentsPage = sessionPage('/dashboard/payments', render)
