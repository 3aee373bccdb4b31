import { bytesToHex, concatBytes } from '@noble/hashes/utils.js'
import { pkcs8Prefix, spkiPrefix } from './ed25519Der.js'
import { nobleSha512 } from './nobleHashes.js'
import { nobleEd25519Library, tweetnaclLibrary } from './portableEd25519.js'
import { checkedEd25519, chosen, type Ed25519Backend, ed25519PassesKnownAnswers } from './registry.js'
import { loadWebCryptoEd25519 } from './webCryptoEd25519.js'

export type { Ed25519Backend, Ed25519Key } from './registry.js'

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
    const nacl = tweetnaclLibrary()
    const pair = nacl.sign.keyPair.fromSeed(seed)
    return {
      publicKey: pair.publicKey,
      sign: (message) => nacl.sign.detached(message, pair.secretKey),
    }
  },
  verify(publicKey, message, signature) {
    return (
      isVerifiable(publicKey, signature) &&
      tweetnaclLibrary().sign.detached.verify(message, signature, publicKey)
    )
  },
}

/**
 * @noble/curves' Ed25519 (audited, pure JS, on Uint8Array: no Buffer, no copies), about 4x faster than
 * tweetnacl in V8. Its `sign(message, seed)` derives the key (a base-point multiplication) on every call; this
 * derives it once per key and runs RFC 8032 §5.1.6 with noble's own point and scalar arithmetic, half the
 * work per signature. Same bytes as `ed25519.sign` (test/crypto/ed25519.property.test.ts).
 */
export const nobleEd25519: Ed25519Backend = {
  name: '@noble/curves',
  fromSeed(seed) {
    assertSeed(seed)
    const noble = nobleEd25519Library()
    const { Point } = noble
    const { prefix, scalar, pointBytes } = noble.utils.getExtendedPublicKey(seed)
    const sha512 = nobleSha512()
    // SHA-512 of the parts as a little-endian number, reduced mod the group order.
    const toScalar = (...parts: Uint8Array[]) =>
      Point.Fn.create(BigInt(`0x${bytesToHex(sha512(concatBytes(...parts)).reverse())}`))
    return {
      publicKey: pointBytes,
      sign(message) {
        const r = toScalar(prefix, message)
        const R = Point.BASE.multiply(r).toBytes()
        const k = toScalar(R, pointBytes, message)
        return concatBytes(R, Point.Fn.toBytes(Point.Fn.create(r + k * scalar)))
      },
    }
  },
  verify(publicKey, message, signature) {
    if (!isVerifiable(publicKey, signature)) return false
    try {
      // RFC 8032's strict decoding, as OpenSSL's.
      return nobleEd25519Library().verify(signature, message, publicKey, { zip215: false })
    } catch {
      return false
    }
  },
}

/** The first portable backend that reproduces its known answers: @noble/curves, else tweetnacl. */
function portableEd25519(): Ed25519Backend {
  return ed25519PassesKnownAnswers(nobleEd25519) ? nobleEd25519 : tweetnaclEd25519
}

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
  return ed25519PassesKnownAnswers(backend) ? backend : undefined
}

/**
 * The active backend: injected, else the fastest this runtime has (chosen at the first call): node:crypto,
 * else WebCrypto's Ed25519 (browsers, extension workers; it signs asynchronously), else @noble/curves, else
 * tweetnacl. Each must reproduce RFC 8032's known answers first (WebCrypto at its first signature: until it
 * has, and forever if it fails, its keys sign with the portable backend).
 */
export function ed25519(): Ed25519Backend {
  if (chosen.ed25519 === undefined) {
    const portable = portableEd25519()
    chosen.ed25519 = loadNodeEd25519() ?? loadWebCryptoEd25519(portable) ?? portable
  }
  return chosen.ed25519
}

/** Makes `backend` the one every namespace uses from now on (process-wide), after RFC 8032's known answers. */
export function useEd25519(backend: Ed25519Backend): void {
  chosen.ed25519 = checkedEd25519(backend)
}
