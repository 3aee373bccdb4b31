import { concatBytes } from './bytes.js'

/** Output script kinds a wallet distinguishes, by exact template. */
export type ScriptKind = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'op_return' | 'unknown'

export function scriptKind(script: Uint8Array): ScriptKind {
  const n = script.length
  if (
    n === 25 &&
    script[0] === 0x76 &&
    script[1] === 0xa9 &&
    script[2] === 0x14 &&
    script[23] === 0x88 &&
    script[24] === 0xac
  )
    return 'p2pkh'
  if (n === 23 && script[0] === 0xa9 && script[1] === 0x14 && script[22] === 0x87) return 'p2sh'
  if (n === 22 && script[0] === 0x00 && script[1] === 0x14) return 'p2wpkh'
  if (n === 34 && script[0] === 0x00 && script[1] === 0x20) return 'p2wsh'
  if (n === 34 && script[0] === 0x51 && script[1] === 0x20) return 'p2tr'
  if (n >= 1 && script[0] === 0x6a) return 'op_return'
  return 'unknown'
}

/**
 * Bitcoin Core's dust limits at its default 3 sat/vB dust relay fee: (output size + size of the input that
 * would spend it) × 3. An output below its limit is not relayed.
 */
const dustLimits: Readonly<Record<ScriptKind, bigint>> = {
  p2pkh: 546n,
  p2sh: 540n,
  p2wpkh: 294n,
  p2wsh: 330n,
  p2tr: 330n,
  op_return: 0n,
  unknown: 546n,
}

export function dustLimit(script: Uint8Array): bigint {
  return dustLimits[scriptKind(script)]
}

/** One minimal data push (sizes up to 520 bytes, all a wallet needs). */
export function pushData(data: Uint8Array): Uint8Array {
  if (data.length === 0) return Uint8Array.of(0x00)
  if (data.length < 0x4c) return concatBytes(Uint8Array.of(data.length), data)
  if (data.length <= 0xff) return concatBytes(Uint8Array.of(0x4c, data.length), data)
  if (data.length <= 520) return concatBytes(Uint8Array.of(0x4d, data.length & 0xff, data.length >> 8), data)
  throw new RangeError('push larger than 520 bytes')
}

/** `OP_RETURN <data>`, the memo output. */
export function opReturnScript(data: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(0x6a), pushData(data))
}

/**
 * DER-encodes a 64-byte compact ECDSA signature (r‖s, low-S) as Bitcoin scripts carry it, strict BIP-66,
 * with the hash type byte appended when given. One allocation: this runs once per signed input.
 */
export function encodeDerSignature(compact: Uint8Array, hashType?: number): Uint8Array {
  if (compact.length !== 64) throw new RangeError('compact signature must be 64 bytes')
  let rStart = 0
  while (rStart < 31 && compact[rStart] === 0 && compact[rStart + 1]! < 0x80) rStart++
  let sStart = 32
  while (sStart < 63 && compact[sStart] === 0 && compact[sStart + 1]! < 0x80) sStart++
  const rPad = compact[rStart]! >= 0x80 ? 1 : 0
  const sPad = compact[sStart]! >= 0x80 ? 1 : 0
  const rLength = 32 - rStart + rPad
  const sLength = 64 - sStart + sPad
  const out = new Uint8Array(6 + rLength + sLength + (hashType === undefined ? 0 : 1))
  out[0] = 0x30
  out[1] = 4 + rLength + sLength
  out[2] = 0x02
  out[3] = rLength
  out.set(compact.subarray(rStart, 32), 4 + rPad)
  const s = 4 + rLength
  out[s] = 0x02
  out[s + 1] = sLength
  out.set(compact.subarray(sStart, 64), s + 2 + sPad)
  if (hashType !== undefined) out[out.length - 1] = hashType
  return out
}
