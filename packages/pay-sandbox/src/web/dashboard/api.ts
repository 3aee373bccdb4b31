import { authenticate } from '../../auth.js'
import type { RequestContext, Route } from '../../context.js'
import { PayHttpError } from '../../errors.js'
import type { Session } from './session.js'

export type ApiCall = {
  params?: Record<string, string>
  query?: URLSearchParams
  body?: unknown
  headers?: Record<string, string>
}

export type ApiOutcome<Body> = { ok: true; status: number; body: Body } | { ok: false; error: PayHttpError }

/**
 * Runs one of the API's own route handlers for the signed-in merchant: the same authentication (the session's
 * API key), the same validation and the same state rules, so a page can change nothing the API would refuse.
 * The API's refusal comes back as a value for the page to show.
 */
export async function callRoute<Body>(
  context: RequestContext,
  session: Session,
  route: Route,
  call: ApiCall = {},
): Promise<ApiOutcome<Body>> {
  const params = call.params ?? {}
  const rawBody = call.body === undefined ? '' : JSON.stringify(call.body)
  const apiContext: RequestContext = {
    method: route.method,
    path: route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent(params[name] ?? '')),
    params,
    query: call.query ?? new URLSearchParams(),
    headers: {
      'api-key': session.apiKey,
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...call.headers,
    },
    body: call.body,
    rawBody,
    version: context.sandbox.config.pinnedVersion,
    sandbox: context.sandbox,
  }
  try {
    authenticate(apiContext, route.auth, context.sandbox.config)
    const reply = await route.handle(apiContext)
    return { ok: true, status: reply.status, body: reply.body as Body }
  } catch (error) {
    if (error instanceof PayHttpError) return { ok: false, error }
    throw error
  }
}
