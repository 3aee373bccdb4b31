import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { sha256 } from '../crypto/sha256.js'
import type { Clock } from './clock.js'
import { InvalidRequestError, type JsonRpcErrorObject, WalletRpcError } from './errors.js'

/**
 * The request journal: what a keyed request has done, written before each side effect and awaited, so that a
 * request seen again (WalletKit redelivers every request it holds unanswered, on every start) replays what the
 * first one did instead of doing it twice. The path of a request that signs or sends (core/router.ts):
 *
 *   plan → review → approve → approved (what the plan fixed) → sign → signed (the exact bytes and their id)
 *        → broadcast → broadcast (the provider's answer) → answered (the result)
 *
 * On a repeat: answered → the stored result (or the stored error of a send the chain then did not have);
 * signed or broadcast → the same bytes sent again through the method's `sends.resend` (never re-signed, no new
 * nonce, no prompt), or, once the request expired, only looked up (`sends.known`); approved with nothing
 * signed → asked again, since nothing went out. No secret is ever written: signed transactions are public once
 * broadcast.
 */

/**
 * An async key-value store, shaped like WalletConnect's `IKeyValueStorage` (@walletconnect/keyvaluestorage),
 * so a wallet can pass WalletKit's own `core.storage` (IndexedDB in browsers and extensions, AsyncStorage in
 * React Native, files in Node) or anything with the same five calls. Values are JSON.
 */
export type KeyValueStorage = {
  getKeys(): Promise<string[]>
  getEntries<T = unknown>(): Promise<[string, T][]>
  getItem<T = unknown>(key: string): Promise<T | undefined>
  setItem<T = unknown>(key: string, value: T): Promise<void>
  removeItem(key: string): Promise<void>
}

