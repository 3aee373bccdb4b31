// BIP-174 key-value maps, parsed raw so that "nothing else changed" can be checked byte for byte.
import { base64, hex } from '@scure/base'
import {
  decodeWitness,
  parseTransaction,
  type RawTransaction,
  Reader,
  type TxOutput,
  txidOf,
} from '../../checks/bitcoin.js'
import { fail } from '../result.js'

/** One PSBT map: hex key (type byte included) → value, in file order. */
export type PsbtMap = Map<string, Uint8Array>
export type ParsedPsbt = { global: PsbtMap; inputs: PsbtMap[]; outputs: PsbtMap[]; tx: RawTransaction }

export const InputKey = {
  nonWitnessUtxo: 0x00,
  witnessUtxo: 0x01,
  partialSig: 0x02,
  sighashType: 0x03,
  redeemScript: 0x04,
  witnessScript: 0x05,
  bip32Derivation: 0x06,
  finalScriptSig: 0x07,
  finalScriptWitness: 0x08,
  tapKeySig: 0x13,
  tapScriptSig: 0x14,
  tapLeafScript: 0x15,
  tapBip32Derivation: 0x16,
  tapInternalKey: 0x17,
  tapMerkleRoot: 0x18,
} as const

const maxPsbtBytes = 8_000_000

export function decodePsbtText(text: unknown, what: string): Uint8Array {
  if (typeof text !== 'string' || text.length === 0) return fail(`${what} is not a base64 string`)
  if (text.length > (maxPsbtBytes * 4) / 3 + 4) return fail(`${what} is too large`)
  try {
    return base64.decode(text)
  } catch {
    return fail(`${what} is not valid base64`)
  }
}

export function parsePsbt(bytes: Uint8Array, what: string): ParsedPsbt {
  if (hex.encode(bytes.slice(0, 5)) !== '70736274ff') fail(`${what} has no PSBT magic`)
  const reader = new Reader(bytes)
  reader.take(5)
  const global = readMap(reader, what)
  const unsigned = global.get('00')
  if (unsigned === undefined) fail(`${what} has no unsigned transaction (PSBT v2 is not supported)`)
  const tx = parseTransaction(unsigned)
  const inputs = tx.inputs.map(() => readMap(reader, what))
  const outputs = tx.outputs.map(() => readMap(reader, what))
  if (!reader.done) fail(`${what} has trailing bytes`)
  return { global, inputs, outputs, tx }
}

function readMap(reader: Reader, what: string): PsbtMap {
  const map: PsbtMap = new Map()
  for (;;) {
    const keyLength = reader.compactSize()
    if (keyLength === 0) return map
    const key = hex.encode(reader.take(keyLength))
    if (map.has(key)) fail(`${what} repeats key ${key}`)
    map.set(key, reader.varBytes())
  }
}

export function sameMap(a: PsbtMap, b: PsbtMap): boolean {
  if (a.size !== b.size) return false
  for (const [key, value] of a) {
    const other = b.get(key)
    if (other === undefined || hex.encode(other) !== hex.encode(value)) return false
  }
  return true
}

/** Entries of one key type: [key data without the type byte, value]. */
export function entriesOfType(map: PsbtMap, type: number): [Uint8Array, Uint8Array][] {
  const prefix = type.toString(16).padStart(2, '0')
  const out: [Uint8Array, Uint8Array][] = []
  for (const [key, value] of map) if (key.slice(0, 2) === prefix) out.push([hex.decode(key.slice(2)), value])
  return out
}

export function fieldOf(map: PsbtMap, type: number): Uint8Array | undefined {
  return map.get(type.toString(16).padStart(2, '0'))
}

/** The previous output an input spends, from its witness UTXO or its full previous transaction. */
export function prevoutOf(psbt: ParsedPsbt, index: number): TxOutput | undefined {
  const map = psbt.inputs[index]!
  const witnessUtxo = fieldOf(map, InputKey.witnessUtxo)
  if (witnessUtxo !== undefined) {
    const reader = new Reader(witnessUtxo)
    const out = { amount: reader.uint(8), script: reader.varBytes() }
    if (!reader.done) fail(`input ${index}: malformed witness UTXO`)
    return out
  }
  const previous = fieldOf(map, InputKey.nonWitnessUtxo)
  if (previous === undefined) return undefined
  const parent = parseTransaction(previous)
  const spent = hex.encode(psbt.tx.inputs[index]!.txid.slice().reverse())
  if (txidOf(parent) !== spent) fail(`input ${index}: the previous transaction is not the one it spends`)
  return parent.outputs[psbt.tx.inputs[index]!.vout]
}

export function finalWitnessOf(map: PsbtMap): Uint8Array[] | undefined {
  const value = fieldOf(map, InputKey.finalScriptWitness)
  return value === undefined ? undefined : decodeWitness(value)
}
