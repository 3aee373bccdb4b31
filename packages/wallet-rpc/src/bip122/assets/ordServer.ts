import { ProviderError } from '../../core/errors.js'
import { fetchFailureReason, splitCredentials, timeoutSignal } from '../../core/http.js'
import type { OutputAssets, OutputAssetsProvider, OutputInscription, OutputRune } from './types.js'

export type OrdServerOptions = {
  /** Injected fetch (tests, proxies); default `globalThis.fetch`. */
  fetch?: typeof fetch
  /** Per HTTP request. Default 10 s. */
  timeoutMs?: number
  /** All requests of one `outputs()` call together. Default 30 s; what has no answer by then is unknown. */
  deadlineMs?: number
  /** Outpoints per `POST /outputs`. Default 100, at most 1000. */
  batchSize?: number
  /** Requests in flight at once. Default 4. */
  concurrency?: number
  /** Extra attempts after a network error, 429 or 5xx. Default 1. */
  retries?: number
  /** Pause before retry n is `n × retryDelayMs`. Default 200 ms. */
  retryDelayMs?: number
  /**
   * With `details`: at most this many `GET /inscription/<id>` per call (an output can hold thousands of junk
   * inscriptions); the others have no offset, so their whole output is judged. Default 100.
   */
  maxInscriptionLookups?: number
}

const outpointPattern = /^[0-9a-f]{64}:\d{1,10}$/
const inscriptionIdPattern = /^[0-9a-f]{64}i\d{1,10}$/
const runeIdPattern = /^\d{1,20}:\d{1,10}$/
/** An ord answer larger than this is refused (100 outputs with long sat-range lists stay far below). */
const maxBodyChars = 32 * 1024 * 1024
const maxRuneLookups = 64
const maxCachedRuneIds = 1000

type Reply = { status: 200; body: unknown } | { status: 404 }

/**
 * An `OutputAssetsProvider` over ord's JSON API (`ord server`, ordinals/ord `docs/src/guides/api.md`, 0.27):
 * `POST /outputs` in batches, `GET /output/<txid>:<vout>` one by one when a batch answers 404 (ord fails the
 * whole batch when it does not know one outpoint), and with `details` `GET /inscription/<id>` (the satpoint
 * gives the inscription's offset) and `GET /rune/<name>` (the rune's id, kept: an id never changes).
 *
 * Every request sends `Accept: application/json` exactly (ord answers HTML to anything else). A null `runes`,
 * `inscriptions` or `sat_ranges` stays `undefined` (unknown: the server does not index it), and `indexed:
 * false` is passed on as such. Credentials in the URL are sent as a Basic authorization header, never shown.
 */
