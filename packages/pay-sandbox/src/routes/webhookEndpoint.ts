import * as v from 'valibot'
import { ok, type RequestContext, type Route } from '../context.js'
import { badRequest, PayHttpError } from '../errors.js'
import { iso } from '../ids.js'
import { type EventType, eventTypes } from '../model.js'
import { validateBody } from '../validate.js'
import { replayReachMs, type WebhookEndpoint } from '../webhookDelivery.js'
import { sampleEvent } from './sampleEvent.js'

/**
 * The spec manages the endpoint from a dashboard; the sandbox exposes the same operations over its API (one
 * endpoint per mode, so a singular resource). HTTPS is required, except plain HTTP to a loopback host so a
 * local receiver can listen.
 */
function isAllowedWebhookUrl(value: string): boolean {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return false
  }
  if (url.username !== '' || url.password !== '') return false
  if (url.protocol === 'https:') return true
  return url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)
}

const endpointBody = v.object({
  url: v.pipe(
    v.string(),
    v.check(isAllowedWebhookUrl, 'must be an HTTPS URL (or http to 127.0.0.1/localhost)'),
  ),
  events: v.optional(v.pipe(v.array(v.picklist(eventTypes)), v.minLength(1))),
})

/** The key's mode's endpoint; 404 webhook_endpoint_not_found when none is registered in that mode. */
function requireEndpoint(sandbox: RequestContext['sandbox']): WebhookEndpoint {
  const endpoint = sandbox.webhooks.endpoint
  if (endpoint === null) {
    const mode = sandbox.live === undefined ? 'test' : 'live'
    throw new PayHttpError(404, 'webhook_endpoint_not_found', `no webhook endpoint in ${mode} mode`)
  }
  return endpoint
}

const endpointJson = (endpoint: WebhookEndpoint) => ({
  url: endpoint.url,
  events: endpoint.events,
  createdAt: iso(endpoint.createdAt),
  disabled: endpoint.disabled,
})

export const putWebhookEndpoint: Route = {
  method: 'PUT',
  path: '/v1/webhook-endpoint',
  auth: 'apiKey',
  handle: (context) => {
    const body = validateBody(endpointBody, context.body)
    const { webhooks } = context.sandbox
    const endpoint = webhooks.setEndpoint(body.url, (body.events as EventType[] | undefined) ?? eventTypes)
    return ok({ endpoint: endpointJson(endpoint), secret: webhooks.secret() })
  },
}

export const getWebhookEndpoint: Route = {
  method: 'GET',
  path: '/v1/webhook-endpoint',
  auth: 'apiKey',
  handle: (context) => ok({ endpoint: endpointJson(requireEndpoint(context.sandbox)) }),
}

export const deleteWebhookEndpoint: Route = {
  method: 'DELETE',
  path: '/v1/webhook-endpoint',
  auth: 'apiKey',
  handle: (context) => {
    requireEndpoint(context.sandbox)
    context.sandbox.webhooks.deleteEndpoint()
    return ok({ deleted: true })
  },
}

export const revealWebhookSecret: Route = {
  method: 'GET',
  path: '/v1/webhook-endpoint/secret',
  auth: 'apiKey',
  handle: (context) => {
    requireEndpoint(context.sandbox)
    return ok({ secret: context.sandbox.webhooks.secret() })
  },
}

export const rotateWebhookSecret: Route = {
  method: 'POST',
  path: '/v1/webhook-endpoint/secret/rotate',
  auth: 'apiKey',
  handle: (context) => {
    requireEndpoint(context.sandbox)
    return ok(context.sandbox.webhooks.rotateSecret())
  },
}

export const listWebhookDeliveries: Route = {
  method: 'GET',
  path: '/v1/webhook-endpoint/deliveries',
  auth: 'apiKey',
  handle: (context) => ok({ data: context.sandbox.webhooks.deliveries() }),
}

export const resendWebhookDelivery: Route = {
  method: 'POST',
  path: '/v1/webhook-endpoint/deliveries/:id/resend',
  auth: 'apiKey',
  handle: (context) => {
    const delivery = context.sandbox.webhooks.resend(context.params.id!)
    if (delivery === undefined) throw new PayHttpError(404, 'delivery_not_found', 'no such delivery')
    return ok({ delivery: { id: delivery.id, state: delivery.state } }, 202)
  },
}

const sinceBody = v.object({ since: v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 timestamp')) })

export const resendFailedDeliveries: Route = {
  method: 'POST',
  path: '/v1/webhook-endpoint/deliveries/resend-failed',
  auth: 'apiKey',
  handle: (context) => {
    const body = validateBody(sinceBody, context.body)
    requireEndpoint(context.sandbox)
    return ok({ resent: context.sandbox.webhooks.resendFailed(Date.parse(body.since)) }, 202)
  },
}

export const replayEvents: Route = {
  method: 'POST',
  path: '/v1/webhook-endpoint/replay',
  auth: 'apiKey',
  handle: (context) => {
    const body = validateBody(sinceBody, context.body)
    requireEndpoint(context.sandbox)
    const since = Date.parse(body.since)
    if (since < context.sandbox.state.now() - replayReachMs) {
      throw badRequest('replay reaches back at most 14 days', [
        { field: 'since', message: 'older than 14 days' },
      ])
    }
    return ok({ replayed: context.sandbox.webhooks.replay(context.sandbox.state.events, since) }, 202)
  },
}

const testEventBody = v.object({ type: v.picklist(eventTypes) })

export const sendTestEvent: Route = {
  method: 'POST',
  path: '/v1/webhook-endpoint/test',
  auth: 'apiKey',
  handle: (context) => {
    const body = validateBody(testEventBody, context.body)
    requireEndpoint(context.sandbox)
    const event = sampleEvent(body.type as EventType, context.version, context.sandbox.state.now())
    const delivery = context.sandbox.webhooks.enqueue(event)
    return ok({ event, deliveryId: delivery?.id ?? null }, 202)
  },
}
