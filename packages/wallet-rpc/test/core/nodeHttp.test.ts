import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fetchFailureReason, timeoutSignal } from '../../src/core/http.js'
import { nodeGetFetch } from '../../src/core/nodeHttp.js'

/**
 * `nodeGetFetch` (Node's http client behind fetch's shape, what `esplora()` reads through in Node) against Node's
 * own `fetch`, both asking the same server on 127.0.0.1: the same status, headers that matter, body bytes and
 * failures, for every answer a provider meets.
 */

const binary = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 256)
let server: Server
let root: string
const seen: Array<{ path: string; authorization: string | undefined; accept: string | undefined }> = []

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? ''
    seen.push({ path, authorization: request.headers.authorization, accept: request.headers.accept })
    if (path === '/text') {
      response.setHeader('content-type', 'text/plain; charset=utf-8')
      response.end('02abcdef — ünïcode')
    } else if (path === '/binary') {
      // Chunked, in pieces: the answer arrives in many `data` events.
      for (let at = 0; at < binary.length; at += 65_536) response.write(binary.subarray(at, at + 65_536))
      response.end()
    } else if (path === '/missing') {
      response.statusCode = 404
      response.end('Transaction not found')
    } else if (path === '/busy') {
      response.statusCode = 429
      response.setHeader('retry-after', '1')
      response.end('slow down')
    } else if (path === '/broken') {
      response.statusCode = 500
      response.end()
    } else if (path === '/empty') {
      response.statusCode = 204
      response.end()
    } else if (path === '/moved') {
      response.statusCode = 301
      response.setHeader('location', '/text')
      response.end()
    } else if (path === '/slow') {
      setTimeout(() => response.end('late'), 2000)
    } else if (path === '/cut') {
      response.setHeader('content-length', '1000')
      response.write('only part of it')
      setTimeout(() => response.destroy(), 20)
    } else {
      response.statusCode = 400
      response.end(`unexpected ${request.method} ${path}`)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

const nodeFetch = nodeGetFetch(globalThis.fetch)!

async function answer(fetchFn: typeof fetch, path: string, init: RequestInit = {}) {
  const response = await fetchFn(`${root}${path}`, init)
  return {
    ok: response.ok,
    status: response.status,
    statusText: response.statusText,
    type: response.headers.get('content-type'),
    retryAfter: response.headers.get('retry-after'),
    body: new Uint8Array(await response.arrayBuffer()),
  }
}

async function failure(fetchFn: typeof fetch, url: string, init: RequestInit = {}) {
  const error = await fetchFn(url, init).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(Error)
  return { name: (error as Error).name, reason: fetchFailureReason(error) }
}

describe('nodeGetFetch', () => {
  it('is offered in Node, with fetch as its fallback', () => {
    expect(typeof nodeFetch).toBe('function')
  })

  it.each(['/text', '/binary', '/missing', '/busy', '/broken', '/empty', '/moved'])(
    'answers GET %s as fetch does',
    async (path) => {
      expect(await answer(nodeFetch, path)).toEqual(await answer(globalThis.fetch, path))
    },
  )

  it('sends the caller’s headers, as an object or as Headers', async () => {
    seen.length = 0
    await answer(nodeFetch, '/text', { headers: { authorization: 'Basic dTpw', accept: 'text/plain' } })
    await answer(nodeFetch, '/text', { headers: new Headers({ authorization: 'Bearer k' }) })
    expect(seen).toEqual([
      { path: '/text', authorization: 'Basic dTpw', accept: 'text/plain' },
      { path: '/text', authorization: 'Bearer k', accept: '*/*' },
    ])
  })

  it('fails as fetch does: a timeout, a refused connection, an answer cut off', async () => {
    expect(await failure(nodeFetch, `${root}/slow`, { signal: timeoutSignal(100) })).toEqual(
      await failure(globalThis.fetch, `${root}/slow`, { signal: timeoutSignal(100) }),
    )
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const refused = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/`
    await new Promise((resolve) => closed.close(resolve))
    const refusal = await failure(nodeFetch, refused)
    expect(refusal).toEqual({ name: 'TypeError', reason: 'network error ECONNREFUSED' })
    expect(refusal).toEqual(await failure(globalThis.fetch, refused))
    // fetch resolves with the headers and fails reading the body; this client fails at once: either way the
    // caller reading the answer gets a TypeError, never a short body.
    const cut = await nodeFetch(`${root}/cut`).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(cut).toBeInstanceOf(TypeError)
    await expect(globalThis.fetch(`${root}/cut`).then((response) => response.text())).rejects.toBeInstanceOf(
      TypeError,
    )
    const already = AbortSignal.abort(new DOMException('stopped', 'AbortError'))
    expect(await failure(nodeFetch, `${root}/text`, { signal: already })).toEqual(
      await failure(globalThis.fetch, `${root}/text`, { signal: already }),
    )
  })

  it('leaves what it does not handle to the fallback, untouched', async () => {
    const asked: Array<{ url: string; method: string | undefined }> = []
    const fallback = (async (input: string | URL | Request, init?: RequestInit) => {
      asked.push({ url: String(input), method: init?.method })
      return new Response('from the fallback')
    }) as typeof fetch
    const withFallback = nodeGetFetch(fallback)!
    const text = async (path: string, init?: RequestInit) =>
      (await withFallback(`${root}${path}`, init)).text()
    expect(await text('/tx', { method: 'POST', body: 'ab' })).toBe('from the fallback')
    expect(await text('/moved')).toBe('from the fallback')
    expect(await text('/text')).toBe('02abcdef — ünïcode')
    expect(asked).toEqual([
      { url: `${root}/tx`, method: 'POST' },
      { url: `${root}/moved`, method: undefined },
    ])
  })

  it('is not offered where the runtime has no getBuiltinModule (browsers, React Native)', () => {
    const process = globalThis.process as { getBuiltinModule?: unknown }
    const saved = process.getBuiltinModule
    try {
      process.getBuiltinModule = undefined
      expect(nodeGetFetch(globalThis.fetch)).toBeUndefined()
    } finally {
      process.getBuiltinModule = saved
    }
  })
})
