import { base58 } from '@scure/base'
import { InvalidParamsError } from '../core/errors.js'

// Transactions name the same keys again and again (the wallet's own accounts, the System and Token programs),
// and base58 is quadratic: addresses are remembered by content, up to a bound.
const addressCache = new Map<string, string>()
const addressCacheLimit = 4096

/**
 * A 32-byte key as a 16-character string (two bytes per UTF-16 unit), equal exactly when the bytes are: the
 * cache's and the duplicate check's key. A fixed-arity call, many times faster than spreading or `apply`.
 */
export function keyText(key: Uint8Array): string {
  return String.fromCharCode(
    key[0]! | (key[1]! << 8),
    key[2]! | (key[3]! << 8),
    key[4]! | (key[5]! << 8),
    key[6]! | (key[7]! << 8),
    key[8]! | (key[9]! << 8),
    key[10]! | (key[11]! << 8),
    key[12]! | (key[13]! << 8),
    key[14]! | (key[15]! << 8),
    key[16]! | (key[17]! << 8),
    key[18]! | (key[19]! << 8),
    key[20]! | (key[21]! << 8),
    key[22]! | (key[23]! << 8),
    key[24]! | (key[25]! << 8),
    key[26]! | (key[27]! << 8),
    key[28]! | (key[29]! << 8),
    key[30]! | (key[31]! << 8),
  )
}

/** A 32-byte Solana public key (an account address) as base58, the form dapps and explorers show. */
export function addressOf(key: Uint8Array): string {
  return key.length === 32 ? addressOfKey(key, keyText(key)) : encodeBase58(key)
}

/** `addressOf` a 32-byte key whose `keyText` the caller already has. */
export function addressOfKey(key: Uint8Array, content: string): string {
  let address = addressCache.get(content)
  if (address === undefined) {
    address = encodeBase58(key)
    if (addressCache.size >= addressCacheLimit) addressCache.clear()
    addressCache.set(content, address)
  }
  return address
}

/** A base58 public key: exactly 32 bytes, or -32602 at `path`. */
export function parseAddress(text: string, path: string): Uint8Array {
  const bytes = decodeBase58(text, path)
  if (bytes.length !== 32) throw new InvalidParamsError('must be a 32-byte base58 public key', { path })
  return bytes
}

export function decodeBase58(text: string, path: string): Uint8Array {
  try {
    return base58.decode(text)
  } catch {
    throw new InvalidParamsError('must be base58', { path })
  }
}

/** Strict, padded RFC 4648 base64 (what web3.js and @solana/kit produce). */
export function decodeBase64(text: string, path: string): Uint8Array {
  const bytes = base64Decode(text)
  if (bytes === undefined) throw new InvalidParamsError('must be base64', { path })
  return bytes
}

// The codecs below replace @scure/base's on the signing path, where they cost more than the signature itself:
// its generic radix conversion took ~20 µs per base64 transaction and ~10 µs per base58 signature against a
// ~22 µs Ed25519 sign (bench/solana.bench.ts). Each writes character codes into a byte array and makes the
// string in one call. Same results, proven against @scure/base by property tests
// (test/solana/encoding.test.ts); @scure/base still decodes base58, which is cheap and not quadratic here.
const alphabet58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const codes58 = Uint8Array.from(alphabet58, (char) => char.charCodeAt(0))
/** 58^4: four base58 digits per limb; a limb times 2^24 plus a carry stays below 2^48, so three bytes per step. */
const limbBase = 11_316_496
const limbInverse = 1 / limbBase

// Scratch space reused by every call (each runs to completion synchronously): no allocation per call but
// the string. Grown for a longer input, never shrunk.
let limbs = new Float64Array(64)
let digits = new Uint8Array(320)

