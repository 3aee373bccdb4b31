import { sha256 } from '@noble/hashes/sha2.js'
import { utf8ToBytes } from '@noble/hashes/utils.js'
import nacl from 'tweetnacl'

/**
 * All that @ton/core takes from @ton/crypto (its `require("@ton/crypto")` in boc/cell/wonderCalculator,
 * crypto/safeSign and crypto/domainSignature), from libraries this package already has. For React Native the
 * build bundles @ton/core with this module in @ton/crypto's place (scripts/ton-core-native.mjs, the package's
 * `react-native` field), because @ton/crypto loads @ton/crypto-primitives, whose React Native entry requires
 * the native modules `expo-crypto` and `react-native-fast-pbkdf2`, which Metro must then find in every app
 * although wallet-rpc never calls them. Same bytes as @ton/crypto: SHA-256 is SHA-256, and Ed25519 goes
 * through tweetnacl as @ton/crypto's does (test/ton/coreCrypto.property.test.ts).
 */

const bufferOf = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)

/** @ton/crypto's `sha256_sync`: a string is hashed as its UTF-8 bytes. */
export function sha256_sync(source: Buffer | string): Buffer {
  return bufferOf(sha256(typeof source === 'string' ? utf8ToBytes(source) : source))
}

/** @ton/crypto's `sign`: a detached Ed25519 signature with a 64-byte tweetnacl secret key. */
export function sign(data: Buffer, secretKey: Buffer): Buffer {
  return bufferOf(nacl.sign.detached(new Uint8Array(data), new Uint8Array(secretKey)))
}

/** @ton/crypto's `signVerify`. */
export function signVerify(data: Buffer, signature: Buffer, publicKey: Buffer): boolean {
  return nacl.sign.detached.verify(new Uint8Array(data), new Uint8Array(signature), new Uint8Array(publicKey))
}