/** A store that lives as long as the process: the default, and lost on restart (pass a durable one). */
export function memoryStorage(): KeyValueStorage {
  const items = new Map<string, string>()
  return {
    getKeys: async () => [...items.keys()],
    getEntries: async <T>() => [...items].map(([key, value]) => [key, JSON.parse(value) as T] as [string, T]),
    getItem: async <T>(key: string) => {
      const value = items.get(key)
      return value === undefined ? undefined : (JSON.parse(value) as T)
    },
    // Stored as text, as a durable store would keep it: a caller mutating its object later changes nothing.
    setItem: async (key, value) => {
      items.set(key, JSON.stringify(value))
    },
    removeItem: async (key) => {
      items.delete(key)
    },
  }
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

export type JournalState = 'approved' | 'signed' | 'broadcast' | 'answered'

export type JournalRecord = {
  /** Format version. */
  v: 1
  /** The request's identity, as the journal was given it (the storage key is its hash). */
  key: string
  method: string
  chainId: string
  /** SHA-256 of the method, chain and params: the same key with other params is another request, refused. */
  paramsHash: string
  state: JournalState
  /** Milliseconds since the epoch after which the record may be pruned. */
  keepUntil: number
  /** What the plan fixed before anything was signed (coins, seqno). */
  fixed?: JsonValue
  /** What the plan decoded the request to move (`Planned.effects`, amounts as decimal strings), for a replay's caller. */
  effects?: JsonValue
  /** What `execute` recorded before broadcasting: the exact signed bytes. */
  signed?: JsonValue
  /** Their txids, hashes or signatures. */
  ids?: string[]
  /** The provider's answer to the broadcast. */
  broadcast?: JsonValue
  /** The result answered (state `answered`). */
  result?: JsonValue
  /**
   * Or the error answered (state `answered`), for a request whose send failed after its bytes were signed and
   * the chain was then found not to have them: those bytes are dead (their nonce or coins go to the next
   * request) and must never be sent on a repeat.
   */
  error?: JsonRpcErrorObject
}

/**
 * What a sending method's `execute` reports to the journal. `signed` resolves once the record is durable and
 * throws when it cannot be written, or (8000) when the request expired while it was being signed: the method
 * must then not broadcast (nothing is sent without a record, nor after its request expired).
 * `broadcast` never throws (the effect already happened; the signed record suffices to replay it).
 */
export type JournalSteps = {
  /**
   * `record` (what `sends.resend` needs) is stored as JSON (bigints as decimal strings, bytes as hex, as in
   * answers); `ids` are the signed transactions' txids, hashes or signatures, which an answer names when the
   * bytes cannot be sent again.
   */
  signed(record: unknown, ids: readonly string[]): Promise<void>
  broadcast(answer: unknown): Promise<void>
}

/** For a request without a key: nothing is recorded. */
export const unrecorded: JournalSteps = {
  signed: () => Promise.resolve(),
  broadcast: () => Promise.resolve(),
}

/** -32603: the journal could not be read or written, so the request was refused before anything was signed. */
export class JournalUnavailableError extends WalletRpcError {
  static readonly code = -32603
  override name = 'JournalUnavailableError'
  constructor(reason: string, options: { cause?: unknown } = {}) {
    super(JournalUnavailableError.code, 'Request journal unavailable.', {
      data: { reason },
      ...options,
    })
  }
}

/** -32600: the request's key was already used by a request with other params (never answered with its result). */
export class RequestKeyReusedError extends InvalidRequestError {
  override name = 'RequestKeyReusedError'
  constructor() {
    super(
      'this request id (or request key) was already used for a different request; nothing was signed or sent',
      { data: { reason: 'request key reused with other params', rule: 'journal.key_reused' } },
    )
  }
}

/** How long a record stays when the request names no expiry: WalletConnect's longest request expiry, 7 days. */
export const defaultKeepMs = 7 * 24 * 3600_000
/** Kept this long past the request's expiry: a redelivery racing the expiry still finds it. */
export const keepMarginMs = 24 * 3600_000
/** Past this many requests, answered ones that hold no signed bytes are pruned early, those expiring first. */
export const maxJournalRecords = 10_000
const pruneEveryMs = 10 * 60_000
const storagePrefix = 'wallet-rpc:journal:'
/** The steps, furthest first (a record's storage key ends with its step). */
const states: readonly JournalState[] = ['answered', 'broadcast', 'signed', 'approved']

/**
 * SHA-256 over method, chain id and params as canonical JSON (object keys sorted): a redelivery of the same
 * request hashes alike whatever order its transport serialized the keys in. Params passed `assertSafeParams`
 * (bounded size and depth, no prototype keys).
 */
export function paramsHashOf(method: string, chainId: string, params: unknown): string {
  const canonical = JSON.stringify([method, chainId, params ?? null], (_key, value: unknown) => {
    if (typeof value === 'bigint') return `${value}n`
    if (value instanceof Uint8Array) return bytesToHex(value)
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const record = value as Record<string, unknown>
      return Object.fromEntries(
        Object.keys(record)
          .sort()
          .map((name) => [name, record[name]]),
      )
    }
    return value
  })
  return bytesToHex(sha256(utf8ToBytes(canonical)))
}

/**
 * The journal over one store. Storage keys are a hash of the request's key, so any key (a dapp-chosen id, a
 * topic) is a safe key for every store (files, IndexedDB, AsyncStorage).
 */
export class RequestJournal {
  readonly storage: KeyValueStorage
  readonly #clock: Clock
  readonly #report: (error: unknown) => void
  #nextPruneAt = 0

  constructor(storage: KeyValueStorage, clock: Clock, report: (error: unknown) => void) {
    this.storage = storage
    this.#clock = clock
    this.#report = report
  }

  /**
   * What the journal holds for `key`: its furthest readable step (answered, broadcast, signed, approved), or
   * undefined. A torn later step (a crash while a store truncated and wrote its file) is passed over for the
   * signed record under it, since sending those bytes again is harmless; a torn signed record refuses, since
   * what was signed is then unknown. Throws JournalUnavailableError when the store fails.
   */
  async read(key: string): Promise<JournalRecord | undefined> {
    const base = storageKeyOf(key)
    let stored: unknown[]
    try {
      // One round trip to the store (IndexedDB, AsyncStorage) for the four steps.
      stored = await Promise.all(states.map((step) => this.storage.getItem(`${base}-${step}`)))
    } catch (error) {
      throw new JournalUnavailableError('the store could not be read', { cause: error })
    }
    for (const [index, step] of states.entries()) {
      const record = stored[index]
      if (record === undefined || record === null) continue
      if (isRecord(record) && record.key === key && record.state === step) return record
      if (step === 'signed')
        throw new JournalUnavailableError(
          'the store holds an unreadable record of signed bytes for this request',
        )
    }
    return undefined
  }

