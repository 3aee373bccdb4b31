import type { RequestContext, Route } from '../../context.js'
import { PayHttpError } from '../../errors.js'
import type { WebhookDelivery } from '../../model.js'
import { type EventType, eventTypes } from '../../model.js'
import {
  deleteWebhookEndpoint,
  putWebhookEndpoint,
  replayEvents,
  resendFailedDeliveries,
  resendWebhookDelivery,
  revealWebhookSecret,
  rotateWebhookSecret,
  sendTestEvent,
} from '../../routes/webhookEndpoint.js'
import { replayReachMs } from '../../webhookDelivery.js'
import { type Html, html } from '../html.js'
import { callRoute } from './api.js'
import {
  type ActionResult,
  csrfField,
  dashboardPage,
  inputFromTime,
  refusal,
  sessionAction,
  sessionPage,
  utcFromInput,
} from './layout.js'
import type { Session } from './session.js'

const webhooksPath = '/dashboard/webhooks'
/** The page lists the newest deliveries; older ones stay reachable through the API. */
const shownDeliveries = 100
const hour = 60 * 60 * 1000

function endpointSection(context: RequestContext, session: Session): Html {
  const endpoint = context.sandbox.webhooks.endpoint
  const subscribed = new Set<EventType>(endpoint?.events ?? eventTypes)
  return html`<section aria-labelledby="endpoint-title">
<h2 id="endpoint-title">Endpoint</h2>
${
  endpoint === null
    ? html`<p id="endpoint-state">No endpoint: events are not delivered.</p>`
    : html`<p id="endpoint-state"><code>${endpoint.url}</code> — ${endpoint.disabled ? html`<strong class="error">disabled (every delivery failed for 5 days)</strong>` : 'enabled'}, since ${new Date(endpoint.createdAt).toISOString()}</p>`
}
<form class="stack" method="post" action="${webhooksPath}/endpoint">${csrfField(session)}
<label>URL (HTTPS; plain http only to 127.0.0.1/localhost) <input name="url" type="url" required size="60" value="${endpoint?.url ?? ''}"></label>
<fieldset><legend>Event types</legend>${eventTypes.map(
    (type) =>
      html`<label><input type="checkbox" name="events" value="${type}"${subscribed.has(type) ? html` checked` : ''}> ${type}</label>`,
  )}</fieldset>
<button type="submit">${endpoint === null ? 'Register endpoint' : 'Save endpoint'}</button>
</form>
${
  endpoint === null
    ? ''
    : html`<form method="post" action="${webhooksPath}/endpoint/delete">${csrfField(session)}
<label><input type="checkbox" name="confirm" value="yes" required> Deleting is immediate and irreversible (pending retries are dropped)</label>
<button type="submit">Delete endpoint</button></form>`
}
</section>`
}

function secretSection(context: RequestContext, session: Session): Html {
  const { webhooks } = context.sandbox
  if (webhooks.endpoint === null) return html``
  const previous = webhooks.secretExpiries().filter((expiry): expiry is string => expiry !== null)
  return html`<section aria-labelledby="secret-title">
<h2 id="secret-title">Signing secret</h2>
<p id="secret-overlap">${
    previous.length === 0
      ? 'One secret signs every delivery.'
      : html`After a rotation the previous secret keeps signing (a second signature on every delivery) for 24 hours: ${previous.map(
          (expiry) => html`valid until <time datetime="${expiry}">${expiry}</time>`,
        )}.`
  }</p>
<form class="inline" method="post" action="${webhooksPath}/secret/reveal">${csrfField(session)}<button type="submit">Reveal secret</button></form>
<form class="inline" method="post" action="${webhooksPath}/secret/rotate">${csrfField(session)}<button type="submit">Rotate secret</button></form>
</section>`
}

