/**
 * Node's `fetch` (undici) spends about 0.3 ms of CPU on each request. Where a wallet reads one transaction per
 * request (Esplora: the 1450 parents of one transfer) that is more than the transfer's signatures cost. Node's own
 * http(s) client with a keep-alive agent spends about a fifth of it.
 */

type NodeResponse = {
  statusCode?: number
  statusMessage?: string
  headers: Record<string, string | string[] | undefined>
  on(event: 'data', listener: (chunk: Uint8Array) => void): void
  on(event: 'end' | 'aborted', listener: () => void): void
  on(event: 'error', listener: (error: Error) => void): void
}
type NodeRequest = {
  on(event: 'error', listener: (error: Error) => void): void
  end(): void
  destroy(): void
}
type NodeHttp = {
  Agent: new (options: { keepAlive: boolean }) => unknown
  request(
    url: URL,
    options: { method: string; headers: Record<string, string>; agent: unknown },
    onResponse: (response: NodeResponse) => void,
  ): NodeRequest
}

/** Statuses whose Response has no body (the Fetch standard's null body statuses). */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304])

/**
 * A `fetch` that sends GET requests through Node's http(s) client, or undefined where the runtime does not offer
 * it without an import (`process.getBuiltinModule`, Node ≥ 20.16: invisible to bundlers, absent in browsers,
 * React Native and workers). What it does not handle the same way goes to `fallback` untouched: another method,
 * a body, a redirect answer (fetch follows it), a URL that is not http(s). Its answers and failures have fetch's
 * shapes: a `Response`; the signal's reason on abort; `TypeError('fetch failed', { cause })` on a network error.
 */
export function nodeGetFetch(fallback: typeof fetch): typeof fetch | undefined {
  const getBuiltinModule = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } })
    .process?.getBuiltinModule
  if (typeof getBuiltinModule !== 'function') return undefined
  const modules = {
    'http:': getBuiltinModule('node:http') as NodeHttp | undefined,
    'https:': getBuiltinModule('node:https') as NodeHttp | undefined,
  }
  if (modules['http:'] === undefined || modules['https:'] === undefined) return undefined
  const agents = new Map<string, unknown>()

  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = typeof input === 'string' || input instanceof URL ? new URL(input) : undefined
    const http = url === undefined ? undefined : modules[url.protocol as 'http:' | 'https:']
    if (url === undefined || http === undefined || (init.method ?? 'GET') !== 'GET' || init.body != null) {
      return fallback(input, init)
    }
    // fetch's default; it also asks for compression, which this client does not (answers come uncompressed).
    const headers: Record<string, string> = { accept: '*/*' }
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value
    })
    let agent = agents.get(url.protocol)
    if (agent === undefined) {
      agent = new http.Agent({ keepAlive: true })
      agents.set(url.protocol, agent)
    }
    const signal = init.signal ?? undefined
    signal?.throwIfAborted()
    const answer = await new Promise<{ response: NodeResponse; body: Uint8Array }>((resolve, reject) => {
      const settle = (outcome: () => void) => {
        signal?.removeEventListener('abort', abort)
        outcome()
      }
      const fail = (error: Error) => settle(() => reject(new TypeError('fetch failed', { cause: error })))
      const request = http.request(url, { method: 'GET', headers, agent }, (response) => {
        const chunks: Uint8Array[] = []
        response.on('data', (chunk) => chunks.push(chunk))
        response.on('aborted', () => fail(new Error('the answer was cut off')))
        response.on('error', fail)
        response.on('end', () => settle(() => resolve({ response, body: concat(chunks) })))
      })
      // Like fetch: an abort rejects with the signal's reason (a TimeoutError from `timeoutSignal`).
      const abort = () => {
        request.destroy()
        reject(signal?.reason)
      }
      signal?.addEventListener('abort', abort, { once: true })
      request.on('error', (error) => {
        if (!signal?.aborted) fail(error)
      })
      request.end()
    })
    const status = answer.response.statusCode ?? 0
    if (status >= 300 && status < 400 && answer.response.headers.location !== undefined)
      return fallback(input, init)
    const responseHeaders = new Headers()
    for (const [name, value] of Object.entries(answer.response.headers)) {
      if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value)
    }
    return new Response(nullBodyStatuses.has(status) ? null : answer.body, {
      status,
      statusText: answer.response.statusMessage ?? '',
      headers: responseHeaders,
    })
  }) as typeof fetch
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!
  const bytes = new Uint8Array(chunks.reduce((length, chunk) => length + chunk.length, 0))
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.length
  }
  return bytes
}
