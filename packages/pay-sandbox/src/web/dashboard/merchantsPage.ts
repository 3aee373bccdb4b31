import type { RequestContext, Route } from '../../context.js'
import { PayHttpError } from '../../errors.js'
import type { Merchant } from '../../model.js'
import { createCryptoSettlements, createMerchant, updateCryptoSettlement } from '../../routes/merchants.js'
import { type Html, html, merchantIcon } from '../html.js'
import { callRoute } from './api.js'
import { csrfField, dashboardPage, refusal, sessionAction, sessionPage } from './layout.js'
import { randomToken, type Session } from './session.js'

const merchantsPath = '/dashboard/merchants'
const merchantPath = (id: string) => `${merchantsPath}/${encodeURIComponent(id)}`

/** The merchant in the path, or a 404 page. */
function merchantOf(context: RequestContext): Merchant {
  const merchant = context.sandbox.state.merchants.get(context.params.merchantId!)
  if (merchant === undefined)
    throw new PayHttpError(404, 'merchant_not_found', `no merchant ${context.params.merchantId}`)
  return merchant
}

const iso = (ms: number) => new Date(ms).toISOString()

/** The icon when it is https; any other icon URL is named as text and not loaded. */
function iconView(merchant: Merchant): Html {
  const icon = merchantIcon(merchant.iconUrl)
  return icon.text !== '' || !merchant.iconUrl
    ? icon
    : html`<span class="muted icon-refused">not loaded (not https): <code>${merchant.iconUrl}</code></span>`
}

function merchantList(context: RequestContext): Html {
  const merchants = [...context.sandbox.state.merchants.values()]
  return html`<table id="merchants"><thead><tr><th scope="col">Icon</th><th scope="col">Merchant</th><th scope="col">Id</th><th scope="col">Email</th><th scope="col">Status</th><th scope="col">Crypto settlements</th><th scope="col">Created</th></tr></thead>
<tbody>${merchants.map(
    (merchant) => html`<tr>
<td>${iconView(merchant)}</td><td><a class="merchant" href="${merchantPath(merchant.id)}">${merchant.name}</a></td><td class="mono">${merchant.id}</td>
<td>${merchant.email}</td><td>${merchant.status}</td><td>${merchant.settlements.length}</td><td>${iso(merchant.createdAt)}</td></tr>`,
  )}</tbody></table>`
}

const listPage = sessionPage(merchantsPath, (context, session) =>
  dashboardPage(session, {
    title: 'Merchants',
    section: 'merchants',
    body: html`${merchantList(context)}
<h2>Create a merchant</h2>
<form class="stack" method="post" action="${merchantsPath}">${csrfField(session)}
<input type="hidden" name="idempotencyKey" value="${randomToken()}">
<label>Name <input name="merchantName" required maxlength="200"></label>
<label>Email <input name="merchantEmail" type="email" required></label>
<label>Icon URL (optional; shown only when https) <input name="merchantIconUrl" type="url" size="60"></label>
<button type="submit">Create merchant</button>
</form>
<p class="muted">A form sent twice (a double click, a reload) creates one merchant: it carries its own Idempotency-Key.</p>`,
  }),
)

function settlementsSection(session: Session, merchant: Merchant): Html {
  return html`<table id="settlements"><thead><tr><th scope="col">Asset (CAIP-19)</th><th scope="col">Destination (CAIP-10)</th><th scope="col">Updated</th><th scope="col">Change destination</th></tr></thead>
<tbody>${merchant.settlements.map(
    (settlement) => html`<tr>
<td class="mono">${settlement.asset}</td><td class="mono destination">${settlement.destination}</td><td>${iso(settlement.updatedAt)}</td>
<td><form method="post" action="${merchantPath(merchant.id)}/settlements/${encodeURIComponent(settlement.id)}">${csrfField(session)}
<label>New destination <input name="destination" required size="40" value="${settlement.destination}"></label>
<button type="submit">Change</button></form></td></tr>`,
  )}</tbody></table>
${merchant.settlements.length === 0 ? html`<p>No crypto settlement entries.</p>` : ''}
<h2>Add a crypto settlement entry</h2>
<form class="stack" method="post" action="${merchantPath(merchant.id)}/settlements">${csrfField(session)}
<label>Asset (CAIP-19) <input name="asset" required size="60" placeholder="eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"></label>
<label>Destination (CAIP-10, same chain) <input name="destination" required size="60" placeholder="eip155:8453:0x…"></label>
<button type="submit">Add entry</button>
</form>`
}

const detailPage = sessionPage(`${merchantsPath}/:merchantId`, (context, session) => {
  const merchant = merchantOf(context)
  return dashboardPage(session, {
    title: `Merchant ${merchant.name}`,
    section: 'merchants',
    body: html`<p><a href="${merchantsPath}">← All merchants</a> · <a href="/dashboard/payments?merchantId=${encodeURIComponent(merchant.id)}">Its payments</a></p>
<p>${iconView(merchant)} <span class="mono">${merchant.id}</span> · ${merchant.email} · ${merchant.status}</p>
${settlementsSection(session, merchant)}`,
  })
})

const create = sessionAction(merchantsPath, async (context, session, form) => {
  const iconUrl = form.get('merchantIconUrl')?.trim()
  const outcome = await callRoute<{ merchant: { id: string } }>(context, session, createMerchant, {
    body: {
      merchantName: form.get('merchantName') ?? '',
      merchantEmail: form.get('merchantEmail') ?? '',
      ...(iconUrl ? { merchantIconUrl: iconUrl } : {}),
    },
    headers: { 'idempotency-key': form.get('idempotencyKey') ?? '' },
  })
  return outcome.ok
    ? {
        redirect: merchantPath(outcome.body.merchant.id),
        flash: { kind: 'ok', message: 'Merchant created.' },
      }
    : { redirect: merchantsPath, flash: refusal(outcome.error) }
})

const addSettlement = sessionAction(
  `${merchantsPath}/:merchantId/settlements`,
  async (context, session, form) => {
    const merchant = merchantOf(context)
    const outcome = await callRoute(context, session, createCryptoSettlements, {
      params: { merchantId: merchant.id },
      body: {
        settlements: [
          { asset: form.get('asset')?.trim() ?? '', destination: form.get('destination')?.trim() ?? '' },
        ],
      },
    })
    return {
      redirect: merchantPath(merchant.id),
      flash: outcome.ok ? { kind: 'ok', message: 'Settlement entry added.' } : refusal(outcome.error),
    }
  },
)

const changeDestination = sessionAction(
  `${merchantsPath}/:merchantId/settlements/:id`,
  async (context, session, form) => {
    const merchant = merchantOf(context)
    const outcome = await callRoute(context, session, updateCryptoSettlement, {
      params: { merchantId: merchant.id, id: context.params.id! },
      body: { destination: form.get('destination')?.trim() ?? '' },
    })
    if (!outcome.ok && outcome.error.status === 404) throw outcome.error
    return {
      redirect: merchantPath(merchant.id),
      flash: outcome.ok ? { kind: 'ok', message: 'Destination changed.' } : refusal(outcome.error),
    }
  },
)

export const merchantRoutes: Route[] = [listPage, detailPage, create, addSettlement, changeDestination]
