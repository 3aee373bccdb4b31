import * as v from 'valibot'
import { printableLine } from '../../core/text.js'
import {
  GatewayError,
  PayAbortedError,
  type PayError,
  PaymentExpiredError,
  PayNetworkError,
  PayProtocolError,
  RouteExpiredError,
} from '../errors.js'
import { backoffDelayMs, isRetryableStatus, type RetryOptions } from './retry.js'
import { errorBodySchema } from './shapes.js'

/** `Api-Key` (keep it on a backend), or the public `App-Id` plus `Client-Id`. */
export type GatewayAuth = { apiKey: string } | { appId: string; clientId: string }

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>

type TransportOptions = {
  baseUrl: string
  auth: GatewayAuth
  fetch: FetchLike
  sleep: (ms: number) => Promise<void>
  random: () => number
  retry: RetryOptions
  /** The API version asked for, as `WCP-Version` and `Api-Version` (the headers the official client sends). */
  version: string
  /** Per attempt, on top of any long-poll time. */
  requestTimeoutMs: number
}

type GatewayResponse<T> = { body: T; version: string | undefined }

type CallExtras = { extraTimeoutMs?: number; signal?: AbortSignal | undefined }

export type Transport = {
  post<T>(
    path: string,
    query: Record<string, string>,
    body: unknown,
    schema: v.GenericSchema<unknown, T>,
    extras?: CallExtras,
  ): Promise<GatewayResponse<T>>
  get<T>(
    path: string,
    query: Record<string, string>,
    schema: v.GenericSchema<unknown, T>,
    extras?: CallExtras,
  ): Promise<GatewayResponse<T>>
  /** The API version the gateway resolved on its last success (its `WCP-Version`/`Api-Version`/`Pay-Version` reply). */
  resolvedVersion(): string | undefined
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** https only, except plain http on loopback (the local sandbox): the API key must never cross a network in clear. */
function normalizeBaseUrl(baseUrl: string): string {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    throw new TypeError('baseUrl must be an absolute URL')
  }
  const loopback = url.protocol === 'http:' && loopbackHosts.has(url.hostname)
  if (url.protocol !== 'https:' && !loopback) {
    throw new TypeError('baseUrl must use https (plain http only on 127.0.0.1 or localhost)')
  }
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new TypeError('baseUrl must not carry credentials, a query or a fragment')
  }
  return url.href.replace(/\/+$/, '')
}

