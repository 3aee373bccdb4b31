import { ProviderError } from '../../core/errors.js'
import { fetchFailureReason, splitCredentials, timeoutSignal } from '../../core/http.js'
import type { TonAccountState, TonChainProvider } from '../provider.js'

export type ToncenterOptions = {
  /** Sent as `X-API-Key`; never echoed in errors. */
  apiKey?: string
  /** Injected for tests and non-Node runtimes; the global `fetch` by default. */
  fetch?: typeof fetch
  /** Per-request timeout, default 15 s. */
  timeoutMs?: number
}

type ToncenterAnswer = { ok?: boolean; result?: unknown; error?: unknown; code?: unknown }

const accountStates: Record<string, TonAccountState> = {
  active: 'active',
  uninitialized: 'uninit',
  uninit: 'uninit',
  frozen: 'frozen',
  nonexist: 'nonexist',
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** toncenter reports hashes in base64 (v2) or hex; the namespace compares hex. */
function hashToHex(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  if (/^[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase()
  const bytes = Buffer.from(value, 'base64')
  return bytes.length === 32 ? bytes.toString('hex') : undefined
}

/**
 * toncenter HTTP API v2 (`https://toncenter.com/api/v2`, `https://testnet.toncenter.com/api/v2`, or a
 * self-hosted ton-http-api): `getAddressInformation`, `runGetMethod seqno`, `sendBocReturnHash`.
 */
export function toncenter(url: string, options: ToncenterOptions = {}): TonChainProvider {
  const { url: credentialFree, authorization } = splitCredentials(url, 'toncenter')
  const base = credentialFree.replace(/\/+$/, '').replace(/\/jsonRPC$/i, '')
  const fetchImpl = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? 15_000

  async function call(
    method: string,
    init: { query?: Record<string, string>; body?: unknown },
  ): Promise<unknown> {
    const target = new URL(`${base}/${method}`)
    for (const [key, value] of Object.entries(init.query ?? {})) target.searchParams.set(key, value)
    const headers: Record<string, string> = { accept: 'application/json' }
    if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey
    if (authorization !== undefined) headers.authorization = authorization
    if (init.body !== undefined) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await fetchImpl(target, {
        method: init.body === undefined ? 'GET' : 'POST',
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        signal: timeoutSignal(timeoutMs),
      })
    } catch (error) {
      throw new ProviderError(`toncenter ${method}: ${fetchFailureReason(error)}`)
    }
    let answer: ToncenterAnswer
    try {
      answer = (await response.json()) as ToncenterAnswer
    } catch {
      throw new ProviderError(`toncenter ${method}: HTTP ${response.status}, not JSON`)
    }
    if (!isRecord(answer) || answer.ok !== true) {
      const reason =
        isRecord(answer) && typeof answer.error === 'string' ? answer.error.slice(0, 300) : 'no result'
      throw new ProviderError(`toncenter ${method}: HTTP ${response.status}, ${reason}`)
    }
    return answer.result
  }

  return {
    async getAccount(address) {
      const result = await call('getAddressInformation', { query: { address } })
      const state =
        isRecord(result) && typeof result.state === 'string' ? accountStates[result.state] : undefined
      const balance = isRecord(result) ? result.balance : undefined
      if (
        state === undefined ||
        (typeof balance !== 'string' && typeof balance !== 'number') ||
        !/^\d+$/.test(String(balance))
      ) {
        throw new ProviderError('toncenter getAddressInformation: unexpected answer')
      }
      return { state, balance: BigInt(balance) }
    },

    async getSeqno(address) {
      const result = await call('runGetMethod', { body: { address, method: 'seqno', stack: [] } })
      const stack = isRecord(result) ? result.stack : undefined
      const top = Array.isArray(stack) ? stack[0] : undefined
      if (
        !isRecord(result) ||
        result.exit_code !== 0 ||
        !Array.isArray(top) ||
        top[0] !== 'num' ||
        typeof top[1] !== 'string'
      ) {
        throw new ProviderError('toncenter runGetMethod seqno: unexpected answer')
      }
      const seqno = Number(BigInt(top[1]))
      if (!Number.isSafeInteger(seqno) || seqno < 0) throw new ProviderError('toncenter seqno out of range')
      return seqno
    },

    async sendBoc(boc) {
      const result = await call('sendBocReturnHash', { body: { boc: Buffer.from(boc).toString('base64') } })
      const hash = isRecord(result) ? (hashToHex(result.hash_norm) ?? hashToHex(result.hash)) : undefined
      return hash === undefined ? {} : { hash }
    },
  }
}
