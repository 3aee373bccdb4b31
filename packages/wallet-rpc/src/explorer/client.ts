import { fetchFailureReason } from '../core/http.js'
import { ExplorerError } from './errors.js'
import {
  type ExplorerIssue,
  type ExplorerListingType,
  type ExplorerLogoSize,
  type ExplorerPlatform,
  type ExplorerSdk,
  type Parsed,
  parseChainsQuery,
  parseListingQuery,
  parseLogoRequest,
} from './params.js'
import type { ExplorerChain, ExplorerChains, ExplorerListing, ExplorerListingPage } from './types.js'

/** The fetch this client needs (the platform's global `fetch`, or any with the same contract). */
export type ExplorerFetch = (
  url: string,
  init: { method: 'GET'; headers: Record<string, string>; signal: AbortSignal },
) => Promise<Response>

export type ExplorerClientOptions = {
  /** The explorer's base URL, e.g. the sandbox's `http://127.0.0.1:PORT`; paths `/v3/…` are appended. */
  baseUrl: string
  /** Sent as `projectId` on every call (required by the interface). */
  projectId: string
  /** Default: the global `fetch`. */
  fetch?: ExplorerFetch
  /** A call without a complete answer after this long fails with kind `timeout`. Default 10000. */
  timeoutMs?: number
  /**
   * Answers younger than this are served from memory without a request; older ones are revalidated with
   * `If-None-Match` (a 304 renews them). Default 60000; 0 revalidates every time.
   */
  ttlMs?: number
  /** Distinct URLs kept in the cache, least recently used dropped first. Default 200. */
  maxCacheEntries?: number
  /** Milliseconds since the epoch, for the TTL. Default `Date.now`. */
  clock?: () => number
}

/** The listing parameters of the interface, typed. Lists are sent comma-separated. */
export type ExplorerListingParams = {
  /** With `page` only. */
  entries?: number
  /** With `entries` only; from 1. */
  page?: number
  search?: string
  ids?: readonly string[]
  chains?: readonly string[]
  platforms?: readonly ExplorerPlatform[]
  sdks?: readonly ExplorerSdk[]
  standards?: readonly string[]
  /** Deprecated by the interface in favour of `sdks`; still sent if given. */
  version?: 1 | 2
}

export type ExplorerChainsParams = { testnets?: boolean; namespaces?: readonly string[] }

/** Per call: a signal that aborts it (kind `aborted`). */
export type ExplorerCallOptions = { signal?: AbortSignal }

export type ExplorerClient = {
  wallets(params?: ExplorerListingParams, call?: ExplorerCallOptions): Promise<ExplorerListingPage>
  dapps(params?: ExplorerListingParams, call?: ExplorerCallOptions): Promise<ExplorerListingPage>
  hybrid(params?: ExplorerListingParams, call?: ExplorerCallOptions): Promise<ExplorerListingPage>
  /** Every entry; with `ids`, those entries. */
  all(params?: ExplorerListingParams, call?: ExplorerCallOptions): Promise<ExplorerListingPage>
  listings(
    type: ExplorerListingType,
    params?: ExplorerListingParams,
    call?: ExplorerCallOptions,
  ): Promise<ExplorerListingPage>
  /**
   * Every matching listing, fetched `pageSize` (default 100) at a time as the loop asks for more. `params`
   * must not hold `entries` or `page` (the iterator sets them). A failed page rejects the loop's `next()` with
   * an ExplorerError. One pass, like a generator; `next()` can also be called by hand.
   */
  iterate(
    type: ExplorerListingType,
    params?: Omit<ExplorerListingParams, 'entries' | 'page'> & { pageSize?: number },
    call?: ExplorerCallOptions,
  ): AsyncIterableIterator<ExplorerListing>
  chains(params?: ExplorerChainsParams, call?: ExplorerCallOptions): Promise<ExplorerChains>
  /** The URL of a logo (for an `<img>`); throws an `invalid_params` ExplorerError for a bad size or id. */
  logoUrl(size: ExplorerLogoSize, imageId: string): string
  /** Forgets every cached answer. */
  clearCache(): void
}

// Engines without Symbol.asyncIterator (Hermes before 0.13) iterate through the key Babel's and
// regenerator's for-await helpers fall back to.
const asyncIteratorKey: symbol | string =
  typeof Symbol === 'function' && typeof Symbol.asyncIterator === 'symbol'
    ? Symbol.asyncIterator
    : '@@asyncIterator'

type CacheEntry = { text: string; etag: string | undefined; storedAt: number }

/**
 * A typed client of the explorer interface (spec, "Explorer interface"). Each call checks the interface's
 * parameter rules before sending (the same code the sandbox server applies, `params.ts`), bounds the exchange
 * by `timeoutMs` even when the fetch ignores its signal, caches by ETag and TTL, checks the answer's shape, and
 * rejects only with `ExplorerError`. Runs wherever `fetch` does: no Node module, no URL class (React Native's
 * is incomplete).
 *
 * @example
 * ```ts
 * const explorer = createExplorerClient({ baseUrl: sandbox.url, projectId: 'demo' })
 * const { listings } = await explorer.dapps({ chains: ['eip155:1'], entries: 20, page: 1 })
 * for await (const wallet of explorer.iterate('wallets', { platforms: ['ios'] })) console.log(wallet.name)
 * ```
 */
