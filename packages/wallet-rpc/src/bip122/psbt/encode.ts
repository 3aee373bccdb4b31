import type { Pause } from '../../core/yielding.js'
import { ByteWriter } from '../transaction/bytes.js'
import type { MapRange } from './layout.js'

/** A BIP-174 key-value pair (the key starts with its type byte). */
export type KeyValue = { key: Uint8Array; value: Uint8Array }

/**
 * The dapp's PSBT bytes with `additions` written into their input maps: every byte the dapp sent is copied
 * as it came, nothing is decoded and re-encoded (bitcoinjs' `toBuffer` re-encodes every value and copies
 * each parent transaction several times: one block of ~55 ms at 3000 inputs with parents). An input map we
 * add to is written sorted by key, as bitcoinjs-lib writes every map, so a PSBT bitcoinjs or Bitcoin Core
 * wrote (sorted maps, canonical lengths) comes back with the bytes `toBuffer` would give. `inputMaps` is
 * what `checkPsbtLayout` found in `bytes`; the additions' keys are new to their maps (bip174's
 * `updateInput` refused duplicates when they were added to the decoded PSBT).
 */
export async function addToInputMaps(
  bytes: Uint8Array,
  inputMaps: readonly MapRange[],
  additions: ReadonlyMap<number, readonly KeyValue[]>,
  pause: Pause,
): Promise<Uint8Array> {
  let extra = 0
  for (const entries of additions.values()) {
    for (const { key, value } of entries) extra += key.length + value.length + 18
  }
  const writer = new ByteWriter(bytes.length + extra)
  let copied = 0
  for (const [index, map] of inputMaps.entries()) {
    const added = additions.get(index)
    if (added === undefined || added.length === 0) continue
    await pause()
    writer.bytes(bytes.subarray(copied, map.start))
    const entries: { key: Uint8Array; write: () => void }[] = mapEntries(bytes, map).map((entry) => ({
      key: entry.key,
      write: () => writer.bytes(entry.raw),
    }))
    for (const { key, value } of added) {
      entries.push({ key, write: () => writer.varBytes(key).varBytes(value) })
    }
    entries.sort((a, b) => compareBytes(a.key, b.key))
    for (const entry of entries) entry.write()
    copied = map.end
  }
  writer.bytes(bytes.subarray(copied))
  return writer.finish()
}

/** The entries of a map `checkPsbtLayout` already checked: each key, and the entry's bytes as written. */
function mapEntries(bytes: Uint8Array, { start, end }: MapRange): { key: Uint8Array; raw: Uint8Array }[] {
  const entries: { key: Uint8Array; raw: Uint8Array }[] = []
  let offset = start
  while (offset < end) {
    const entryStart = offset
    const keyLength = compactSizeAt(bytes, offset)
    offset = keyLength.next
    const key = bytes.subarray(offset, offset + keyLength.value)
    offset += keyLength.value
    const valueLength = compactSizeAt(bytes, offset)
    offset = valueLength.next + valueLength.value
    entries.push({ key, raw: bytes.subarray(entryStart, offset) })
  }
  return entries
}

/** A CompactSize as BIP-174's layout reads it (checkPsbtLayout accepted it, canonical or not). */
function compactSizeAt(bytes: Uint8Array, offset: number): { value: number; next: number } {
  const first = bytes[offset]!
  if (first < 0xfd) return { value: first, next: offset + 1 }
  const width = first === 0xfd ? 2 : first === 0xfe ? 4 : 8
  let value = 0
  for (let i = width; i >= 1; i--) value = value * 256 + bytes[offset + i]!
  return { value, next: offset + 1 + width }
}

/** Byte order, a shorter key first when it is a prefix of the other (Buffer.compare, bitcoinjs' sort). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!
  }
  return a.length - b.length
}
