import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { markOutcomeUnknown, ProviderError } from '../../core/errors.js'
import { fetchFailureReason, splitCredentials, timeoutSignal } from '../../core/http.js'
import { nodeGetFetch } from '../../core/nodeHttp.js'
import { mapLimited } from '../limiter.js'
import type { AddressActivity, ChainProvider, FeeRates, Utxo } from '../types.js'

export type EsploraOptions = {
  /**
   * Injected fetch (tests, proxies). Default: in Node, reads go through its own http(s) client (`nodeGetFetch`:
   * a fifth of `fetch`'s CPU per request, which a transfer's one read per parent makes count); elsewhere, and for
   * the broadcast, `globalThis.fetch`.
   */
  fetch?: typeof fetch
  /** Extra attempts for reads after a network error, 429 or 5xx. Default 2. Broadcasts are never retried. */
  retries?: number
  /** Per-request timeout. Default 15 s. */
  timeoutMs?: number
  /** Pause before retry n is `n × retryDelayMs`. Default 200 ms. */
  retryDelayMs?: number
  /**
   * Requests in flight at once when the wallet reads many transactions (`rawTransactions`: the parents of a
   * transfer's coins, one request each, since Esplora serves one transaction per request). Default 8, at most
   * 64; public servers answer 429 to a burst (retried like any read).
   */
  readsInFlight?: number
}

const txidPattern = /^[0-9a-f]{64}$/

/**
 * A chain provider over the Esplora HTTP API (Blockstream/esplora `API.md`; mempool.space serves the same under
 * `/api`). `url` is the API root, e.g. `https://mempool.space/api` or `https://mempool.space/testnet/api`.
 * Reads may be retried; `POST /tx` is sent exactly once and its failure reported with the node's reason.
 */
export function esplora(url: string, options: EsploraOptions = {}): ChainProvider {
  const { url: credentialFree, authorization } = splitCredentials(url, 'esplora')
  const root = credentialFree.replace(/\/+$/, '')
  const fetchFn = options.fetch ?? nodeGetFetch(globalThis.fetch) ?? globalThis.fetch
  const retries = options.retries ?? 2
  const timeoutMs = options.timeoutMs ?? 15_000
  const retryDelayMs = options.retryDelayMs ?? 200
  const readsInFlight = options.readsInFlight ?? 8
  if (!Number.isSafeInteger(readsInFlight) || readsInFlight < 1 || readsInFlight > 64)
    throw new TypeError('esplora: readsInFlight must be a whole number from 1 to 64')

  async function request(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetchFn(`${root}${path}`, {
        ...init,
        ...(authorization ? { headers: { ...init.headers, authorization } } : {}),
        signal: timeoutSignal(timeoutMs),
      })
    } catch (error) {
      // A POST that timed out or lost its connection may still have reached the node: say so, so nobody
      // takes "unreachable" as "not sent" and pays again with other coins.
      if (init.method !== 'POST')
        throw new ProviderError(
          `esplora GET ${path.split('?')[0]} unreachable: ${fetchFailureReason(error)}`,
          {
            cause: error,
          },
        )
      throw markOutcomeUnknown(
        new ProviderError(`broadcast outcome unknown (it may have been sent): ${fetchFailureReason(error)}`, {
          cause: error,
        }),
      )
    }
  }

  async function read(path: string): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries
      let response: Response
      try {
        response = await request(path, { method: 'GET' })
      } catch (error) {
        if (last) throw error
        await sleep(retryDelayMs * (attempt + 1))
        continue
      }
      if (response.ok) return response
      const retryable = response.status === 429 || response.status >= 500
      if (!retryable || last) {
        throw new ProviderError(
          `esplora GET ${path.split('?')[0]}: ${response.status} ${await bodyOf(response)}`,
        )
      }
      await response.body?.cancel()
      await sleep(retryDelayMs * (attempt + 1))
    }
  }

  async function readJson(path: string): Promise<unknown> {
    const response = await read(path)
    try {
      return await response.json()
    } catch {
      throw new ProviderError(`esplora GET ${path}: invalid JSON`)
    }
  }

  async function rawTransaction(txid: string): Promise<Uint8Array> {
    if (!txidPattern.test(txid)) throw new ProviderError('esplora: txid must be 64 lower-case hex characters')
    const text = (await (await read(`/tx/${txid}/hex`)).text()).trim()
    if (!/^(?:[0-9a-f]{2})+$/i.test(text)) throw new ProviderError(`esplora GET /tx/${txid}/hex: not hex`)
    return hexToBytes(text)
  }

  return {
    async utxos(address) {
      const body = await readJson(`/address/${encodeURIComponent(address)}/utxo`)
      if (!Array.isArray(body)) throw new ProviderError('esplora: /utxo did not return an array')
      return body.map(toUtxo)
    },

    async addressActivity(address): Promise<AddressActivity> {
      const body = (await readJson(`/address/${encodeURIComponent(address)}`)) as {
        chain_stats?: { tx_count?: unknown }
        mempool_stats?: { tx_count?: unknown }
      } | null
      const confirmed = body?.chain_stats?.tx_count
      const pending = body?.mempool_stats?.tx_count ?? 0
      if (!isCount(confirmed) || !isCount(pending))
        throw new ProviderError('esplora: malformed address stats')
      return { txCount: confirmed + pending }
    },

    async feeRates(): Promise<FeeRates> {
      const body = await readJson('/fee-estimates')
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new ProviderError('esplora: malformed fee estimates')
      }
      const rates: FeeRates = {}
      for (const [target, rate] of Object.entries(body)) {
        if (/^\d+$/.test(target) && typeof rate === 'number' && Number.isFinite(rate) && rate >= 0) {
          rates[target] = rate
        }
      }
      return rates
    },

    rawTransaction,

    rawTransactions(txids) {
      return mapLimited(txids, readsInFlight, rawTransaction)
    },

    async broadcast(rawTransaction) {
      // Exactly one attempt: a retried broadcast can double-spend nothing, but it can hide what happened.
      const response = await request('/tx', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: bytesToHex(rawTransaction),
      })
      const text = (await bodyOf(response)).trim()
      if (!response.ok) throw new ProviderError(`broadcast rejected: ${response.status} ${text}`)
      if (!txidPattern.test(text)) throw new ProviderError('broadcast: esplora did not answer a txid')
      return text
    },
  }
}

function toUtxo(raw: unknown): Utxo {
  const entry = raw as {
    txid?: unknown
    vout?: unknown
    value?: unknown
    status?: { confirmed?: unknown; block_height?: unknown }
  } | null
  if (
    typeof entry?.txid !== 'string' ||
    !txidPattern.test(entry.txid) ||
    !isCount(entry.vout) ||
    !isCount(entry.value) ||
    typeof entry.status?.confirmed !== 'boolean'
  ) {
    throw new ProviderError('esplora: malformed UTXO')
  }
  const utxo: Utxo = {
    txid: entry.txid,
    vout: entry.vout,
    value: entry.value,
    confirmed: entry.status.confirmed,
  }
  if (isCount(entry.status.block_height)) utxo.blockHeight = entry.status.block_height
  return utxo
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0

async function bodyOf(response: Response): Promise<string> {
  try {
    // Providers put the node's reject reason in the body; keep it short.
    return (await response.text()).slice(0, 500)
  } catch {
    return ''
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
