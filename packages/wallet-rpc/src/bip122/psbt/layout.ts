import { InvalidParamsError } from '../../core/errors.js'
import type { Pause } from '../../core/yielding.js'
import { parseTransaction } from '../transaction/transaction.js'

/**
 * The BIP-174 layout rules bitcoinjs-lib's parser lets through, checked on the raw bytes before it runs
 * (Bitcoin Core refuses each of them too): nothing after the last output map ("extra data after PSBT"),
 * exactly one input map per unsigned-transaction input and one output map per output, no key twice in a
 * map, and each known key type with the key length BIP-174/BIP-371 gives it. Unknown key types pass
 * (BIP-174: they must be kept), as do proprietary ones (0xFC).
 */

/** Allowed key lengths (type byte included) per known key type; a function for the variable ones. */
type KeyRule = number | readonly number[] | ((length: number) => boolean)
const globalKeys: Record<number, KeyRule> = { 0: 1, 1: 79, 251: 1 }
const inputKeys: Record<number, KeyRule> = {
  0: 1, // NON_WITNESS_UTXO
  1: 1, // WITNESS_UTXO
  2: [34, 66], // PARTIAL_SIG: compressed or uncompressed public key
  3: 1, // SIGHASH_TYPE
  4: 1, // REDEEM_SCRIPT
  5: 1, // WITNESS_SCRIPT
  6: [34, 66], // BIP32_DERIVATION
  7: 1, // FINAL_SCRIPTSIG
  8: 1, // FINAL_SCRIPTWITNESS
  10: 21, // RIPEMD160 preimage
  11: 33, // SHA256 preimage
  12: 21, // HASH160 preimage
  13: 33, // HASH256 preimage
  19: 1, // TAP_KEY_SIG
  20: 65, // TAP_SCRIPT_SIG: x-only key ‖ leaf hash
  21: (length) => length >= 34 && (length - 34) % 32 === 0, // TAP_LEAF_SCRIPT: control block
  22: 33, // TAP_BIP32_DERIVATION
  23: 1, // TAP_INTERNAL_KEY
  24: 1, // TAP_MERKLE_ROOT
}
const outputKeys: Record<number, KeyRule> = {
  0: 1, // REDEEM_SCRIPT
  1: 1, // WITNESS_SCRIPT
  2: [34, 66], // BIP32_DERIVATION
  5: 1, // TAP_INTERNAL_KEY
  6: 1, // TAP_TREE
  7: 33, // TAP_BIP32_DERIVATION
}

const refuse = (reason: string) => new InvalidParamsError(reason, { path: 'psbt' })

class Cursor {
  offset: number
  constructor(
    readonly bytes: Uint8Array,
    offset: number,
  ) {
    this.offset = offset
  }

  compactSize(what: string): number {
    const first = this.take(1, what)[0]!
    if (first < 0xfd) return first
    const width = first === 0xfd ? 2 : first === 0xfe ? 4 : 8
    const raw = this.take(width, what)
    let value = 0
    for (let i = width - 1; i >= 0; i--) value = value * 256 + raw[i]!
    if (!Number.isSafeInteger(value)) throw refuse(`${what}: length too large`)
    return value
  }

  take(length: number, what: string): Uint8Array {
    if (this.offset + length > this.bytes.length) throw refuse(`${what}: the PSBT ends early`)
    const slice = this.bytes.subarray(this.offset, this.offset + length)
    this.offset += length
    return slice
  }
}

/** One key-value map: its entries, with duplicate keys and wrong key lengths refused. */
function readMap(cursor: Cursor, rules: Record<number, KeyRule>, where: string): Map<string, Uint8Array> {
  const entries = new Map<string, Uint8Array>()
  for (;;) {
    const keyLength = cursor.compactSize(`${where} key length`)
    if (keyLength === 0) return entries
    const key = cursor.take(keyLength, `${where} key`)
    const value = cursor.take(cursor.compactSize(`${where} value length`), `${where} value`)
    const type = key[0]!
    const hex = Array.from(key, (byte) => byte.toString(16).padStart(2, '0')).join('')
    if (entries.has(hex)) throw refuse(`${where}: duplicate key ${hex}`)
    const rule = rules[type]
    if (rule !== undefined) {
      const fits =
        typeof rule === 'number'
          ? keyLength === rule
          : Array.isArray(rule)
            ? rule.includes(keyLength)
            : (rule as (n: number) => boolean)(keyLength)
      if (!fits)
        throw refuse(
          `${where}: key type 0x${type.toString(16).padStart(2, '0')} with a ${keyLength}-byte key`,
        )
    }
    entries.set(hex, value)
  }
}

/** Where an input's key-value map lies in the PSBT: from its first key to its 0x00 terminator (excluded). */
export type MapRange = { start: number; end: number }

/** Where the maps lie: the global map, each input map, and where the output maps start. */
export type PsbtLayout = { globalMap: MapRange; inputMaps: MapRange[]; outputMapsStart: number }

/**
 * Checks the layout of a PSBT whose 5 magic bytes are already verified, pausing between maps; gives where
 * the maps lie (decode.ts parses the input maps in slices, encode.ts writes our entries into them).
 */
export async function checkPsbtLayout(
  bytes: Uint8Array,
  pause: Pause = () => undefined,
): Promise<PsbtLayout> {
  const cursor = new Cursor(bytes, 5)
  const global = readMap(cursor, globalKeys, 'global map')
  const globalMap = { start: 5, end: cursor.offset - 1 }
  const unsigned = global.get('00')
  if (unsigned === undefined) throw refuse('global map: no unsigned transaction')
  let counts: { inputs: number; outputs: number }
  try {
    const tx = parseTransaction(unsigned)
    counts = { inputs: tx.inputs.length, outputs: tx.outputs.length }
  } catch (error) {
    throw refuse(`global map: the unsigned transaction does not parse (${(error as Error).message})`)
  }
  const inputMaps: MapRange[] = []
  for (let i = 0; i < counts.inputs; i++) {
    await pause()
    const start = cursor.offset
    readMap(cursor, inputKeys, `input ${i}`)
    inputMaps.push({ start, end: cursor.offset - 1 })
  }
  const outputMapsStart = cursor.offset
  for (let i = 0; i < counts.outputs; i++) {
    await pause()
    readMap(cursor, outputKeys, `output ${i}`)
  }
  if (cursor.offset !== bytes.length) {
    throw refuse(`${bytes.length - cursor.offset} bytes of extra data after the PSBT`)
  }
  return { globalMap, inputMaps, outputMapsStart }
}
