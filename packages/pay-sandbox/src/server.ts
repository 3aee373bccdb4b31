import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { authenticate, requestedVersion, resolveVersion, versionReplyHeaders } from './auth.js'
import { header, type Reply, type RequestContext, type Route, type SandboxContext } from './context.js'
import { badRequest, onGatewayWire, PayHttpError } from './errors.js'
import { errorPage } from './web/dashboard/layout.js'
import { dashboardModeOf, registerDashboardModes } from './web/dashboard/session.js'

/** Bodies larger than this are refused before parsing (413). */
const maxBodyBytes = 1024 * 1024

type CompiledRoute = Route & { segments: string[] }

/** One mode's route table and state (test, and live with `--live`): the spec's modes share the endpoints only. */
export type SandboxMode = { routes: readonly Route[]; context: SandboxContext }
type CompiledMode = { routes: CompiledRoute[]; context: SandboxContext }

const isDashboardPath = (path: string): boolean => path === '/dashboard' || path.startsWith('/dashboard/')

/**
 * The API refuses in JSON; under /dashboard a browser is refused with a page (no route, wrong method, bad body);
 * on gateway paths only with the codes the official wallet client parses.
 */
const refusalFor = (path: string, error: PayHttpError): Reply =>
  isDashboardPath(path)
    ? errorPage(error)
    : errorReply(path.startsWith('/v1/gateway/') ? onGatewayWire(error) : error)

const compile = (mode: SandboxMode): CompiledMode => ({
  context: mode.context,
  routes: mode.routes.map((route) => ({ ...route, segments: route.path.split('/').slice(1) })),
})

/**
 * The mode follows from the credentials (the spec: "the mode follows from the API key"): a `svc_` key that is
 * not `svc_test_`, or the live App-Id, selects live; a request without credentials (the collect page) goes to the
 * mode holding the payment it names. Everything else is test mode, whose auth then refuses what it did not issue.
 */
function selectMode(request: IncomingMessage, path: string, test: CompiledMode, live?: CompiledMode) {
  if (live === undefined) return test
  // The dashboard's requests carry a session cookie instead of a key: the session's mode is the key's.
  if (isDashboardPath(path)) {
    return dashboardModeOf(test.context, request.headers.cookie) === 'live' ? live : test
  }
  const apiKey = request.headers['api-key']
  if (typeof apiKey === 'string' && apiKey.length > 0) {
    return apiKey.startsWith('svc_') && !apiKey.startsWith('svc_test_') ? live : test
  }
  const appId = request.headers['app-id']
  if (typeof appId === 'string' && appId.length > 0) return appId === live.context.config.appId ? live : test
  const id = path.split('/').find((segment) => segment.startsWith('pay_'))
  return id !== undefined && live.context.state.payments.has(id) ? live : test
}

/** The HTTP face: route table lookup, body parsing, auth, version resolution, error bodies. */
export function createSandboxServer(testMode: SandboxMode, liveMode?: SandboxMode): Server {
  const test = compile(testMode)
  const live = liveMode === undefined ? undefined : compile(liveMode)
  registerDashboardModes(test.context, live?.context)
  const server: Server & { inFlight: number } = Object.assign(createServer(), { inFlight: 0 })
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    server.inFlight++
    response.once('close', () => server.inFlight--)
    const mode = selectMode(request, (request.url ?? '/').split('?')[0]!, test, live)
    handle(mode.routes, mode.context, request)
      .then((reply) => send(response, reply))
      .catch(() => send(response, errorReply(new PayHttpError(500, 'internal_error', 'internal error'))))
  })
  // A keep-alive socket must not hold stop() back.
  server.keepAliveTimeout = 1000
  return server
}

