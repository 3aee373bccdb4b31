import { concatBytes, equalBytes, hexToBytes } from '@noble/curves/utils.js'
import nacl from 'tweetnacl'

/** One Ed25519 signing key, imported once from its 32-byte seed (the RFC 8032 private key). */
export type Ed25519Key = {
  readonly publicKey: Uint8Array
  sign(message: Uint8Array): Uint8Array
}

/**
 * An Ed25519 implementation. `node:crypto` (OpenSSL) signs about 100x faster than tweetnacl, so it is used
 * wherever it exists; tweetnacl (pure JS) covers browsers and React Native; a wallet can inject its own
 * (`useCrypto({ ed25519 })`, e.g. a React Native native module). All produce the same bytes, because
 * Ed25519 signatures are deterministic (test/ton/keys.test.ts and test/crypto/backends.test.ts prove it).
 */
export type Ed25519Backend = {
  readonly name: string
  fromSeed(seed: Uint8Array): Ed25519Key
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean
}

function assertSeed(seed: Uint8Array): void {
  if (!(seed instanceof Uint8Array) || seed.length !== 32)
    throw new TypeError('Ed25519 seed must be 32 bytes')
}

function isVerifiable(publicKey: Uint8Array, signature: Uint8Array): boolean {
  return (
    publicKey instanceof Uint8Array &&
    publicKey.length === 32 &&
    signature instanceof Uint8Array &&
    signature.length === 64
  )
}

export const tweetnaclEd25519: Ed25519Backend = {
  name: 'tweetnacl',
  fromSeed(seed) {
    assertSeed(seed)
    const pair = nacl.sign.keyPair.fromSeed(seed)
    return {
      publicKey: pair.publicKey,
      sign: (message) => nacl.sign.detached(message, pair.secretKey),
    }
  },
  verify(publicKey, message, signature) {
    return isVerifiable(publicKey, signature) && nacl.sign.detached.verify(message, signature, publicKey)
  },
}

// DER prefixes that wrap a raw 32-byte Ed25519 seed / public key for OpenSSL (RFC 8410).
const pkcs8Prefix = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
])
const spkiPrefix = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00])

type NodeCrypto = typeof import('node:crypto')

/**
 * The node:crypto backend, or undefined where node:crypto or its Ed25519 support is missing. Reached through
 * `process.getBuiltinModule`, so bundles for browsers and Hermes never see a `node:` import.
 */
export function loadNodeEd25519(): Ed25519Backend | undefined {
  const crypto = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined
  if (crypto === undefined) return undefined
  const backend: Ed25519Backend = {
    name: 'node:crypto',
    fromSeed(seed) {
      assertSeed(seed)
      const privateKey = crypto.createPrivateKey({
        key: concatBytes(pkcs8Prefix, seed) as Buffer,
        format: 'der',
        type: 'pkcs8',
      })
      const spki = crypto.createPublicKey(privateKey).export({ format: 'der', type: 'spki' })
      return {
        publicKey: new Uint8Array(spki.subarray(spkiPrefix.length)),
        // Node's Buffer is a Uint8Array; returning it as is saves a copy on the hot path.
        sign: (message) => crypto.sign(null, message, privateKey),
      }
    },
    verify(publicKey, message, signature) {
      if (!isVerifiable(publicKey, signature)) return false
      try {
        const key = crypto.createPublicKey({
          key: concatBytes(spkiPrefix, publicKey) as Buffer,
          format: 'der',
          type: 'spki',
        })
        return crypto.verify(null, message, key, signature)
      } catch {
        // A public key that is not a curve point: nothing verifies under it.
        return false
      }
    },
  }
  // Some runtimes ship node:crypto without Ed25519 (or with a different answer).
  return passesKnownAnswers(backend) ? backend : undefined
}

/** Whether a backend reproduces RFC 8032 §7.1 TEST 2 (key, signature, and verification of both). */
export function passesKnownAnswers(backend: Ed25519Backend): boolean {
  try {
    const key = backend.fromSeed(hexToBytes(rfc8032Test2.seed))
    const signature = key.sign(Uint8Array.of(0x72))
    return (
      equalBytes(key.publicKey, hexToBytes(rfc8032Test2.publicKey)) &&
      equalBytes(signature, hexToBytes(rfc8032Test2.signature)) &&
      backend.verify(key.publicKey, Uint8Array.of(0x72), signature) &&
      !backend.verify(key.publicKey, Uint8Array.of(0x73), signature)
    )
  } catch {
    return false
  }
}

const rfc8032Test2 = {
  seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
  publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
  signature:
    '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
}

let active: Ed25519Backend | undefined

/** The active backend: injected, else the fastest this runtime has (chosen at the first call). */
export function ed25519(): Ed25519Backend {
  active ??= loadNodeEd25519() ?? tweetnaclEd25519
  return active
}

/**
 * Makes `backend` the one every namespace uses from now on (process-wide). Throws a TypeError when it does
 * not reproduce RFC 8032's known answers, so a broken backend is found when the wallet starts.
 */
export function useEd25519(backend: Ed25519Backend): void {
  if (
    typeof backend?.name !== 'string' ||
    typeof backend.fromSeed !== 'function' ||
    typeof backend.verify !== 'function'
  )
    throw new TypeError('an Ed25519 backend is { name, fromSeed, verify }')
  if (!passesKnownAnswers(backend))
    throw new TypeError(`Ed25519 backend "${backend.name}" does not reproduce RFC 8032's known answers`)
  active = backend
}
