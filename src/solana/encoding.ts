import { base58 } from '@scure/base'
import { InvalidParamsError } from '../core/errors.js'

// Transactions name the same keys again and again (the wallet's own accounts, the System and Token programs),
// and base58 is quadratic: addresses are remembered by content, up to a bound.
const addressCache = new Map<string, string>()
const addressCacheLimit = 4096

/** A 32-byte Solana public key (an account address) as base58, the form dapps and explorers show. */
export function addressOf(key: Uint8Array): string {
  const content = String.fromCharCode.apply(null, key as unknown as number[])
  let address = addressCache.get(content)
  if (address === undefined) {
    address = base58.encode(key)
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
// ~22 µs Ed25519 sign (bench/solana.bench.ts). Same results, proven against @scure/base by property tests
// (test/solana/encoding.test.ts); @scure/base still decodes base58, which is cheap and not quadratic here.
const alphabet58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
/** 58^5: five base58 digits per limb keep every intermediate product below 2^53. */
const limbBase = 656_356_768

/** Base58 (Bitcoin alphabet), as @scure/base's `base58.encode`. */
export function encodeBase58(bytes: Uint8Array): string {
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++
  const limbs: number[] = []
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!
    for (let j = 0; j < limbs.length; j++) {
      const value = limbs[j]! * 256 + carry
      carry = Math.floor(value / limbBase)
      limbs[j] = value - carry * limbBase
    }
    while (carry > 0) {
      const next = Math.floor(carry / limbBase)
      limbs.push(carry - next * limbBase)
      carry = next
    }
  }
  const digits: string[] = []
  for (let j = 0; j < limbs.length; j++) {
    let limb = limbs[j]!
    const last = j === limbs.length - 1
    for (let k = 0; k < 5 && !(last && limb === 0); k++) {
      digits.push(alphabet58[limb % 58]!)
      limb = Math.floor(limb / 58)
    }
  }
  return '1'.repeat(zeros) + digits.reverse().join('')
}

const alphabet64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const values64 = new Int8Array(128).fill(-1)
for (let i = 0; i < 64; i++) values64[alphabet64.charCodeAt(i)] = i

/** Padded RFC 4648 base64. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = ''
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!
    out +=
      alphabet64[n >> 18]! + alphabet64[(n >> 12) & 63]! + alphabet64[(n >> 6) & 63]! + alphabet64[n & 63]!
  }
  if (i + 1 === bytes.length) {
    const n = bytes[i]! << 16
    out += `${alphabet64[n >> 18]!}${alphabet64[(n >> 12) & 63]!}==`
  } else if (i + 2 === bytes.length) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8)
    out += `${alphabet64[n >> 18]!}${alphabet64[(n >> 12) & 63]!}${alphabet64[(n >> 6) & 63]!}=`
  }
  return out
}

/**
 * Padded RFC 4648 base64, strictly: a multiple of four characters, `=` only as the last one or two, and the
 * bits a padded quantum leaves over must be zero (one encoding per byte string). Undefined otherwise.
 */
export function base64Decode(text: string): Uint8Array | undefined {
  const length = text.length
  if (length % 4 !== 0) return undefined
  const padding = length === 0 ? 0 : text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0
  const out = new Uint8Array((length / 4) * 3 - padding)
  const value = (index: number) => {
    const code = text.charCodeAt(index)
    return code < 128 ? values64[code]! : -1
  }
  let o = 0
  for (let i = 0; i < length; i += 4) {
    const last = i + 4 === length
    const a = value(i)
    const b = value(i + 1)
    const c = last && padding === 2 ? 0 : value(i + 2)
    const d = last && padding >= 1 ? 0 : value(i + 3)
    if ((a | b | c | d) < 0) return undefined
    const n = (a << 18) | (b << 12) | (c << 6) | d
    out[o++] = n >> 16
    if (o < out.length) out[o++] = (n >> 8) & 255
    if (o < out.length) out[o++] = n & 255
    if (last && padding === 2 && (b & 15) !== 0) return undefined
    if (last && padding === 1 && (c & 3) !== 0) return undefined
  }
  return out
}

/**
 * A cursor over wire bytes that fails with -32602 and a field path instead of reading past the end. Every
 * read names the field it reads, so the error points at the exact place a hostile input breaks.
 */
export class WireReader {
  offset = 0
  constructor(
    readonly bytes: Uint8Array,
    /** Prefix of every error path, e.g. `transaction` or `transactions.3`. */
    readonly root: string,
  ) {}

  path(field: string): string {
    return field === '' ? this.root : `${this.root}.${field}`
  }

  fail(reason: string, field: string): never {
    throw new InvalidParamsError(reason, { path: this.path(field) })
  }

  u8(field: string): number {
    const value = this.bytes[this.offset]
    if (value === undefined) this.fail('truncated', field)
    this.offset += 1
    return value
  }

  take(length: number, field: string): Uint8Array {
    if (this.offset + length > this.bytes.length) this.fail('truncated', field)
    const slice = this.bytes.subarray(this.offset, this.offset + length)
    this.offset += length
    return slice
  }

  /**
   * Solana's compact-u16 ("shortvec"): 1 to 3 bytes, 7 bits each, little end first. Refuses the forms the
   * runtime refuses: a value above 0xffff, a fourth byte, and non-minimal encodings (a trailing zero byte),
   * which would let two different byte strings decode to the same message.
   */
  shortVec(field: string): number {
    let value = 0
    for (let index = 0; index < 3; index++) {
      const byte = this.u8(field)
      value |= (byte & 0x7f) << (7 * index)
      if ((byte & 0x80) === 0) {
        if (byte === 0 && index > 0) this.fail('non-minimal compact-u16 length', field)
        if (value > 0xffff) this.fail('compact-u16 length above 65535', field)
        return value
      }
    }
    this.fail('compact-u16 length longer than 3 bytes', field)
  }

  get remaining(): number {
    return this.bytes.length - this.offset
  }
}

/** Solana's compact-u16 encoding of `value` (0..65535). */
export function encodeShortVec(value: number): Uint8Array {
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
