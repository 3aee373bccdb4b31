// A second, minimal reading of Solana's wire format for the verifiers, written from the Solana docs
// ("Transactions": compact-u16 signature count, 64-byte signatures, then the message whose header, account keys
// and blockhash come first) and independent of src/solana.
import { ed25519 } from '@noble/curves/ed25519.js'
import { base58, base64 } from '@scure/base'
import { fail } from '../result.js'

export type WireTransaction = {
  signatures: Uint8Array[]
  /** The serialized message: what each signature signs. */
  message: Uint8Array
  /** The first `signatures.length` static account keys: the required signers, in slot order. */
  signers: string[]
}

function compactU16(bytes: Uint8Array, start: number): [value: number, next: number] {
  let value = 0
  for (let index = 0; index < 3; index++) {
    const byte = bytes[start + index]
    if (byte === undefined) fail('truncated transaction')
    value |= (byte & 0x7f) << (7 * index)
    if ((byte & 0x80) === 0) return [value, start + index + 1]
  }
  fail('bad compact-u16')
}

/** A transaction as base64 (first) or base58 text. */
export function transactionBytes(text: unknown, what: string): Uint8Array {
  if (typeof text !== 'string' || text === '') fail(`${what} is not a string`)
  for (const decode of [base64.decode, base58.decode]) {
    try {
      const bytes = decode(text)
      readWireTransaction(bytes)
      return bytes
    } catch {
      // try the other encoding
    }
  }
  fail(`${what} is neither a base64 nor a base58 transaction`)
}

export function readWireTransaction(bytes: Uint8Array): WireTransaction {
  const [count, afterCount] = compactU16(bytes, 0)
  const signatures: Uint8Array[] = []
  let offset = afterCount
  for (let index = 0; index < count; index++) {
    if (offset + 64 > bytes.length) fail('truncated signatures')
    signatures.push(bytes.subarray(offset, offset + 64))
    offset += 64
  }
  const message = bytes.subarray(offset)
  let cursor = 0
  // A versioned message starts with 0x80 | version; the header follows.
  if ((message[0] ?? 0) & 0x80) cursor = 1
  const required = message[cursor]
  if (required === undefined || required !== count) fail('signature count does not match the message header')
  const [keyCount, keysStart] = compactU16(message, cursor + 3)
  if (keyCount < required || keysStart + 32 * keyCount + 32 > message.length) fail('truncated account keys')
  const signers: string[] = []
  for (let index = 0; index < required; index++) {
    signers.push(base58.encode(message.subarray(keysStart + 32 * index, keysStart + 32 * (index + 1))))
  }
  return { signatures, message, signers }
}

export const isEmptySignature = (signature: Uint8Array) => signature.every((byte) => byte === 0)

export function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: string): boolean {
  try {
    return ed25519.verify(signature, message, base58.decode(publicKey), { zip215: false })
  } catch {
    return false
  }
}

export function base58Signature(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string') fail(`${what} is not a base58 string`)
  let bytes: Uint8Array
  try {
    bytes = base58.decode(value)
  } catch {
    fail(`${what} is not base58`)
  }
  if (bytes.length !== 64) fail(`${what} is ${bytes.length} bytes, not 64`)
  return bytes
}
