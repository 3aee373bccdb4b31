import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { bytesToHex } from '@noble/hashes/utils.js'
import { readBody } from '../http.js'
import type { OutputRecord, RegtestChain } from './chain.js'

/**
 * An ord-compatible index over a `RegtestChain` on 127.0.0.1: the JSON API wallets read (ordinals/ord 0.27
 * `docs/src/guides/api.md`, struct `src/api.rs`), the same shapes and the same quirks:
 * - JSON only when `Accept` is exactly `application/json` (anything else gets an HTML page);
 * - `GET /output/<txid>:<vout>`: `indexed` is false for an output whose transaction is unconfirmed (or that a
 *   test marked unindexed), and then `inscriptions: []`, `runes: {}` as ord answers; `runes` is null without
 *   the rune index, `sat_ranges` null without the sat index;
 * - `POST /outputs` answers 404 for the whole batch when one outpoint is unknown;
 * - `GET /inscription/<id>` (its `satpoint`), `GET /rune/<name>` (its `id`).
 *
 * The tests mark what outputs carry (`inscribe`, `addRunes`, `setSatRanges`). Inscriptions and sat ranges then
 * move as ord moves them when a confirmed transaction spends their output: first in, first out, what falls
 * past the last output lost to the fee (ord's null outpoint). Runes stay on the output the test marked.
 */

export type OrdRune = {
  /** Spaced name, e.g. `UNCOMMON•GOODS`. */
  name: string
  /** `BLOCK:TX`. */
  id: string
  amount: bigint
  divisibility?: number
  symbol?: string
}

export type OrdFault = { kind: 'http500' } | { kind: 'hang' }

export type OrdServerOptions = {
  port?: number
  /** `--index-runes`: without it `runes` is null. Default true. */
  indexRunes?: boolean
  /** `--index-sats`: without it `sat_ranges` is null. Default false. */
  indexSats?: boolean
}

export type OrdIndex = {
  url: string
  /** Puts a new inscription on the sat at `offset` of the output; returns its id (`<txid>i<n>`). */
  inscribe(outpoint: { txid: string; vout: number }, offset?: number): string
  addRunes(outpoint: { txid: string; vout: number }, rune: OrdRune): void
  /** The output's sats, `[start, end)` in order; they must add up to its value. */
  setSatRanges(outpoint: { txid: string; vout: number }, ranges: Array<[number, number]>): void
  /** The index answers `indexed: false` for it (as ord does for an output it has not reached). */
  markUnindexed(outpoint: { txid: string; vout: number }): void
  /** Where an inscription is now, as ord's satpoint `txid:vout:offset`. */
  satpoint(id: string): string
  /** Server switches; `jsonApi: false` answers 406 to JSON requests, like `ord server --disable-json-api`. */
  configure(options: { indexRunes?: boolean; indexSats?: boolean; jsonApi?: boolean }): void
  /** Makes the next request fail the given way. */
  injectFault(fault: OrdFault): void
  /** Every request so far: method, path, the Accept header and, for POST /outputs, how many outpoints. */
  requests(): Array<{ method: string; path: string; accept: string | undefined; outpoints?: number }>
  stop(): Promise<void>
}

const nullOutpoint = `${'0'.repeat(64)}:0`