/** Base58 (Bitcoin alphabet), as @scure/base's `base58.encode`. */
export function encodeBase58(bytes: Uint8Array): string {
  const length = bytes.length
  // 8 bits per byte against log2(58^4) ≈ 23.4 bits per limb; four digits per limb, one per leading zero.
  const maxLimbs = Math.ceil(length / 2) + 1
  if (limbs.length < maxLimbs) limbs = new Float64Array(maxLimbs)
  if (digits.length < length + 4 * maxLimbs) digits = new Uint8Array(length + 4 * maxLimbs)
  let zeros = 0
  while (zeros < length && bytes[zeros] === 0) zeros++
  // Little-endian limbs of 58^4 each; the bytes enter big end first, three at a time.
  let used = 0
  let index = zeros
  const lead = (length - zeros) % 3
  if (lead === 1) limbs[used++] = bytes[index++]!
  if (lead === 2) {
    limbs[used++] = (bytes[index]! << 8) | bytes[index + 1]!
    index += 2
  }
  for (; index < length; index += 3) {
    let carry = (bytes[index]! << 16) | (bytes[index + 1]! << 8) | bytes[index + 2]!
    for (let j = 0; j < used; j++) {
      const value = limbs[j]! * 16_777_216 + carry
      // Division by multiplication with the inverse, then exact correction: the remainder is computed
      // exactly (every term is below 2^53), so a quotient one off shows as a remainder out of range.
      let quotient = Math.floor(value * limbInverse)
      let remainder = value - quotient * limbBase
      if (remainder < 0) {
        quotient--
        remainder += limbBase
      } else if (remainder >= limbBase) {
        quotient++
        remainder -= limbBase
      }
      limbs[j] = remainder
      carry = quotient
    }
    while (carry > 0) {
      const next = Math.floor(carry / limbBase)
      limbs[used++] = carry - next * limbBase
      carry = next
    }
  }
  let position = zeros + used * 4
  const end = position
  for (let j = 0; j < used; j++) {
    let limb = limbs[j]!
    const last = j === used - 1
    // Every limb but the most significant one is exactly four digits, leading zeros included.
    for (let k = 0; k < 4 && !(last && limb === 0); k++) {
      const quotient = Math.floor(limb / 58)
      digits[--position] = codes58[limb - quotient * 58]!
      limb = quotient
    }
  }
  for (let k = 0; k < zeros; k++) digits[--position] = 49 // '1'
  return fromCharCodes(digits, position, end)
}

/** Longest argument list handed to `String.fromCharCode` at once (engines cap the argument count). */
const charChunk = 8192

// Where the platform has one, a decoder turns the codes into the string natively: ~4x faster than
// `String.fromCharCode.apply` for a signature's 88 characters. Every code here is ASCII, which UTF-8 maps to
// itself, so any decoder does (React Native's polyfills know no other label). Without one: the fallback below.
let ascii: InstanceType<typeof TextDecoder> | null | undefined

/** The string whose UTF-16 units are `codes[start..end)` (all ASCII here). */
function fromCharCodes(codes: Uint8Array, start = 0, end = codes.length): string {
  if (ascii === undefined) ascii = typeof TextDecoder === 'function' ? new TextDecoder('utf-8') : null
  if (ascii !== null) return ascii.decode(codes.subarray(start, end))
  return fromCharCodesPortable(codes, start, end)
}

/** `fromCharCodes` without a TextDecoder. Exported for its tests. */
export function fromCharCodesPortable(codes: Uint8Array, start = 0, end = codes.length): string {
  if (end - start <= charChunk) {
    return String.fromCharCode.apply(null, codes.subarray(start, end) as unknown as number[])
  }
  let text = ''
  for (let from = start; from < end; from += charChunk) {
    const to = Math.min(from + charChunk, end)
    text += String.fromCharCode.apply(null, codes.subarray(from, to) as unknown as number[])
  }
  return text
}

