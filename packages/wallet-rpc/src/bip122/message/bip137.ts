import { utf8ToBytes } from '@noble/hashes/utils.js'
import { compactSize, sha256d } from '../encoding.js'
import type { AddressType } from '../types.js'

const magicPrefix = utf8ToBytes('\x18Bitcoin Signed Message:\n')

/** `sha256d("\x18Bitcoin Signed Message:\n" ‖ compactSize(len) ‖ message)`: what BIP-137 signs. */
export function bitcoinMessageHash(message: Uint8Array): Uint8Array {
  return sha256d(magicPrefix, compactSize(message.length), message)
}

/** BIP-137 header base per address type (compressed keys): 31 P2PKH, 35 P2SH-P2WPKH, 39 P2WPKH. */
const headerBase: Readonly<Partial<Record<AddressType, number>>> = {
  p2pkh: 31,
  'p2sh-p2wpkh': 35,
  p2wpkh: 39,
}

/** header ‖ r ‖ s (65 bytes). BIP-137 has no taproot header: `schemeFor` in signMessage never asks for one. */
export function bip137Signature(type: AddressType, compact: Uint8Array, recoveryId: number): Uint8Array {
  const base = headerBase[type]
  if (base === undefined) throw new Error(`BIP-137 has no header for ${type}`)
  const signature = new Uint8Array(65)
  signature[0] = base + recoveryId
  signature.set(compact, 1)
  return signature
}
