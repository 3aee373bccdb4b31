import { concatBytes } from '@noble/hashes/utils.js'
import { tweetnaclLibrary } from './portableEd25519.js'
import { checkedEd25519, chosen, type Ed25519Backend, ed25519PassesKnownAnswers } from './registry.js'

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
  return ed25519PassesKnownAnswers(backend) ? backend : undefined
}

/** The active backend: injected, else the fastest this runtime has (chosen at the first call). */
export function ed25519(): Ed25519Backend {
  chosen.ed25519 ??= loadNodeEd25519() ?? tweetnaclEd25519
  return chosen.ed25519
}

/** Makes `backend` the one every namespace uses from now on (process-wide), after RFC 8032's known answers. */
export function useEd25519(backend: Ed25519Backend): void {
  chosen.ed25519 = checkedEd25519(backend)
}
