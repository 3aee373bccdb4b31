import nacl from 'tweetnacl'
import { concatBytes, equalBytes } from './bytes.js'

/** One Ed25519 signing key, imported once from its 32-byte seed (the RFC 8032 private key). */
export type Ed25519Key = {
  readonly publicKey: Uint8Array
  sign(message: Uint8Array): Uint8Array
}

/**
 * An Ed25519 implementation. `node:crypto` (OpenSSL) signs about 100x faster than tweetnacl, so it is used
 * wherever it exists; tweetnacl (pure JS) covers browsers and React Native. Both produce the same bytes,
 * because Ed25519 signatures are deterministic (test/ton/ed25519.test.ts proves it).
 */
export type Ed25519Backend = {
  readonly name: 'node:crypto' | 'tweetnacl'
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

/** The node:crypto backend, or undefined where node:crypto or its Ed25519 support is missing. */
export async function loadNodeEd25519(): Promise<Ed25519Backend | undefined> {
  let crypto: typeof import('node:crypto')
  try {
    crypto = await import('node:crypto')
  } catch {
    return undefined
  }
  const backend: Ed25519Backend = {
    name: 'node:crypto',
    fromSeed(seed) {
      assertSeed(seed)
      const privateKey = crypto.createPrivateKey({
        key: Buffer.from(concatBytes(pkcs8Prefix, seed)),
        format: 'der',
        type: 'pkcs8',
      })
      const spki = crypto.createPublicKey(privateKey).export({ format: 'der', type: 'spki' })
      return {
        publicKey: new Uint8Array(spki.subarray(spkiPrefix.length)),
        // A Buffer is a Uint8Array; returning it as is saves a copy on the hot path.
        sign: (message) => crypto.sign(null, message, privateKey),
      }
    },
    verify(publicKey, message, signature) {
      if (!isVerifiable(publicKey, signature)) return false
      const key = crypto.createPublicKey({
        key: Buffer.from(concatBytes(spkiPrefix, publicKey)),
        format: 'der',
        type: 'spki',
      })
      return crypto.verify(null, message, key, signature)
    },
  }
  // Some runtimes ship node:crypto without Ed25519 (or with a different answer); only a backend that
  // reproduces tweetnacl on a fixed key is trusted.
  try {
    const seed = new Uint8Array(32).fill(7)
    const message = Uint8Array.of(1, 2, 3)
    const ours = backend.fromSeed(seed).sign(message)
    const reference = tweetnaclEd25519.fromSeed(seed).sign(message)
    return equalBytes(ours, reference) ? backend : undefined
  } catch {
    return undefined
  }
}

let fastest: Promise<Ed25519Backend> | undefined

/** The fastest backend this runtime has (loaded once). */
export function ed25519(): Promise<Ed25519Backend> {
  fastest ??= loadNodeEd25519().then((backend) => backend ?? tweetnaclEd25519)
  return fastest
}