export function createTransport(options: TransportOptions): Transport {
  const baseUrl = normalizeBaseUrl(options.baseUrl)
  const secret = 'apiKey' in options.auth ? options.auth.apiKey : undefined
  const scrub = (text: string): string => (secret ? text.split(secret).join('[redacted]') : text)
  let lastVersion: string | undefined

  // The headers `@walletconnect/pay` sends, with this library's own SDK name (the gateway's OpenAPI lists them all).
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'Api-Version': options.version,
    'WCP-Version': options.version,
    'Sdk-Name': 'wallet-rpc',
    'Sdk-Version': '0.1.0',
    'Sdk-Platform': sdkPlatform(),
    ...('apiKey' in options.auth
      ? { 'Api-Key': options.auth.apiKey }
      : { 'App-Id': options.auth.appId, 'Client-Id': options.auth.clientId }),
  }

  /** One HTTP exchange, body included, under one timeout whose timer is always cleared. */
  async function attempt(
    method: 'GET' | 'POST',
    url: string,
    body: string | undefined,
    timeoutMs: number,
    cancel: AbortSignal | undefined,
  ): Promise<{ status: number; ok: boolean; version: string | undefined; json: unknown }> {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(new Error('request timed out')), timeoutMs)
    try {
      const response = await options.fetch(url, {
        method,
        // Content-Type only on a body: the official client's status polls carry none.
        ...(body === undefined
          ? { headers }
          : { headers: { ...headers, 'Content-Type': 'application/json' }, body }),
        redirect: 'error',
        signal: cancel === undefined ? controller.signal : AbortSignal.any([controller.signal, cancel]),
      })
      const text = await response.text()
      return {
        status: response.status,
        ok: response.ok,
        version:
          response.headers.get('wcp-version') ??
          response.headers.get('api-version') ??
          response.headers.get('pay-version') ??
          undefined,
        // Scrubbed once, here: whatever the gateway echoes (error bodies, option ids, anything a schema
        // message quotes) can then never carry the key into an error.
        json: scrubDeep(parseJson(text), scrub),
      }
    } finally {
      clearTimeout(timer)
    }
  }

  /** One call with the seed's retries (rule 9): 5xx and network failures only, never a 4xx. */
  async function call<T>(
    method: 'GET' | 'POST',
    path: string,
    query: Record<string, string>,
    body: string | undefined,
    schema: v.GenericSchema<unknown, T>,
    { extraTimeoutMs = 0, signal }: CallExtras,
  ): Promise<GatewayResponse<T>> {
    const search = new URLSearchParams(query).toString()
    const url = `${baseUrl}${path}${search === '' ? '' : `?${search}`}`
    let lastFailure: PayError | undefined
    for (let attemptIndex = 0; attemptIndex <= options.retry.retries; attemptIndex++) {
      if (attemptIndex > 0)
        await options.sleep(backoffDelayMs(attemptIndex - 1, options.retry, options.random))
      if (signal?.aborted) throw new PayAbortedError()
      let response: Awaited<ReturnType<typeof attempt>>
      try {
        response = await attempt(method, url, body, options.requestTimeoutMs + extraTimeoutMs, signal)
      } catch (error) {
        // A cancellation by the caller is final; only the gateway's failures are retried.
        if (signal?.aborted) throw new PayAbortedError()
        lastFailure = new PayNetworkError(undefined, { cause: new Error(scrub(describe(error))) })
        continue
      }
      if (response.ok) {
        const parsed = v.safeParse(schema, response.json)
        if (!parsed.success) {
          const issue = parsed.issues[0]
          throw new PayProtocolError(
            `The gateway answered ${path.split('/').pop()} with an unexpected body at ${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`,
          )
        }
        lastVersion = response.version
        return { body: parsed.output, version: response.version }
      }
      const failure = toError(response.status, response.json)
      if (!isRetryableStatus(response.status)) throw failure
      lastFailure = failure
    }
    throw lastFailure ?? new PayNetworkError()
  }

  return {
    resolvedVersion: () => lastVersion,
    post: (path, query, payload, schema, extras = {}) =>
      call('POST', path, query, JSON.stringify(payload), schema, extras),
    get: (path, query, schema, extras = {}) => call('GET', path, query, undefined, schema, extras),
  }
}

/** `Sdk-Platform` as the official client names it where it can tell (`node`, `browser`), else `unknown`. */
function sdkPlatform(): string {
  const global = globalThis as { process?: { versions?: { node?: string } }; document?: unknown }
  if (typeof global.process?.versions?.node === 'string') return 'node'
  return global.document === undefined ? 'unknown' : 'browser'
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}

/** Maps a non-2xx answer (already scrubbed) to its typed error, keeping the gateway's code and message. */
function toError(status: number, body: unknown): PayError {
  const parsed = v.safeParse(errorBodySchema, body)
  const gateway = parsed.success ? parsed.output : undefined
  const extra = {
    status,
    ...(gateway?.details === undefined ? {} : { details: gateway.details }),
    ...(gateway?.issues === undefined ? {} : { issues: boundedIssues(gateway.issues) }),
  }
  const withCode = gateway === undefined ? extra : { ...extra, code: gateway.code }
  if (status === 410) return new PaymentExpiredError(gateway?.message, withCode)
  if (status === 409) return new RouteExpiredError(gateway?.message, withCode)
  return new GatewayError(
    gateway?.code ?? `http_${status}`,
    gateway?.message ?? `The gateway answered HTTP ${status}.`,
    extra,
  )
}

/** At most 32 validation issues, each field and message one bounded printable line. */
function boundedIssues(issues: readonly { field: string; message: string }[]) {
  return issues.slice(0, 32).map((issue) => ({
    field: printableLine(issue.field, 128),
    message: printableLine(issue.message, 256),
  }))
}

/** The value with the secret removed from every string in it, object keys included. */
function scrubDeep(value: unknown, scrub: (text: string) => string): unknown {
  if (typeof value === 'string') return scrub(value)
  if (Array.isArray(value)) return value.map((entry) => scrubDeep(entry, scrub))
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => [scrub(key), scrubDeep(entry, scrub)]),
  )
}