export function createExplorerClient(options: ExplorerClientOptions): ExplorerClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  if (!/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(baseUrl)) {
    throw new TypeError('createExplorerClient: baseUrl must be an http(s) URL without query or fragment')
  }
  const timeoutMs = options.timeoutMs ?? 10_000
  const ttlMs = options.ttlMs ?? 60_000
  const maxEntries = options.maxCacheEntries ?? 200
  const clock = options.clock ?? Date.now
  const cache = new Map<string, CacheEntry>()

  async function getJson(path: string, pairs: Array<[string, string]>, call: ExplorerCallOptions = {}) {
    const url = `${baseUrl}${path}?${pairs.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&')}`
    const cached = cache.get(url)
    if (cached !== undefined) {
      cache.delete(url)
      cache.set(url, cached)
      if (clock() - cached.storedAt < ttlMs) return parse(cached.text)
    }
    const response = await exchange(url, cached?.etag, call)
    if (response.status === 304 && cached !== undefined) {
      cached.storedAt = clock()
      return parse(cached.text)
    }
    const body = parse(response.text)
    remember(url, { text: response.text, etag: response.headers.get('etag') ?? undefined, storedAt: clock() })
    return body
  }

  function remember(url: string, entry: CacheEntry): void {
    cache.delete(url)
    cache.set(url, entry)
    while (cache.size > maxEntries) cache.delete(cache.keys().next().value as string)
  }

  /** One bounded request: the status, headers and whole body, or an ExplorerError. */
  async function exchange(
    url: string,
    etag: string | undefined,
    call: ExplorerCallOptions,
  ): Promise<{ status: number; headers: Headers; text: string }> {
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    let onAbort: (() => void) | undefined
    // Settles when the time is up or the caller aborts, whether or not the fetch honours the signal.
    const stopped = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new ExplorerError('timeout', `no answer from the explorer within ${timeoutMs} ms`))
        controller.abort()
      }, timeoutMs)
      onAbort = () => {
        reject(new ExplorerError('aborted', 'the explorer call was aborted'))
        controller.abort()
      }
      if (call.signal?.aborted === true) onAbort()
      else call.signal?.addEventListener('abort', onAbort)
    })
    const request = async () => {
      const fetcher = options.fetch ?? (globalThis.fetch as ExplorerFetch | undefined)
      if (fetcher === undefined) throw new ExplorerError('network', 'no fetch: pass options.fetch')
      const headers: Record<string, string> = { accept: 'application/json' }
      if (etag !== undefined) headers['if-none-match'] = etag
      let response: Response
      let text: string
      try {
        response = await fetcher(url, { method: 'GET', headers, signal: controller.signal })
        text = await response.text()
      } catch (error) {
        throw new ExplorerError('network', `explorer request failed: ${fetchFailureReason(error)}`, {
          cause: error,
        })
      }
      if (response.status === 304 || (response.status >= 200 && response.status < 300)) {
        return { status: response.status, headers: response.headers, text }
      }
      throw httpError(response.status, text)
    }
    try {
      return await Promise.race([request(), stopped])
    } finally {
      clearTimeout(timer)
      if (onAbort !== undefined) call.signal?.removeEventListener('abort', onAbort)
    }
  }

  function listingPairs(params: ExplorerListingParams): Array<[string, string]> {
    const pairs: Array<[string, string]> = [['projectId', options.projectId]]
    const issues: ExplorerIssue[] = []
    for (const [name, value] of Object.entries(params)) {
      if (value === undefined) continue
      if (Array.isArray(value)) {
        const withComma = value.findIndex((element) => typeof element !== 'string' || element.includes(','))
        if (withComma >= 0)
          issues.push({ field: name, message: `value ${withComma + 1} must be a string without a comma` })
        pairs.push([name, value.join(',')])
      } else pairs.push([name, String(value)])
    }
    if (issues.length > 0) throw invalid(issues)
    return pairs
  }

  async function listings(
    type: ExplorerListingType,
    params: ExplorerListingParams = {},
    call?: ExplorerCallOptions,
  ): Promise<ExplorerListingPage> {
    const pairs = listingPairs(params)
    checked(parseListingQuery(pairs))
    return listingPage(await getJson(`/v3/${type}`, pairs, call))
  }

  return {
    wallets: (params, call) => listings('wallets', params, call),
    dapps: (params, call) => listings('dapps', params, call),
    hybrid: (params, call) => listings('hybrid', params, call),
    all: (params, call) => listings('all', params, call),
    listings,
    iterate(type, params = {}, call = {}) {
      const { pageSize = 100, ...filters } = params
      const iterator = pageIterator((page) => {
        if ('entries' in filters || 'page' in filters) {
          return Promise.reject(
            invalid([{ field: 'page', message: 'set by iterate(): give pageSize instead' }]),
          )
        }
        return listings(type, { ...filters, entries: pageSize, page }, call)
      })
      const iterable: AsyncIterableIterator<ExplorerListing> = {
        next: () => iterator.next(),
        [Symbol.asyncIterator]: () => iterable,
      }
      if (asyncIteratorKey !== Symbol.asyncIterator) {
        Object.defineProperty(iterable, asyncIteratorKey, { value: () => iterable })
      }
      return iterable
    },
    async chains(params = {}, call) {
      const pairs: Array<[string, string]> = [['projectId', options.projectId]]
      if (params.testnets !== undefined) pairs.push(['testnets', String(params.testnets)])
      if (params.namespaces !== undefined) pairs.push(['namespaces', params.namespaces.join(',')])
      checked(parseChainsQuery(pairs))
      return chainsBody(await getJson('/v3/chains', pairs, call))
    },
    logoUrl(size, imageId) {
      checked(parseLogoRequest(size, imageId, [['projectId', options.projectId]]))
      return `${baseUrl}/v3/logo/${size}/${encodeURIComponent(imageId)}?projectId=${encodeURIComponent(options.projectId)}`
    },
    clearCache: () => cache.clear(),
  }
}

