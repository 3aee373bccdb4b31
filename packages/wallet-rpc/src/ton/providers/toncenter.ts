import { ProviderError } from '../../core/errors.js'
import { fetchFailureReason, splitCredentials, timeoutSignal } from '../../core/http.js'
import { EmulatorError, postToEmulator, readAnswer } from '../emulation/post.js'
import { readToncenterAnswer } from '../emulation/toncenterAnswer.js'
import type { TonAccountState, TonChainProvider, TonEmulationRequest, TonEmulator } from '../types.js'

export type ToncenterOptions = {
  /** Sent as `X-API-Key` to the provider's own origin only; never echoed in errors. */
  apiKey?: string
  /** Injected for tests and non-Node runtimes; the global `fetch` by default. */
  fetch?: typeof fetch
  /** Per-request timeout, default 15 s. */
  timeoutMs?: number
  /**
   * Base of toncenter's emulation API. By default the provider URL with its `/api/v2` (or `/api/v2/jsonRPC`)
   * replaced by `/api/emulate/v1`; a URL without `/api/v2` has no emulator unless this names one. Credentials
   * in this URL go to it; the API key and the provider URL's credentials only when it is the same origin.
   */
  emulatorUrl?: string
  /** Another emulator instead of toncenter's (`tonapi()`, or any `{ emulate }`); `false`: do not emulate. */
  emulator?: TonEmulator | false
  /** The emulation's own timeout (both calls when it falls back to `emulateTrace`), default 5 s. */
  emulateTimeoutMs?: number
}

/** `emulateTonConnect` takes at most this many messages (toncenter/ton-indexer `ton-emulate-go/main.go`). */
const maxTonConnectMessages = 4

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
  const emulator = emulatorFor(credentialFree, authorization, options)

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
      const reason = isRecord(answer) && typeof answer.error === 'string' ? answer.error : 'no result'
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

    ...(emulator === undefined ? {} : { emulate: (request) => emulator.emulate(request) }),
  }
}

/** Where `toncenter()` emulates: another emulator, toncenter's own at the derived or given URL, or nowhere. */
function emulatorFor(
  providerUrl: string,
  providerAuthorization: string | undefined,
  options: ToncenterOptions,
): TonEmulator | undefined {
  if (options.emulator === false) return undefined
  if (options.emulator !== undefined) return options.emulator
  let base: URL
  let authorization: string | undefined
  if (options.emulatorUrl !== undefined) {
    const given = splitCredentials(options.emulatorUrl, 'toncenter emulatorUrl')
    base = new URL(given.url)
    authorization = given.authorization
  } else {
    const derived = new URL(providerUrl)
    const prefix = /^(.*)\/api\/v2(?:\/jsonRPC)?\/*$/i.exec(derived.pathname)?.[1]
    if (prefix === undefined) return undefined
    derived.pathname = `${prefix}/api/emulate/v1`
    derived.search = ''
    derived.hash = ''
    base = derived
  }
  // The provider's key and credentials are for its own origin: another host never sees them.
  const sameOrigin = base.origin === new URL(providerUrl).origin
  const headers: Record<string, string> = {}
  if (sameOrigin && options.apiKey !== undefined) headers['x-api-key'] = options.apiKey
  const basic = authorization ?? (sameOrigin ? providerAuthorization : undefined)
  if (basic !== undefined) headers.authorization = basic
  return toncenterEmulator(base.href.replace(/\/+$/, ''), headers, options)
}

/**
 * toncenter's emulation API (toncenter/ton-indexer `ton-emulate-go`). `emulateTonConnect` takes the dapp's
 * request itself, so nothing is signed: `{ from, valid_until, messages, with_actions, include_metadata,
 * include_address_book }`. It takes 1 to 4 messages from a deployed v3, v4 or v5 wallet; for more messages or
 * an undeployed wallet (its answer "Account not found in accounts_dict"), `emulateTrace` runs the unsigned
 * external message (64 zero bytes for the signature) with `ignore_chksig`.
 */
function toncenterEmulator(
  base: string,
  headers: Record<string, string>,
  options: ToncenterOptions,
): TonEmulator {
  const fetchImpl = options.fetch ?? globalThis.fetch
  const timeoutMs = options.emulateTimeoutMs ?? 5_000
  const name = `toncenter (${new URL(base).host})`
  const answerFields = { with_actions: true, include_metadata: true, include_address_book: true }

  return {
    async emulate(request: TonEmulationRequest) {
      // One budget for both calls; the namespace's signal stops both too.
      const signal = timeoutSignal(timeoutMs, request.signal)
      const post = (method: string, body: unknown) =>
        postToEmulator({
          fetch: fetchImpl,
          url: `${base}/${method}`,
          headers,
          body,
          signal,
          timeoutMs,
          what: `toncenter ${method}`,
        })
      let answer: unknown
      if (request.wallet.stateInit === undefined && request.messages.length <= maxTonConnectMessages) {
        try {
          answer = await post('emulateTonConnect', {
            from: request.wallet.address,
            valid_until: request.validUntil,
            messages: request.messages.map(({ address, amount, payload, stateInit }) => ({
              address,
              amount,
              ...(payload === undefined ? {} : { payload }),
              ...(stateInit === undefined ? {} : { stateInit }),
            })),
            ...answerFields,
          })
        } catch (error) {
          const undeployed =
            error instanceof EmulatorError &&
            error.serviceError?.includes('Account not found in accounts_dict')
          if (!undeployed) throw error
        }
      }
      let method = 'emulateTonConnect'
      if (answer === undefined) {
        method = 'emulateTrace'
        answer = await post(method, {
          boc: Buffer.from(request.unsignedBoc).toString('base64'),
          ignore_chksig: true,
          ...answerFields,
        })
      }
      return readAnswer(`toncenter ${method}`, () =>
        readToncenterAnswer(answer, request.wallet.rawAddress, name),
      )
    },
  }
}
