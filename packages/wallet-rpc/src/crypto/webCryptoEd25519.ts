import { concatBytes } from '@noble/hashes/utils.js'
import { pkcs8Prefix } from './ed25519Der.js'
import { chosen, type Ed25519Backend, ed25519SignsKnownAnswer } from './registry.js'

type Subtle = {
  importKey(
    format: 'pkcs8',
    data: Uint8Array,
    algorithm: { name: 'Ed25519' },
    extractable: false,
    usages: ['sign'],
  ): Promise<unknown>
  sign(algorithm: 'Ed25519', key: unknown, data: Uint8Array): Promise<ArrayBuffer>
}

/** The seed as a WebCrypto key, or undefined where the engine has no Ed25519 (never a rejection). */
function importSeed(subtle: Subtle, seed: Uint8Array): Promise<unknown> {
  try {
    return subtle
      .importKey('pkcs8', concatBytes(pkcs8Prefix, seed), { name: 'Ed25519' }, false, ['sign'])
      .catch(() => undefined)
  } catch {
    return Promise.resolve(undefined)
  }
}

/**
 * WebCrypto's Ed25519 (`crypto.subtle`, in current browsers and extension service workers): the engine's
 * native code, many times faster than pure JS, but asynchronous. Each key is imported once, when it is made
 * (WebCrypto copies the seed then, so a caller may wipe its copy); the public key and `verify` come from the
 * synchronous `portable` backend. RFC 8032's known answer is checked at the first signature: an engine without
 * Ed25519, or one that answers wrong, is not used, its keys sign with `portable` and `wallet.backends()` names
 * that. Undefined where there is no `crypto.subtle` at all.
 */
export function loadWebCryptoEd25519(portable: Ed25519Backend): Ed25519Backend | undefined {
  const subtle = (globalThis as { crypto?: { subtle?: Subtle } }).crypto?.subtle
  if (typeof subtle?.importKey !== 'function' || typeof subtle.sign !== 'function') return undefined
  const signWith = async (key: unknown, message: Uint8Array) =>
    new Uint8Array(await subtle.sign('Ed25519', key, message))
  let passes: Promise<boolean> | undefined
  const backend: Ed25519Backend = {
    name: 'WebCrypto',
    fromSeed(seed) {
      const portableKey = portable.fromSeed(seed)
      const imported = importSeed(subtle, seed)
      return {
        publicKey: portableKey.publicKey,
        async sign(message) {
          passes ??= ed25519SignsKnownAnswer(async (testSeed, testMessage) =>
            signWith(await importSeed(subtle, testSeed), testMessage),
          ).then((ok) => {
            if (!ok && chosen.ed25519 === backend) chosen.ed25519 = portable
            return ok
          })
          const key = (await passes) ? await imported : undefined
          return key === undefined ? portableKey.sign(message) : signWith(key, message)
        },
      }
    },
    verify: portable.verify,
  }
  return backend
}