function toolsSection(context: RequestContext, session: Session): Html {
  const now = context.sandbox.state.now()
  return html`<section aria-labelledby="tools-title">
<h2 id="tools-title">Test events and recovery</h2>
<form method="post" action="${webhooksPath}/test-event">${csrfField(session)}
<label>Send a test event (sample data, <code>live: false</code>) <select name="type">${eventTypes.map(
    (type) => html`<option value="${type}">${type}</option>`,
  )}</select></label> <button type="submit">Send test event</button></form>
<form method="post" action="${webhooksPath}/resend-failed">${csrfField(session)}
<label>Resend every failed delivery created since (UTC) <input type="datetime-local" name="since" required value="${inputFromTime(now - 24 * hour)}"></label>
<button type="submit">Resend failed</button></form>
<form method="post" action="${webhooksPath}/replay">${csrfField(session)}
<label>Replay events never received since (UTC, at most 14 days back) <input type="datetime-local" name="since" required min="${inputFromTime(now - replayReachMs + 60_000)}" value="${inputFromTime(now - 24 * hour)}"></label>
<button type="submit">Replay events</button></form>
</section>`
}

function attempts(delivery: WebhookDelivery): Html {
  if (delivery.attempts.length === 0) return html`none yet`
  return html`<ul>${delivery.attempts.map(
    (attempt) =>
      html`<li>#${attempt.attempt} <time datetime="${attempt.at}">${attempt.at}</time>: ${
        attempt.status === null ? 'no response' : `HTTP ${attempt.status}`
      }${attempt.error === null || attempt.error === `HTTP ${attempt.status}` ? '' : ` (${attempt.error})`}, ${attempt.durationMs} ms</li>`,
  )}</ul>`
}

function deliveriesSection(context: RequestContext, session: Session): Html {
  const all = context.sandbox.webhooks.deliveries()
  const newest = all.slice(-shownDeliveries).reverse()
  return html`<section aria-labelledby="deliveries-title">
<h2 id="deliveries-title">Deliveries</h2>
${all.length > shownDeliveries ? html`<p class="muted">The newest ${shownDeliveries} of ${all.length}.</p>` : ''}
${
  newest.length === 0
    ? html`<p>No deliveries yet.</p>`
    : html`<table id="deliveries"><thead><tr><th scope="col">Delivery</th><th scope="col">Event</th><th scope="col">State</th><th scope="col">Attempts (status, time)</th><th scope="col">Next attempt</th><th scope="col"></th></tr></thead>
<tbody>${newest.map(
        (delivery) => html`<tr id="delivery-${delivery.id}">
<td class="mono">${delivery.id}<br><span class="muted">${delivery.createdAt}</span></td>
<td>${delivery.eventType}<br><span class="mono muted">${delivery.eventId}</span></td>
<td class="delivery-state">${delivery.state}</td>
<td>${attempts(delivery)}</td>
<td>${delivery.nextAttemptAt ?? '—'}</td>
<td><form method="post" action="${webhooksPath}/deliveries/${encodeURIComponent(delivery.id)}/resend">${csrfField(session)}<button type="submit" aria-label="Resend delivery ${delivery.id}">Resend</button></form></td>
</tr>`,
      )}</tbody></table>`
}
</section>`
}

const page = sessionPage(webhooksPath, (context, session) =>
  dashboardPage(session, {
    title: 'Webhooks',
    section: 'webhooks',
    body: html`${endpointSection(context, session)}${secretSection(context, session)}${toolsSection(context, session)}${deliveriesSection(context, session)}`,
  }),
)

/** An action on this page: the API route's answer as the page's message. */
function webhookAction(
  path: string,
  run: (context: RequestContext, session: Session, form: URLSearchParams) => Promise<ActionResult['flash']>,
): Route {
  return sessionAction(`${webhooksPath}${path}`, async (context, session, form) => {
    const flash = await run(context, session, form)
    return flash === undefined ? { redirect: webhooksPath } : { redirect: webhooksPath, flash }
  })
}

/** The form's `since` for the API: the datetime-local read as UTC, or what was typed, for the API to refuse. */
const sinceOf = (form: URLSearchParams): string => utcFromInput(form.get('since')) ?? form.get('since') ?? ''

