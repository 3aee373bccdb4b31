import { ripemd160 } from '@noble/hashes/legacy.js'
import { sha256 } from '@noble/hashes/sha2.js'
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
export const dustLimits: Readonly<Record<ScriptKind, bigint>> = {
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

export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data))
}

/** `OP_DUP OP_HASH160 <20> OP_EQUALVERIFY OP_CHECKSIG`: P2PKH, and the BIP-143 scriptCode of P2WPKH. */
export function p2pkhScript(pubkeyHash: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), pubkeyHash, Uint8Array.of(0x88, 0xac))
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
 * DER-encodes a 64-byte compact ECDSA signature (r‖s, low-S) as Bitcoin scripts carry it, strict BIP-66.
 */
export function encodeDerSignature(compact: Uint8Array): Uint8Array {
  if (compact.length !== 64) throw new RangeError('compact signature must be 64 bytes')
  const integer = (bytes: Uint8Array) => {
    let start = 0
    while (start < 31 && bytes[start] === 0 && bytes[start + 1]! < 0x80) start++
    const trimmed = bytes.subarray(start)
    return trimmed[0]! >= 0x80 ? concatBytes(Uint8Array.of(0), trimmed) : trimmed
  }
  const r = integer(compact.subarray(0, 32))
  const s = integer(compact.subarray(32, 64))
  return concatBytes(
    Uint8Array.of(0x30, 4 + r.length + s.length, 0x02, r.length),
    r,
    Uint8Array.of(0x02, s.length),
    s,
  )
}
