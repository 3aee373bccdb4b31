import { base58, base64 } from '@scure/base'
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
  try {
    return base64.decode(text)
  } catch {
    throw new InvalidParamsError('must be base64', { path })
  }
}

export const encodeBase58 = (bytes: Uint8Array): string => base58.encode(bytes)
export const encodeBase64 = (bytes: Uint8Array): string => base64.encode(bytes)

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