export function ordServer(url: string, options: OrdServerOptions = {}): OutputAssetsProvider {
  const { url: credentialFree, authorization } = splitCredentials(url, 'ordServer')
  const root = credentialFree.replace(/\/+$/, '')
  const name = `ord server ${new URL(credentialFree).host}`
  const fetchFn = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? 10_000
  const deadlineMs = options.deadlineMs ?? 30_000
  const batchSize = Math.min(Math.max(1, options.batchSize ?? 100), 1000)
  const concurrency = Math.max(1, options.concurrency ?? 4)
  const retries = options.retries ?? 1
  const retryDelayMs = options.retryDelayMs ?? 200
  const maxInscriptionLookups = options.maxInscriptionLookups ?? 100
  const runeIds = new Map<string, string>()

  async function call(path: string, deadline: number, body?: string): Promise<Reply> {
    const what = `${body === undefined ? 'GET' : 'POST'} ${path.split('/').slice(0, 2).join('/')}`
    for (let attempt = 0; ; attempt++) {
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`${what}: no answer within ${deadlineMs} ms`)
      let response: Response
      try {
        response = await fetchFn(`${root}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: {
            // Exactly this: ord compares the header with "application/json" and answers HTML otherwise.
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(authorization ? { authorization } : {}),
          },
          ...(body === undefined ? {} : { body }),
          signal: timeoutSignal(Math.min(timeoutMs, left)),
        })
      } catch (error) {
        if (attempt >= retries) throw new Error(`${what}: ${fetchFailureReason(error)}`)
        await sleep(retryDelayMs * (attempt + 1))
        continue
      }
      if (response.status === 404) {
        await response.body?.cancel()
        return { status: 404 }
      }
      if (response.ok) {
        const text = await response.text()
        if (text.length > maxBodyChars) throw new Error(`${what}: answer too large`)
        try {
          return { status: 200, body: parseExactJson(text) }
        } catch {
          throw new Error(`${what}: the answer is not JSON (is this an ord server with its JSON API on?)`)
        }
      }
      await response.body?.cancel()
      const retryable = response.status === 429 || response.status >= 500
      if (!retryable || attempt >= retries) throw new Error(`${what}: HTTP ${response.status}`)
      await sleep(retryDelayMs * (attempt + 1))
    }
  }

  return {
    name,
    async outputs(outpoints, outputOptions = {}) {
      const deadline = Date.now() + deadlineMs
      const found = new Map<string, OutputAssets>()
      const failures: string[] = []
      const wanted = [...new Set(outpoints)].filter((outpoint) => outpointPattern.test(outpoint))

      const single =
        (outpoint: string): Task =>
        async () => {
          const reply = await call(`/output/${outpoint}`, deadline)
          const parsed = reply.status === 200 ? parseOutput(reply.body, outpoint) : undefined
          if (parsed) found.set(outpoint, parsed)
          return undefined
        }
      const batches: Task[] = []
      for (let start = 0; start < wanted.length; start += batchSize) {
        const batch = wanted.slice(start, start + batchSize)
        batches.push(async () => {
          const reply = await call('/outputs', deadline, JSON.stringify(batch))
          if (reply.status === 404) {
            // ord answers 404 for the whole batch when it does not know one of them: ask one by one.
            return batch.map(single)
          }
          if (!Array.isArray(reply.body) || reply.body.length !== batch.length)
            throw new Error('POST /outputs: the answer does not list the outputs asked for')
          for (const [index, outpoint] of batch.entries()) {
            const parsed = parseOutput(reply.body[index], outpoint)
            if (parsed) found.set(outpoint, parsed)
          }
          return undefined
        })
      }
      await runQueue(batches, concurrency, failures)

      if (outputOptions.details) {
        const lookups: Task[] = []
        for (const [outpoint, assets] of found) {
          for (const inscription of (assets.inscriptions ?? []) as OutputInscription[]) {
            if (lookups.length >= maxInscriptionLookups) break
            lookups.push(async () => {
              const reply = await call(`/inscription/${inscription.id}`, deadline)
              const satpoint =
                reply.status === 200 ? (reply.body as { satpoint?: unknown })?.satpoint : undefined
              // Only a satpoint on this very output says where in it the inscription sits.
              if (typeof satpoint === 'string' && satpoint.startsWith(`${outpoint}:`)) {
                const offset = integerOf(satpoint.slice(outpoint.length + 1))
                if (offset !== undefined && (assets.value === undefined || offset < assets.value))
                  inscription.offset = offset
              }
              return undefined
            })
          }
        }
        const runes = [...found.values()].flatMap((assets) => (assets.runes ?? []) as OutputRune[])
        const unknownNames = [...new Set(runes.map((rune) => rune.rune))].filter((rune) => !runeIds.has(rune))
        for (const rune of unknownNames.slice(0, maxRuneLookups)) {
          lookups.push(async () => {
            const reply = await call(`/rune/${encodeURIComponent(rune)}`, deadline)
            const id = reply.status === 200 ? (reply.body as { id?: unknown })?.id : undefined
            if (typeof id === 'string' && runeIdPattern.test(id)) {
              if (runeIds.size >= maxCachedRuneIds) runeIds.delete(runeIds.keys().next().value!)
              runeIds.set(rune, id)
            }
            return undefined
          })
        }
        await runQueue(lookups, concurrency, failures)
        for (const rune of runes) rune.id = runeIds.get(rune.rune)
      }

      // Nothing answered at all: say why, so the review can name the cause instead of "unknown".
      if (found.size === 0 && failures.length > 0) throw new ProviderError(`${name}: ${failures[0]}`)
      return found
    },
  }
}

/** ord's `api::Output` JSON as `OutputAssets`; undefined when it is malformed or names another outpoint. */
function parseOutput(raw: unknown, outpoint: string): OutputAssets | undefined {
  if (!isRecord(raw) || typeof raw.indexed !== 'boolean') return undefined
  if (raw.outpoint !== undefined && raw.outpoint !== outpoint) return undefined
  const value = raw.value === undefined ? undefined : integerOf(raw.value)
  if (raw.value !== undefined && value === undefined) return undefined
  if (raw.spent !== undefined && typeof raw.spent !== 'boolean') return undefined

  let inscriptions: OutputInscription[] | undefined
  if (Array.isArray(raw.inscriptions)) {
    if (!raw.inscriptions.every((id) => typeof id === 'string' && inscriptionIdPattern.test(id)))
      return undefined
    inscriptions = raw.inscriptions.map((id: string) => ({ id }))
  } else if (raw.inscriptions !== null && raw.inscriptions !== undefined) return undefined

  let runes: OutputRune[] | undefined
  if (raw.runes !== null && raw.runes !== undefined) {
    // ord 0.27 writes `{ NAME: pile }`; older versions `[[NAME, pile]]`.
    let entries: unknown[]
    if (Array.isArray(raw.runes)) entries = raw.runes
    else if (isRecord(raw.runes)) entries = Object.entries(raw.runes)
    else return undefined
    runes = []
    for (const entry of entries) {
      const rune = Array.isArray(entry) ? parsePile(entry[0], entry[1]) : undefined
      if (!rune) return undefined
      runes.push(rune)
    }
  }

  let satRanges: Array<[number, number]> | undefined
  if (Array.isArray(raw.sat_ranges)) {
    satRanges = []
    for (const range of raw.sat_ranges) {
      const start = Array.isArray(range) && range.length === 2 ? integerOf(range[0]) : undefined
      const end = Array.isArray(range) && range.length === 2 ? integerOf(range[1]) : undefined
      if (start === undefined || end === undefined || end <= start) return undefined
      satRanges.push([start, end])
    }
  } else if (raw.sat_ranges !== null && raw.sat_ranges !== undefined) return undefined

  return {
    indexed: raw.indexed,
    value,
    spent: raw.spent as boolean | undefined,
    inscriptions,
    runes,
    satRanges,
  }
}

function parsePile(name: unknown, pile: unknown): OutputRune | undefined {
  if (typeof name !== 'string' || name.length === 0 || name.length > 128 || !isRecord(pile)) return undefined
  const amount = bigIntegerOf(pile.amount)
  const divisibility = integerOf(pile.divisibility)
  if (amount === undefined || divisibility === undefined || divisibility > 38) return undefined
  const symbol = typeof pile.symbol === 'string' && pile.symbol.length <= 4 ? pile.symbol : undefined
  return { rune: name, amount, divisibility, symbol }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** A non-negative safe integer, from a JSON number or the digit string `parseExactJson` made of a long one. */
function integerOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value)) return undefined
  const number = Number(value)
  return Number.isSafeInteger(number) ? number : undefined
}

function bigIntegerOf(value: unknown): bigint | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined
  return typeof value === 'string' && /^\d{1,39}$/.test(value) ? BigInt(value) : undefined
}

/**
 * `JSON.parse`, except that integer literals longer than 15 digits become digit strings first: a rune amount
 * is a u128 and a double would round it. Strings are skipped over, so their contents are never touched.
 */
export function parseExactJson(text: string): unknown {
  let rewritten = ''
  let copied = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 0x22) {
      // Skip the string, escapes included.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++
      continue
    }
    if (code < 0x30 || code > 0x39) continue
    let end = i + 1
    while (end < text.length && isNumberCharacter(text.charCodeAt(end))) end++
    if (end - i > 15 && /^\d+$/.test(text.slice(i, end)) && text.charCodeAt(i - 1) !== 0x2d) {
      rewritten += `${text.slice(copied, i)}"${text.slice(i, end)}"`
      copied = end
    }
    i = end - 1
  }
  return JSON.parse(copied === 0 ? text : rewritten + text.slice(copied))
}

/** Digits, `.`, `e`, `E`, `+`, `-`: what a JSON number token is made of. */
const isNumberCharacter = (code: number) =>
  (code >= 0x30 && code <= 0x39) ||
  code === 0x2e ||
  code === 0x65 ||
  code === 0x45 ||
  code === 0x2b ||
  code === 0x2d

type Task = () => Promise<Task[] | undefined>

/**
 * Runs `tasks` with at most `size` in flight; a task may return more tasks (ord's per-outpoint fallback),
 * which join the queue. A failed task adds its reason to `failures` and the rest go on.
 */
function runQueue(tasks: Task[], size: number, failures: string[]): Promise<void> {
  const queue = [...tasks]
  let active = 0
  return new Promise((resolve) => {
    const pump = () => {
      while (active < size && queue.length > 0) {
        const task = queue.shift()!
        active++
        task()
          .then(
            (more) => {
              if (more) queue.push(...more)
            },
            (error: unknown) => {
              failures.push(error instanceof Error ? error.message : String(error))
            },
          )
          .finally(() => {
            active--
            pump()
          })
      }
      if (active === 0 && queue.length === 0) resolve()
    }
    pump()
  })
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
