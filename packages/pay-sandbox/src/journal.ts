import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import type { JournalRecord, RestoredState } from './model.js'

/**
 * The sandbox's durable state (`--data DIR`): an append-only journal, `DIR/journal.jsonl`, one record per line,
 * each line `<crc32 hex> <json>`, written with one `write` and an `fsync` before the change is acted on (before a
 * reply goes out, before an event is queued for delivery). A record is the whole new value of one entity (a
 * payment, a merchant, a delivery …): replaying the file keeps the last value per key, so a replay never
 * re-executes logic and cannot change a payment's state twice.
 *
 * Why a journal rather than an embedded database: Node 20 has no built-in SQLite (`node:sqlite` arrives in 22),
 * a native module would be the package's only compiled dependency, and the access pattern is exactly what a
 * journal does well (small sequential appends, a full read at start). Crash safety: `kill -9` or power loss can
 * only tear the last line, which fails its checksum and is dropped (it was never acknowledged, since the fsync
 * did not return); a bad line anywhere else is corruption, reported, never skipped. At every start the live
 * records are rewritten to a fresh file (written, fsynced, renamed over the old one), so the file stays bounded.
 */

const fileName = 'journal.jsonl'

export class Journal {
  private constructor(
    private fd: number,
    readonly path: string,
  ) {}

  /** Reads `dir`'s journal (creating `dir` if needed), compacts it, and opens it for appending. */
  static open(dir: string): { journal: Journal; restored: RestoredState } {
    // It holds the API key and the webhook secrets: readable by this user only.
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    const path = join(dir, fileName)
    const restored = existsSync(path) ? load(readFileSync(path, 'utf8'), path) : emptyState()
    const temporary = `${path}.tmp`
    const fd = openSync(temporary, 'w', 0o600)
    const lines = liveRecords(restored).map(encode)
    if (lines.length > 0) writeSync(fd, lines.join(''))
    fsyncSync(fd)
    closeSync(fd)
    renameSync(temporary, path)
    syncDirectory(dir)
    return { journal: new Journal(openSync(path, 'a'), path), restored }
  }

  /** Appends the records as one write and waits for the disk (fsync). */
  append(...records: JournalRecord[]): void {
    if (records.length === 0 || this.fd < 0) return
    writeSync(this.fd, records.map(encode).join(''))
    fsyncSync(this.fd)
  }

  close(): void {
    if (this.fd < 0) return
    closeSync(this.fd)
    this.fd = -1
  }
}

function emptyState(): RestoredState {
  return {
    merchants: new Map(),
    payments: new Map(),
    events: new Map(),
    idempotency: new Map(),
    deliveries: new Map(),
    recordCount: 0,
    tornTail: false,
  }
}

function load(text: string, path: string): RestoredState {
  const state = emptyState()
  const lines = text.split('\n')
  // Everything after the last newline is a write that never completed.
  const tail = lines.pop() ?? ''
  state.tornTail = tail.length > 0
  for (const [index, line] of lines.entries()) {
    const record = decode(line)
    if (record === undefined) {
      if (index === lines.length - 1) {
        state.tornTail = true
        break
      }
      throw new Error(`${path}: line ${index + 1} is corrupt (checksum or JSON); refusing to guess`)
    }
    state.recordCount++
    apply(state, record)
  }
  return state
}

function apply(state: RestoredState, record: JournalRecord): void {
  switch (record.k) {
    case 'identity':
      state.identity = record.v
      break
    case 'merchant':
      state.merchants.set(record.v.id, record.v)
      break
    case 'payment':
      state.payments.set(record.v.id, record.v)
      break
    case 'event':
      state.events.set(record.v.id, record.v)
      break
    case 'idempotency':
      state.idempotency.set(record.id, record.v)
      break
    case 'webhooks':
      state.webhooks = record.v
      break
    case 'delivery':
      state.deliveries.set(record.v.id, record.v)
      break
  }
}

function liveRecords(state: RestoredState): JournalRecord[] {
  const records: JournalRecord[] = []
  if (state.identity !== undefined) records.push({ k: 'identity', v: state.identity })
  for (const v of state.merchants.values()) records.push({ k: 'merchant', v })
  for (const v of state.payments.values()) records.push({ k: 'payment', v })
  for (const v of state.events.values()) records.push({ k: 'event', v })
  for (const [id, v] of state.idempotency) records.push({ k: 'idempotency', id, v })
  if (state.webhooks !== undefined) records.push({ k: 'webhooks', v: state.webhooks })
  for (const v of state.deliveries.values()) records.push({ k: 'delivery', v })
  return records
}

/** JSON with the non-JSON types the state holds: bigint (token values), Map (a payment's routes), bytes (Solana). */
function encode(record: JournalRecord): string {
  const json = JSON.stringify(record, (_key, value: unknown) => {
    if (typeof value === 'bigint') return { $bigint: value.toString() }
    if (value instanceof Map) return { $map: [...value.entries()] }
    if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') }
    // A Buffer reaches the replacer already turned into { type: 'Buffer', data } by its toJSON.
    const buffer = value as { type?: unknown; data?: unknown }
    if (buffer?.type === 'Buffer' && Array.isArray(buffer.data)) {
      return { $bytes: Buffer.from(buffer.data as number[]).toString('base64') }
    }
    return value
  })
  return `${checksum(json)} ${json}\n`
}

function decode(line: string): JournalRecord | undefined {
  const space = line.indexOf(' ')
  if (space !== 8) return undefined
  const json = line.slice(space + 1)
  if (checksum(json) !== line.slice(0, space)) return undefined
  try {
    return JSON.parse(json, (_key, value: unknown) => {
      if (typeof value === 'object' && value !== null) {
        const tagged = value as { $bigint?: unknown; $map?: unknown; $bytes?: unknown }
        if (typeof tagged.$bigint === 'string') return BigInt(tagged.$bigint)
        if (typeof tagged.$bytes === 'string') return new Uint8Array(Buffer.from(tagged.$bytes, 'base64'))
        if (Array.isArray(tagged.$map)) return new Map(tagged.$map as Array<[unknown, unknown]>)
      }
      return value
    }) as JournalRecord
  } catch {
    return undefined
  }
}

function checksum(text: string): string {
  return crc32(text).toString(16).padStart(8, '0')
}

/** The rename is durable only once the directory entry is on disk. */
function syncDirectory(dir: string): void {
  let fd: number | undefined
  try {
    fd = openSync(dir, 'r')
    fsyncSync(fd)
  } catch {
    // Some platforms cannot open or fsync a directory; the file itself was fsynced.
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}