/** Pages on demand; stops after a short page, an empty one, or once `total` entries were seen. */
function pageIterator(
  fetchPage: (page: number) => Promise<ExplorerListingPage>,
): AsyncIterator<ExplorerListing> {
  let page = 1
  let seen = 0
  let buffer: ExplorerListing[] = []
  let finished = false
  return {
    async next(): Promise<IteratorResult<ExplorerListing>> {
      while (buffer.length === 0 && !finished) {
        const result = await fetchPage(page++)
        buffer = Object.values(result.listings)
        seen += buffer.length
        if (buffer.length === 0 || seen >= result.total) finished = true
      }
      const value = buffer.shift()
      return value === undefined ? { done: true, value: undefined } : { done: false, value }
    },
  }
}

function checked<T>(parsed: Parsed<T>): T {
  if (parsed.ok) return parsed.value
  throw invalid(parsed.issues)
}

const invalid = (issues: ExplorerIssue[]): ExplorerError =>
  new ExplorerError('invalid_params', issues.map((issue) => `${issue.field}: ${issue.message}`).join('; '), {
    issues,
  })

function httpError(status: number, text: string): ExplorerError {
  let code: string | undefined
  let message = `the explorer answered ${status}`
  let issues: ExplorerIssue[] = []
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown; issues?: unknown }
    if (typeof body.code === 'string') code = body.code
    if (typeof body.message === 'string') message = `${message}: ${body.message.slice(0, 300)}`
    if (Array.isArray(body.issues)) {
      issues = body.issues.filter(
        (issue): issue is ExplorerIssue =>
          typeof issue?.field === 'string' && typeof issue?.message === 'string',
      )
    }
  } catch {
    // Not the spec's error body (a proxy's page): the status says enough.
  }
  return new ExplorerError('http', message, { status, ...(code === undefined ? {} : { code }), issues })
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw malformed('the body is not JSON')
  }
}

const malformed = (why: string): ExplorerError =>
  new ExplorerError('malformed_response', `explorer answer: ${why}`)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((element) => typeof element === 'string')

const count = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

function listingPage(body: unknown): ExplorerListingPage {
  if (!isRecord(body) || !isRecord(body.listings) || !count(body.count) || !count(body.total)) {
    throw malformed('expected { listings, count, total }')
  }
  const listings: Record<string, ExplorerListing> = {}
  for (const [id, listing] of Object.entries(body.listings)) listings[id] = listingOf(id, listing)
  return { listings, count: body.count, total: body.total }
}

function listingOf(key: string, value: unknown): ExplorerListing {
  const fault = (field: string) => malformed(`listings.${key}.${field} is missing or of the wrong type`)
  if (!isRecord(value)) throw fault('(entry)')
  for (const field of ['id', 'name', 'description', 'homepage', 'app_type', 'image_id', 'updatedAt']) {
    if (typeof value[field] !== 'string') throw fault(field)
  }
  for (const field of ['chains', 'sdks', 'versions', 'platforms', 'standards']) {
    if (!isStrings(value[field])) throw fault(field)
  }
  if (value.id !== key) throw fault('id')
  if (!['wallet', 'dapp', 'hybrid'].includes(value.app_type as string)) throw fault('app_type')
  const images = value.image_url
  if (!isRecord(images) || ['sm', 'md', 'lg'].some((size) => typeof images[size] !== 'string')) {
    throw fault('image_url')
  }
  return value as ExplorerListing
}

function chainsBody(body: unknown): ExplorerChains {
  if (!isRecord(body) || !isRecord(body.chains) || !count(body.count))
    throw malformed('expected { chains, count }')
  for (const [id, chain] of Object.entries(body.chains)) {
    if (
      !isRecord(chain) ||
      chain.id !== id ||
      typeof chain.name !== 'string' ||
      typeof chain.namespace !== 'string' ||
      typeof chain.testnet !== 'boolean'
    ) {
      throw malformed(`chains.${id} is not { id, name, namespace, testnet }`)
    }
  }
  return body as ExplorerChains & { chains: Record<string, ExplorerChain> }
}
