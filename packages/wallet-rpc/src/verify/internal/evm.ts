// Shared eip155 checks: signature shape (65 bytes, low s, v 27/28 or 0/1) and strict hex.
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { hexToBytes as nobleHexToBytes } from '@noble/curves/utils.js'
import type { Hex } from 'viem'
import { isAddress, keccak256 } from 'viem/utils'
import { fail } from '../result.js'

const halfOrder = secp256k1.Point.CURVE().n / 2n

export function checkedSignature(signature: unknown): Hex {
  if (typeof signature !== 'string' || !/^0x[0-9a-fA-F]{130}$/.test(signature)) {
    return fail('signature is not 65 bytes of 0x-prefixed hex')
  }
  const v = Number.parseInt(signature.slice(130), 16)
  if (![0, 1, 27, 28].includes(v)) fail(`signature v byte ${v} is not 27/28 (or 0/1)`)
  if (BigInt(`0x${signature.slice(66, 130)}`) > halfOrder) fail('signature has a high s (malleable)')
  return signature as Hex
}

export function checkedAddress(address: unknown, what: string): Hex {
  if (typeof address !== 'string' || !isAddress(address, { strict: false }))
    return fail(`${what} is not an address`)
  return address as Hex
}

export const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

/** `personal_sign`/`eth_sign` message: 0x-hex is bytes, anything else UTF-8 text (MetaMask, eth-sig-util). */
export function messageBytes(message: unknown): { raw: Hex } | string {
  if (typeof message !== 'string') return fail('message is not a string')
  return /^0x([0-9a-fA-F]{2})*$/.test(message) ? { raw: message as Hex } : message
}

export function quantity(value: unknown, what: string): bigint | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || !/^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/.test(value)) {
    return fail(`request ${what} is not a hex QUANTITY`)
  }
  return BigInt(value)
}

/** The address that signed a 32-byte digest (65-byte r ‖ s ‖ v signature), computed with @noble/curves. */
export function recoverSigner(digest: Hex, signature: Hex): Hex {
  const r = BigInt(`0x${signature.slice(2, 66)}`)
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130), 16)
  const recovery = v >= 27 ? v - 27 : v
  const point = new secp256k1.Signature(r, s, recovery).recoverPublicKey(hexToBytes(digest))
  const uncompressed = point.toBytes(false).slice(1)
  return `0x${keccak256(uncompressed).slice(-40)}`
}

function hexToBytes(value: Hex): Uint8Array {
  return nobleHexToBytes(value.slice(2))
}
