import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One HTTP exchange as it crossed the wire between a client and the sandbox. */
export type Exchange = {
  method: string
  /** The raw request target, percent-encoding as sent. */
  target: string
  headers: IncomingHttpHeaders
  body: string
  status: number
  responseHeaders: IncomingHttpHeaders
  response: string
}

/**
 * A recording reverse proxy on 127.0.0.1 in front of `targetUrl`: what a client sends and what it is answered,
 * byte for byte, whatever the client is (a WASM core's fetch, our transport). Point the client's baseUrl at `url`.
 */
export async function startWireRecorder(targetUrl: string) {
  const target = new URL(targetUrl)
  const exchanges: Exchange[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = Buffer.concat(chunks)
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: request.url,
          method: request.method,
          headers: request.headers,
        },
        (reply) => {
          const replyChunks: Buffer[] = []
          reply.on('data', (chunk: Buffer) => replyChunks.push(chunk))
          reply.on('end', () => {
            const replyBody = Buffer.concat(replyChunks)
            exchanges.push({
              method: request.method ?? '',
              target: request.url ?? '',
              headers: request.headers,
              body: body.toString('utf8'),
              status: reply.statusCode ?? 0,
              responseHeaders: reply.headers,
              response: replyBody.toString('utf8'),
            })
            response.writeHead(reply.statusCode ?? 502, reply.headers).end(replyBody)
          })
        },
      )
      upstream.on('error', () => response.writeHead(502).end())
      upstream.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/**
 * Keeps a test offline and the keys local: every fetch to a host other than 127.0.0.1 fails at once and is
 * recorded (the official client's WASM core posts telemetry events to WalletConnect's ingest hosts on its own).
 */
export function blockOutsideFetch() {
  const realFetch = globalThis.fetch
  const blocked: string[] = []
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url)
    if (url.hostname !== '127.0.0.1') {
      blocked.push(url.origin)
      return Promise.reject(new TypeError(`blocked in tests: ${url.origin}`))
    }
    return realFetch(input, init)
  }) as typeof fetch
  return {
    blocked,
    restore: () => {
      globalThis.fetch = realFetch
    },
  }
}