export async function serveOrd(chain: RegtestChain, options: OrdServerOptions = {}): Promise<OrdIndex> {
  let indexRunes = options.indexRunes ?? true
  let indexSats = options.indexSats ?? false
  let jsonApi = true
  const faults: OrdFault[] = []
  const hanging = new Set<ServerResponse>()
  const log: Array<{ method: string; path: string; accept: string | undefined; outpoints?: number }> = []
  /** Inscription id → where the test put it (it moves from there as the chain spends it). */
  const inscriptions = new Map<string, { outpoint: string; offset: number; number: number }>()
  const runes = new Map<string, OrdRune[]>()
  const runeByName = new Map<string, OrdRune>()
  const ranges = new Map<string, Array<[number, number]>>()
  const unindexed = new Set<string>()

  const key = (outpoint: { txid: string; vout: number }) => `${outpoint.txid}:${outpoint.vout}`
  const output = (outpoint: string): OutputRecord | undefined => chain.outputs.get(outpoint)
  const confirmed = (txid: string) => chain.isConfirmed(txid)
  const isIndexed = (outpoint: string) => confirmed(outpoint.split(':')[0]!) && !unindexed.has(outpoint)

  /** Position of `outpoint`'s first sat in the transaction spending it, and that transaction's outputs. */
  function spentInto(outpoint: string): { txid: string; base: number; outputs: number[] } | undefined {
    const record = output(outpoint)
    if (record?.spentBy === undefined || !confirmed(record.spentBy)) return undefined
    const spender = chain.transactions.get(record.spentBy)!
    let base = 0
    for (const input of spender.parsed.inputs) {
      const spent = `${input.txid}:${input.vout}`
      if (spent === outpoint) break
      base += Number(chain.outputs.get(spent)!.value)
    }
    return { txid: spender.txid, base, outputs: spender.parsed.outputs.map((out) => Number(out.value)) }
  }

  /** Where the sat at `offset` of `outpoint` is now, following confirmed spends first in, first out. */
  function follow(outpoint: string, offset: number): { outpoint: string; offset: number } {
    let at = { outpoint, offset }
    for (;;) {
      const spend = spentInto(at.outpoint)
      if (!spend) return at
      let position = spend.base + at.offset
      const vout = spend.outputs.findIndex((value) => {
        if (position < value) return true
        position -= value
        return false
      })
      // Past the last output: the fee. ord hands such sats to the miner; here they rest on the null outpoint.
      if (vout === -1) return { outpoint: nullOutpoint, offset: position }
      at = { outpoint: `${spend.txid}:${vout}`, offset: position }
    }
  }

  /** The sat ranges of `outpoint`: set by the test, or carried over first in, first out from its inputs. */
  function satRangesOf(outpoint: string): Array<[number, number]> | undefined {
    const set = ranges.get(outpoint)
    if (set) return set
    const [txid, vout] = outpoint.split(':') as [string, string]
    const record = chain.transactions.get(txid)
    if (!record || record.spends.length === 0) return undefined
    const pool: Array<[number, number]> = []
    for (const spent of record.spends) {
      const parent = satRangesOf(spent)
      if (!parent) return undefined
      pool.push(...parent.map((range) => [...range] as [number, number]))
    }
    let skip = record.parsed.outputs.slice(0, Number(vout)).reduce((sum, out) => sum + Number(out.value), 0)
    let take = Number(record.parsed.outputs[Number(vout)]!.value)
    const taken: Array<[number, number]> = []
    for (const [start, end] of pool) {
      if (take === 0) break
      const size = end - start
      if (skip >= size) {
        skip -= size
        continue
      }
      const from = start + skip
      const to = Math.min(end, from + take)
      taken.push([from, to])
      take -= to - from
      skip = 0
    }
    return take === 0 ? taken : undefined
  }

  function outputJson(outpoint: string) {
    const record = output(outpoint)
    if (!record) throw new NotFound(`output ${outpoint} not found`)
    const indexed = isIndexed(outpoint)
    const here = [...inscriptions]
      .filter(([, mark]) => follow(mark.outpoint, mark.offset).outpoint === outpoint)
      .map(([id]) => id)
    const piles = Object.fromEntries(
      (runes.get(outpoint) ?? []).map((rune) => [
        rune.name,
        { amount: rune.amount, divisibility: rune.divisibility ?? 0, symbol: rune.symbol ?? null },
      ]),
    )
    return {
      address: chain.addressOf(record.script) ?? null,
      confirmations: confirmed(record.txid)
        ? chain.height - chain.transactions.get(record.txid)!.blockHeight! + 1
        : 0,
      indexed,
      inscriptions: indexed ? here : [],
      outpoint,
      runes: indexRunes ? (indexed ? piles : {}) : null,
      sat_ranges: indexSats ? (satRangesOf(outpoint) ?? null) : null,
      script_pubkey: bytesToHex(record.script),
      spent: record.spentBy !== undefined,
      transaction: record.txid,
      value: Number(record.value),
    }
  }

  function inscriptionJson(id: string) {
    const mark = inscriptions.get(id)
    if (!mark) throw new NotFound(`inscription ${id} not found`)
    const at = follow(mark.outpoint, mark.offset)
    const record = output(at.outpoint)
    const height = chain.transactions.get(id.slice(0, 64))?.blockHeight ?? 0
    return {
      address: record ? (chain.addressOf(record.script) ?? null) : null,
      charms: [],
      child_count: 0,
      children: [],
      content_length: 5,
      content_type: 'text/plain;charset=utf-8',
      effective_content_type: 'text/plain;charset=utf-8',
      fee: 0,
      height,
      id,
      metaprotocol: null,
      next: null,
      number: mark.number,
      parents: [],
      previous: null,
      properties: {},
      rune: null,
      sat: null,
      satpoint: `${at.outpoint}:${at.offset}`,
      timestamp: chain.blocks[height]?.time ?? 0,
      value: record ? Number(record.value) : null,
    }
  }

  function runeJson(name: string) {
    const rune = runeByName.get(name)
    if (!rune || !indexRunes) throw new NotFound(`rune ${name} not found`)
    const [block] = rune.id.split(':')
    return {
      entry: {
        block: Number(block),
        burned: 0,
        divisibility: rune.divisibility ?? 0,
        etching: '0'.repeat(64),
        mints: 0,
        number: [...runeByName.keys()].indexOf(name),
        premine: rune.amount,
        spaced_rune: rune.name,
        symbol: rune.symbol ?? null,
        terms: null,
        timestamp: 0,
        turbo: false,
      },
      id: rune.id,
      mintable: false,
      parent: null,
    }
  }

  const routes: Array<[RegExp, (match: string) => unknown]> = [
    [/^\/output\/([0-9a-f]{64}:\d+)$/, outputJson],
    [/^\/inscription\/([0-9a-f]{64}i\d+)$/, inscriptionJson],
    [/^\/rune\/(.+)$/, runeJson],
  ]

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname)
    const accept = request.headers.accept
    const body = request.method === 'POST' ? await readBody(request) : ''
    const entry: (typeof log)[number] = { method: request.method ?? 'GET', path, accept }
    log.push(entry)
    const fault = faults.shift()
    if (fault?.kind === 'http500') return send(response, 500, 'text/plain', 'Internal Server Error')
    if (fault?.kind === 'hang') {
      hanging.add(response)
      return
    }
    // ord's AcceptJson: the header must equal "application/json"; anything else is an HTML request.
    const json = accept === 'application/json'
    if (json && !jsonApi) return send(response, 406, 'text/plain', 'JSON API disabled')
    let result: unknown
    if (request.method === 'POST' && path === '/outputs') {
      // ord answers a non-JSON POST /outputs with a bare 404.
      if (!json) return send(response, 404, 'text/plain', '')
      let outpoints: unknown
      try {
        outpoints = JSON.parse(body)
      } catch {
        return send(response, 400, 'text/plain', 'Failed to parse the request body as JSON')
      }
      if (!Array.isArray(outpoints) || !outpoints.every((o) => typeof o === 'string'))
        return send(response, 422, 'text/plain', 'Failed to deserialize the JSON body')
      entry.outpoints = outpoints.length
      result = outpoints.map((outpoint) => outputJson(outpoint as string))
    } else {
      const route = request.method === 'GET' ? routes.find(([pattern]) => pattern.test(path)) : undefined
      if (!route) throw new NotFound('not found')
      result = route[1](route[0].exec(path)![1]!)
    }
    if (!json)
      return send(
        response,
        200,
        'text/html; charset=utf-8',
        `<!doctype html><title>ord</title><pre>${path}</pre>`,
      )
    send(response, 200, 'application/json', toJson(result))
  }

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (error instanceof NotFound) send(response, 404, 'text/plain', error.message)
      else send(response, 500, 'text/plain', error instanceof Error ? error.message : 'Internal Server Error')
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  const known = (outpoint: { txid: string; vout: number }) => {
    const name = key(outpoint)
    if (!chain.outputs.has(name)) throw new Error(`serveOrd: no output ${name} on the chain`)
    return name
  }

  return {
    url: `http://127.0.0.1:${port}`,
    inscribe(outpoint, offset = 0) {
      const name = known(outpoint)
      if (offset < 0 || offset >= Number(chain.outputs.get(name)!.value))
        throw new RangeError('offset outside the output')
      const id = `${outpoint.txid}i${[...inscriptions.keys()].filter((known) => known.startsWith(outpoint.txid)).length}`
      inscriptions.set(id, { outpoint: name, offset, number: inscriptions.size })
      return id
    },
    addRunes(outpoint, rune) {
      const name = known(outpoint)
      runes.set(name, [...(runes.get(name) ?? []), rune])
      runeByName.set(rune.name, rune)
    },
    setSatRanges(outpoint, satRanges) {
      const name = known(outpoint)
      const total = satRanges.reduce((sum, [start, end]) => sum + end - start, 0)
      if (total !== Number(chain.outputs.get(name)!.value))
        throw new RangeError('sat ranges must add up to the value')
      ranges.set(name, satRanges)
    },
    markUnindexed(outpoint) {
      unindexed.add(known(outpoint))
    },
    satpoint(id) {
      const mark = inscriptions.get(id)
      if (!mark) throw new Error(`serveOrd: no inscription ${id}`)
      const at = follow(mark.outpoint, mark.offset)
      return `${at.outpoint}:${at.offset}`
    },
    configure(settings) {
      indexRunes = settings.indexRunes ?? indexRunes
      indexSats = settings.indexSats ?? indexSats
      jsonApi = settings.jsonApi ?? jsonApi
    },
    injectFault(fault) {
      faults.push(fault)
    },
    requests: () => log.map((entry) => ({ ...entry })),
    stop: async () => {
      for (const response of hanging) response.destroy()
      hanging.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

class NotFound extends Error {}

/** JSON with bigints written as bare numbers, as serde writes a u128 (a rune amount can exceed 2^53). */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `\u0000big:${v}` : v)).replace(
    /"\\u0000big:(\d+)"/g,
    '$1',
  )
}

function send(response: ServerResponse, status: number, type: string, text: string): void {
  response.writeHead(status, { 'content-type': type }).end(text)
}