  /**
   * Writes `record` under its step's own key and waits until the store says it is kept; throws
   * JournalUnavailableError otherwise. Each step has its own key so that no write ever replaces the record of
   * signed bytes: WalletConnect's Node storage replaces a value by deleting its file and writing it anew, and a
   * crash in between must not lose what was signed.
   */
  async write(record: JournalRecord): Promise<void> {
    try {
      await this.storage.setItem(`${storageKeyOf(record.key)}-${record.state}`, record)
    } catch (error) {
      throw new JournalUnavailableError('the store could not be written', { cause: error })
    }
    this.#pruneNowAndThen()
  }

  /** When a record made now for a request expiring at `expiresAtMs` may go. */
  keepUntil(expiresAtMs: number | undefined): number {
    const now = this.#clock()
    const expiry =
      expiresAtMs === undefined ? now + defaultKeepMs : Math.min(expiresAtMs, now + defaultKeepMs)
    return Math.max(expiry, now) + keepMarginMs
  }

  /**
   * Removes the records past their `keepUntil`, then, while more than `maxJournalRecords` requests remain, the
   * answered ones that hold no signed bytes (signatures, reads of a signing-only method), those expiring first.
   * A request that signed something to send is kept until it expires: forgetting it early could send twice.
   * Returns how many stored records went.
   */
  async prune(): Promise<number> {
    const now = this.#clock()
    const keys = (await this.storage.getKeys()).filter((key) => key.startsWith(storagePrefix))
    /** Per request (storage key without its step): its live records' keys, its answer's keepUntil, whether it sent. */
    const requests = new Map<string, { keys: string[]; answeredUntil?: number; sent: boolean }>()
    let removed = 0
    for (const key of keys) {
      const stored = await this.storage.getItem(key)
      if (!isRecord(stored) || stored.keepUntil <= now) {
        await this.storage.removeItem(key)
        removed++
        continue
      }
      const request = key.slice(0, key.lastIndexOf('-'))
      const entry = requests.get(request) ?? { keys: [], sent: false }
      entry.keys.push(key)
      if (stored.state === 'answered') entry.answeredUntil = stored.keepUntil
      if (stored.signed !== undefined) entry.sent = true
      requests.set(request, entry)
    }
    if (requests.size > maxJournalRecords) {
      const answered = [...requests.values()]
        .filter((entry) => entry.answeredUntil !== undefined && !entry.sent)
        .sort((a, b) => a.answeredUntil! - b.answeredUntil!)
      for (const entry of answered.slice(0, requests.size - maxJournalRecords)) {
        for (const key of entry.keys) await this.storage.removeItem(key)
        removed += entry.keys.length
      }
    }
    return removed
  }

  /** A prune in the background at most every ten minutes; its failure is reported, never a request's. */
  #pruneNowAndThen(): void {
    const now = this.#clock()
    if (now < this.#nextPruneAt) return
    this.#nextPruneAt = now + pruneEveryMs
    this.prune().catch(this.#report)
  }
}

/**
 * The request's storage key, without its step: a hash, so any request key is a safe key for every store. The step
 * follows after a `-`, not a `:`, which file stores (unstorage fs-lite) turn into a folder that outlives it.
 */
function storageKeyOf(key: string): string {
  return `${storagePrefix}${bytesToHex(sha256(utf8ToBytes(key))).slice(0, 40)}`
}

function isRecord(value: unknown): value is JournalRecord {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  return (
    record.v === 1 &&
    typeof record.key === 'string' &&
    typeof record.method === 'string' &&
    typeof record.chainId === 'string' &&
    typeof record.paramsHash === 'string' &&
    typeof record.keepUntil === 'number' &&
    states.includes(record.state as JournalState)
  )
}