const setEndpoint = webhookAction('/endpoint', async (context, session, form) => {
  const events = form.getAll('events')
  const outcome = await callRoute(context, session, putWebhookEndpoint, {
    // No box ticked is sent as an empty list, which the API refuses (an endpoint receives at least one type).
    body: { url: form.get('url') ?? '', events },
  })
  return outcome.ok
    ? {
        kind: 'ok',
        message: `Endpoint saved: ${events.length} event types. Reveal the signing secret below.`,
      }
    : refusal(outcome.error)
})

const deleteEndpoint = webhookAction('/endpoint/delete', async (context, session, form) => {
  if (form.get('confirm') !== 'yes')
    return { kind: 'error', message: 'Tick the box to confirm the deletion.' }
  const outcome = await callRoute(context, session, deleteWebhookEndpoint)
  return outcome.ok ? { kind: 'ok', message: 'Endpoint deleted.' } : refusal(outcome.error)
})

const revealSecret = webhookAction('/secret/reveal', async (context, session) => {
  const outcome = await callRoute<{ secret: string }>(context, session, revealWebhookSecret)
  return outcome.ok
    ? {
        kind: 'ok',
        message: 'The current signing secret (shown once; reveal again to see it).',
        secret: outcome.body.secret,
      }
    : refusal(outcome.error)
})

const rotateSecret = webhookAction('/secret/rotate', async (context, session) => {
  const outcome = await callRoute<{ secret: string; previousSecretExpiresAt: string }>(
    context,
    session,
    rotateWebhookSecret,
  )
  return outcome.ok
    ? {
        kind: 'ok',
        message: `Rotated. The previous secret keeps signing until ${outcome.body.previousSecretExpiresAt} (24 hours), so receivers can switch without missing a delivery.`,
        secret: outcome.body.secret,
      }
    : refusal(outcome.error)
})

const testEvent = webhookAction('/test-event', async (context, session, form) => {
  const outcome = await callRoute<{ event: { id: string; type: string }; deliveryId: string | null }>(
    context,
    session,
    sendTestEvent,
    { body: { type: form.get('type') ?? '' } },
  )
  if (!outcome.ok) return refusal(outcome.error)
  const { event, deliveryId } = outcome.body
  return deliveryId === null
    ? {
        kind: 'error',
        message: `Test event ${event.id} (${event.type}) was not queued: the endpoint is disabled or not subscribed to ${event.type}.`,
      }
    : {
        kind: 'ok',
        message: `Test event ${event.id} (${event.type}, live false) queued as delivery ${deliveryId}.`,
      }
})

const resendFailed = webhookAction('/resend-failed', async (context, session, form) => {
  const outcome = await callRoute<{ resent: number }>(context, session, resendFailedDeliveries, {
    body: { since: sinceOf(form) },
  })
  return outcome.ok
    ? { kind: 'ok', message: `${outcome.body.resent} failed deliveries sent again.` }
    : refusal(outcome.error)
})

const replay = webhookAction('/replay', async (context, session, form) => {
  const outcome = await callRoute<{ replayed: number }>(context, session, replayEvents, {
    body: { since: sinceOf(form) },
  })
  return outcome.ok
    ? { kind: 'ok', message: `${outcome.body.replayed} events never received were queued again.` }
    : refusal(outcome.error)
})

const resendOne = sessionAction(`${webhooksPath}/deliveries/:id/resend`, async (context, session) => {
  const id = context.params.id!
  const outcome = await callRoute<{ delivery: { id: string } }>(context, session, resendWebhookDelivery, {
    params: { id },
  })
  if (!outcome.ok) {
    if (outcome.error.status === 404) throw new PayHttpError(404, 'delivery_not_found', `no delivery ${id}`)
    return { redirect: webhooksPath, flash: refusal(outcome.error) }
  }
  return {
    redirect: `${webhooksPath}#delivery-${id}`,
    flash: { kind: 'ok', message: `Delivery ${id} sent again.` },
  }
})

export const webhookRoutes: Route[] = [
  page,
  setEndpoint,
  deleteEndpoint,
  revealSecret,
  rotateSecret,
  testEvent,
  resendFailed,
  replay,
  resendOne,
]