// A typed array over 64 bytes gets its own off-heap backing store in V8: ~250-400 ns to allocate and more to
// collect, against ~25 ns for a view. Bytes that outlive a call (a decoded transaction, which its signatures,
// keys and message view) are carved out of shared 16 KiB chunks instead, as Node's Buffer pool does; every
// byte of a chunk is request data a dapp sent, never a secret. Scratch space used only within one
// synchronous call is reused.
const chunkSize = 16 * 1024
let chunk = new Uint8Array(0)
let chunkUsed = 0

/** `length` zeroed bytes of their own, usually a view into a shared chunk (`.buffer` is the chunk). */
function allocateBytes(length: number): Uint8Array {
  if (length > chunkSize / 4) return new Uint8Array(length)
  if (chunkUsed + length > chunk.length) {
    chunk = new Uint8Array(chunkSize)
    chunkUsed = 0
  }
  const bytes = chunk.subarray(chunkUsed, chunkUsed + length)
  // Eight-byte steps keep every view aligned.
  chunkUsed += (length + 7) & ~7
  return bytes
}

let scratch64 = new Uint8Array(256)

const alphabet64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const codes64 = Uint8Array.from(alphabet64, (char) => char.charCodeAt(0))
/** Character code → 6-bit value; 255 for anything outside the alphabet. */
const values64 = new Uint8Array(256).fill(255)
for (let i = 0; i < 64; i++) values64[codes64[i]!] = i

/** Padded RFC 4648 base64. */
export function encodeBase64(bytes: Uint8Array): string {
  const length = bytes.length
  const size = Math.ceil(length / 3) * 4
  if (scratch64.length < size) scratch64 = new Uint8Array(size)
  const out = scratch64
  let o = 0
  let i = 0
  for (; i + 2 < length; i += 3, o += 4) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out[o] = codes64[n >> 18]!
    out[o + 1] = codes64[(n >> 12) & 63]!
    out[o + 2] = codes64[(n >> 6) & 63]!
    out[o + 3] = codes64[n & 63]!
  }
  if (i < length) {
    const n = (bytes[i]! << 16) | (i + 1 < length ? bytes[i + 1]! << 8 : 0)
    out[o] = codes64[n >> 18]!
    out[o + 1] = codes64[(n >> 12) & 63]!
    out[o + 2] = i + 1 < length ? codes64[(n >> 6) & 63]! : 61 // '='
    out[o + 3] = 61
  }
  return fromCharCodes(out, 0, size)
}

/**
 * Padded RFC 4648 base64, strictly: a multiple of four characters, `=` only as the last one or two, and the
 * bits a padded quantum leaves over must be zero (one encoding per byte string). Undefined otherwise.
 */
export function base64Decode(text: string): Uint8Array | undefined {
  const length = text.length
  if (length % 4 !== 0) return undefined
  if (length === 0) return new Uint8Array(0)
  const padding = text.charCodeAt(length - 1) !== 61 ? 0 : text.charCodeAt(length - 2) !== 61 ? 1 : 2
  const out = allocateBytes((length / 4) * 3 - padding)
  // Whole quanta first; a padded last quantum after the loop.
  const whole = padding === 0 ? length : length - 4
  let o = 0
  for (let i = 0; i < whole; i += 4, o += 3) {
    const a = text.charCodeAt(i)
    const b = text.charCodeAt(i + 1)
    const c = text.charCodeAt(i + 2)
    const d = text.charCodeAt(i + 3)
    if ((a | b | c | d) > 255) return undefined
    const va = values64[a]!
    const vb = values64[b]!
    const vc = values64[c]!
    const vd = values64[d]!
    if ((va | vb | vc | vd) > 63) return undefined
    const n = (va << 18) | (vb << 12) | (vc << 6) | vd
    out[o] = n >> 16
    out[o + 1] = (n >> 8) & 255
    out[o + 2] = n & 255
  }
  if (padding > 0) {
    const a = text.charCodeAt(whole)
    const b = text.charCodeAt(whole + 1)
    const c = padding === 2 ? 65 : text.charCodeAt(whole + 2) // 'A': zero bits
    if ((a | b | c) > 255) return undefined
    const va = values64[a]!
    const vb = values64[b]!
    const vc = values64[c]!
    if ((va | vb | vc) > 63) return undefined
    // Canonical only: the bits the padding leaves over must be zero.
    if (padding === 2 ? (vb & 15) !== 0 : (vc & 3) !== 0) return undefined
    const n = (va << 18) | (vb << 12) | (vc << 6)
    out[o] = n >> 16
    if (padding === 1) out[o + 1] = (n >> 8) & 255
  }
  return out
}

