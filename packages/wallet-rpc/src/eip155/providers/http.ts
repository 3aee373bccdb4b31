import { markOutcomeUnknown } from '../../core/errors.js'
import { fetchFailureReason, splitCredentials, timeoutSignal } from '../../core/http.js'
import { type Eip155ChainProvider, Eip155RpcError } from '../provider.js'

export type HttpProviderOptions = {
  /** Per-call timeout, body included; default 15 s. */
  timeoutMs?: number
  /** Replaces the global `fetch`: for tests, proxies and runtimes without one (as in toncenter, esplora). */
  fetch?: typeof fetch
}

/**
 * JSON-RPC over HTTP(S) with fetch and no retries: a broadcast is never retried behind the wallet's back.
 * Every call, body included, is bounded by `timeoutMs` (15 s by default), so a node that stops answering
 * fails the request instead of holding it. Credentials in the URL (`user:pass@`) become a Basic
 * authorization header; no error repeats the URL.
 */
export function httpProvider(url: string, options: HttpProviderOptions = {}): Eip155ChainProvider {
  const target = splitCredentials(url, 'eip155 httpProvider')
  const timeoutMs = options.timeoutMs ?? 15_000
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0) {
    throw new TypeError('eip155 httpProvider: timeoutMs must be a positive integer')
  }
  let id = 0
  return {
    async request({ method, params }) {
      let body: { result?: unknown; error?: { message?: unknown; code?: unknown; data?: unknown } }
      try {
        const response = await (options.fetch ?? globalThis.fetch)(target.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(target.authorization === undefined ? {} : { authorization: target.authorization }),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: params ?? [] }),
          signal: timeoutSignal(timeoutMs),
        })
        if (!response.ok) throw new Eip155RpcError(`HTTP ${response.status}`)
        body = (await response.json()) as typeof body
      } catch (error) {
        if (error instanceof Eip155RpcError) throw error
        // A broadcast that timed out or lost its connection may still have reached the node.
        const reason = fetchFailureReason(error)
        if (method !== 'eth_sendRawTransaction') throw new Eip155RpcError(reason)
        throw markOutcomeUnknown(
          new Eip155RpcError(`broadcast outcome unknown (it may have been sent): ${reason}`),
        )
      }
      if (body === null || typeof body !== 'object') throw new Eip155RpcError('not a JSON-RPC answer')
      if (body.error !== undefined && body.error !== null) {
        const { message, code, data } = body.error
        throw new Eip155RpcError(
          typeof message === 'string' ? message.slice(0, 500) : 'JSON-RPC error',
          typeof code === 'number' ? code : undefined,
          data,
        )
      }
      return body.result
    },
  }
}
