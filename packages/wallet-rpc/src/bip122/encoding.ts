import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import { bech32, bech32m, createBase58check } from '@scure/base'
import type { Network } from 'bitcoinjs-lib'
import { nobleRipemd160 } from '../crypto/nobleHashes.js'
import type { Secp256k1 } from '../crypto/secp256k1.js'
import { constantSha256, sha256 } from '../crypto/sha256.js'
import type { AddressType } from './types.js'

/** Small byte helpers shared by the account model and message signing (no Buffer at boundaries). */

export const base58check = createBase58check((data: Uint8Array) => sha256(data))

export function hash160(data: Uint8Array): Uint8Array {
  return nobleRipemd160()(sha256(data))
}

export function sha256d(...parts: Uint8Array[]): Uint8Array {
  return sha256(sha256(...parts))
}

const tagPrefixes = new Map<string, Uint8Array>()

/** `sha256(tag) ‖ sha256(tag)`, the 64 bytes a BIP-340 tagged hash puts before its data; computed once per tag. */
export function taggedHashPrefix(tag: string): Uint8Array {
  let prefix = tagPrefixes.get(tag)
  if (prefix === undefined) {
    const tagHash = constantSha256(utf8ToBytes(tag))
    prefix = concatBytes(tagHash, tagHash)
    tagPrefixes.set(tag, prefix)
  }
  return prefix
}

/** BIP-340 tagged hash `sha256(sha256(tag) ‖ sha256(tag) ‖ data)`. */
export function taggedHash(tag: string, ...data: Uint8Array[]): Uint8Array {
  return sha256(taggedHashPrefix(tag), ...data)
}

/** Bitcoin's CompactSize unsigned integer. */
export function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n)
  if (n <= 0xffff) return Uint8Array.of(0xfd, n & 0xff, n >>> 8)
  if (n <= 0xffffffff) {
    const out = new Uint8Array(5)
    out[0] = 0xfe
    new DataView(out.buffer).setUint32(1, n, true)
    return out
  }
  throw new RangeError('length too large')
}

export function p2pkhScript(pubKeyHash: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), pubKeyHash, Uint8Array.of(0x88, 0xac))
}

function p2wpkhScript(pubKeyHash: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(0x00, 0x14), pubKeyHash)
}

/** BIP-86 output key: `P + TapTweak(xonly(P))·G`, no script tree. */
export function taprootOutputKey(ecc: Secp256k1, internalKey: Uint8Array): Uint8Array {
  const tweaked = ecc.xOnlyPointAddTweak(internalKey, taggedHash('TapTweak', internalKey))
  if (tweaked === null) throw new Error('taproot tweak out of range')
  return tweaked.xOnlyPubkey
}

export type EncodedAddress = {
  address: string
  scriptPubKey: Uint8Array
  redeemScript?: Uint8Array
  internalKey?: Uint8Array
  outputKey?: Uint8Array
}

/**
 * The address of `type` for a 33-byte compressed public key on `network`. Encoded here, not with bitcoinjs-lib
 * `payments`, for the same reasons as `decodeAddress`: no process-global `initEccLib` for P2TR, and the
 * P2TR output key comes from the same backend that signs.
 */
export function encodeAddress(
  ecc: Secp256k1,
  type: AddressType,
  publicKey: Uint8Array,
  network: Network,
): EncodedAddress {
  if (type === 'p2tr') {
    const internalKey = publicKey.subarray(1, 33)
    const outputKey = taprootOutputKey(ecc, internalKey)
    const words = bech32m.toWords(outputKey)
    words.unshift(1)
    return {
      address: bech32m.encode(network.bech32, words),
      scriptPubKey: concatBytes(Uint8Array.of(0x51, 0x20), outputKey),
      internalKey: Uint8Array.from(internalKey),
      outputKey,
    }
  }
  const keyHash = hash160(publicKey)
  if (type === 'p2wpkh') {
    const words = bech32.toWords(keyHash)
    words.unshift(0)
    return { address: bech32.encode(network.bech32, words), scriptPubKey: p2wpkhScript(keyHash) }
  }
  if (type === 'p2sh-p2wpkh') {
    const redeemScript = p2wpkhScript(keyHash)
    const scriptHash = hash160(redeemScript)
    return {
      address: base58check.encode(concatBytes(Uint8Array.of(network.scriptHash), scriptHash)),
      scriptPubKey: concatBytes(Uint8Array.of(0xa9, 0x14), scriptHash, Uint8Array.of(0x87)),
      redeemScript,
    }
  }
  return {
    address: base58check.encode(concatBytes(Uint8Array.of(network.pubKeyHash), keyHash)),
    scriptPubKey: p2pkhScript(keyHash),
  }
}