/**
 * A cursor over wire bytes that fails with -32602 and a field path instead of reading past the end. Every
 * read names the field it reads, so the error points at the exact place a hostile input breaks. A path is
 * `field`, then optionally `.index`, `.sub` and `.subIndex` (`message.instructions.0.accounts.2`): joined
 * only when a read fails, so a well-formed transaction builds no path strings.
 */
export class WireReader {
  offset = 0
  constructor(
    readonly bytes: Uint8Array,
    /** Prefix of every error path, e.g. `transaction` or `transactions.3`. */
    readonly root: string,
  ) {}

  path(field: string, index?: number, sub?: string, subIndex?: number): string {
    let path = field === '' ? this.root : `${this.root}.${field}`
    if (index !== undefined) path += `.${index}`
    if (sub !== undefined) path += `.${sub}`
    if (subIndex !== undefined) path += `.${subIndex}`
    return path
  }

  fail(reason: string, field: string, index?: number, sub?: string, subIndex?: number): never {
    throw new InvalidParamsError(reason, { path: this.path(field, index, sub, subIndex) })
  }

  u8(field: string, index?: number, sub?: string, subIndex?: number): number {
    const value = this.bytes[this.offset]
    if (value === undefined) this.fail('truncated', field, index, sub, subIndex)
    this.offset += 1
    return value
  }

  take(length: number, field: string, index?: number, sub?: string): Uint8Array {
    if (this.offset + length > this.bytes.length) this.fail('truncated', field, index, sub)
    const slice = this.bytes.subarray(this.offset, this.offset + length)
    this.offset += length
    return slice
  }

  /**
   * Solana's compact-u16 ("shortvec"): 1 to 3 bytes, 7 bits each, little end first. Refuses the forms the
   * runtime refuses: a value above 0xffff, a fourth byte, and non-minimal encodings (a trailing zero byte),
   * which would let two different byte strings decode to the same message.
   */
  shortVec(field: string, index?: number, sub?: string): number {
    let value = 0
    for (let position = 0; position < 3; position++) {
      const byte = this.u8(field, index, sub)
      value |= (byte & 0x7f) << (7 * position)
      if ((byte & 0x80) === 0) {
        if (byte === 0 && position > 0) this.fail('non-minimal compact-u16 length', field, index, sub)
        if (value > 0xffff) this.fail('compact-u16 length above 65535', field, index, sub)
        return value
      }
    }
    this.fail('compact-u16 length longer than 3 bytes', field, index, sub)
  }

  get remaining(): number {
    return this.bytes.length - this.offset
  }
}

/** Solana's compact-u16 encoding of `value` (0..65535). */
export function encodeShortVec(value: number): Uint8Array {
  // Nearly every count is below 128: one byte, no intermediate array.
  if (value < 0x80) return Uint8Array.of(value)
  const out: number[] = []
  let rest = value
  for (;;) {
    const low = rest & 0x7f
    rest >>= 7
    if (rest === 0) {
      out.push(low)
      return Uint8Array.from(out)
    }
    out.push(low | 0x80)
  }
}

/** An unsigned 64-bit little-endian integer (token amounts, lamports) at `offset`; `data` must hold 8 bytes there. */
export function readU64Le(data: Uint8Array, offset: number): bigint {
  let value = 0n
  for (let index = 7; index >= 0; index--) value = (value << 8n) | BigInt(data[offset + index]!)
  return value
}