async function handle(
  routes: CompiledRoute[],
  sandbox: SandboxContext,
  request: IncomingMessage,
): Promise<Reply> {
  let url: URL
  try {
    url = new URL(request.url ?? '/', 'http://sandbox.invalid')
  } catch {
    return errorReply(new PayHttpError(400, 'params_validation', 'malformed request target'))
  }
  const segments = url.pathname.split('/').slice(1)
  const method = request.method ?? 'GET'
  let matched: { route: CompiledRoute; params: Record<string, string> } | undefined
  let pathMatched = false
  for (const route of routes) {
    const params = matchSegments(route.segments, segments)
    if (params === undefined) continue
    pathMatched = true
    if (route.method === method) {
      matched = { route, params }
      break
    }
  }
  if (matched === undefined) {
    await drain(request)
    return refusalFor(
      url.pathname,
      pathMatched
        ? new PayHttpError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`)
        : new PayHttpError(404, 'not_found', `no route ${method} ${url.pathname}`),
    )
  }
  const context: RequestContext = {
    method,
    path: url.pathname,
    params: matched.params,
    query: url.searchParams,
    headers: request.headers,
    body: undefined,
    rawBody: '',
    version: sandbox.config.pinnedVersion,
    sandbox,
  }
  try {
    const raw = await readBody(request)
    authenticate(context, matched.route.auth, sandbox.config)
    context.version = resolveVersion(requestedVersion(context), sandbox.config)
    context.rawBody = raw
    context.body = parseBody(context, raw)
    const reply = await matched.route.handle(context)
    return { ...reply, headers: { ...reply.headers, ...versionReplyHeaders(context) } }
  } catch (error) {
    if (error instanceof PayHttpError) return refusalFor(url.pathname, error)
    throw error
  } finally {
    if (method !== 'GET') journalTouched(context)
  }
}

/**
 * With `--data`, the payment or merchant a changing request named is journaled before its reply goes out (the
 * changes that emit no event: options offered, build fetched, data collected, settlement configuration).
 */
function journalTouched(context: RequestContext): void {
  const { state, persist } = context.sandbox
  if (persist === undefined) return
  const payment = context.params.id === undefined ? undefined : state.payments.get(context.params.id)
  if (payment !== undefined) state.save(payment)
  const merchant =
    context.params.merchantId === undefined ? undefined : state.merchants.get(context.params.merchantId)
  if (merchant !== undefined) state.saveMerchant(merchant)
}

function matchSegments(pattern: string[], actual: string[]): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined
  const params: Record<string, string> = {}
  for (let index = 0; index < pattern.length; index++) {
    const expected = pattern[index]!
    const value = actual[index]!
    if (expected.startsWith(':')) {
      let decoded: string
      try {
        decoded = decodeURIComponent(value)
      } catch {
        return undefined
      }
      if (decoded.length === 0) return undefined
      params[expected.slice(1)] = decoded
    } else if (expected !== value) {
      return undefined
    }
  }
  return params
}

function parseBody(context: RequestContext, raw: string): unknown {
  if (raw.length === 0) return undefined
  const type = (header(context, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(raw))
  if (type !== 'application/json') {
    throw new PayHttpError(415, 'unsupported_media_type', 'request bodies are application/json')
  }
  try {
    return JSON.parse(raw) as unknown
  } catch {
    throw badRequest('the body is not valid JSON')
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    request.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBodyBytes) tooLarge = true
      else chunks.push(chunk)
    })
    request.on('end', () => {
      if (tooLarge)
        reject(new PayHttpError(413, 'payload_too_large', `bodies are limited to ${maxBodyBytes} bytes`))
      else resolve(Buffer.concat(chunks).toString('utf8'))
    })
    request.on('error', reject)
  })
}

function drain(request: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    request.resume()
    request.on('end', resolve)
    request.on('error', () => resolve())
  })
}

function errorReply(error: PayHttpError): Reply {
  return { status: error.status, body: error.body() }
}

function send(response: ServerResponse, reply: Reply): void {
  if (response.headersSent) return
  if (reply.status === 304) {
    response.writeHead(304, reply.headers)
    response.end()
    return
  }
  const text = reply.raw?.text ?? (reply.html === true ? String(reply.body) : JSON.stringify(reply.body))
  response.writeHead(reply.status, {
    'cache-control': 'no-store',
    ...reply.headers,
    'content-type':
      reply.raw?.contentType ?? (reply.html === true ? 'text/html; charset=utf-8' : 'application/json'),
    'content-length': Buffer.byteLength(text),
  })
  response.end(text)
}
