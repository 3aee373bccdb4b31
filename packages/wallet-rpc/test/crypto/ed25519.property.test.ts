import { ed25519 as nobleReference } from '@noble/curves/ed25519.js'
import fc from 'fast-check'
import nacl from 'tweetnacl'
import { afterEach, describe, expect, it } from 'vitest'
import { activeBackends, useCrypto } from '../../src/crypto/backends.js'
import { loadNodeEd25519, nobleEd25519, tweetnaclEd25519 } from '../../src/crypto/ed25519.js'
import { chosen, type Ed25519Backend } from '../../src/crypto/registry.js'
import { loadWebCryptoEd25519 } from '../../src/crypto/webCryptoEd25519.js'

/**
 * The Ed25519 backends for runtimes without node:crypto: WebCrypto (browsers, extension workers; here Node's
 * own `crypto.subtle`, the same API) and @noble/curves (Hermes), against tweetnacl on random seeds and
 * messages: the same public key and the same signature bytes (Ed25519 is deterministic), each accepted by
 * tweetnacl's verify; a WebCrypto that fails RFC 8032's known answer or has no Ed25519 is never used.
 */
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const webCrypto = loadWebCryptoEd25519(nobleEd25519)!
const realSubtle = crypto.subtle as unknown as {
  importKey(...args: unknown[]): Promise<unknown>
  sign(...args: unknown[]): Promise<ArrayBuffer>
}

afterEach(() => {
  useCrypto({ ed25519: loadNodeEd25519() ?? tweetnaclEd25519 })
})

/** A `crypto.subtle` stand-in for the tests below, installed while `run` runs. */
async function withSubtle<T>(subtle: unknown, run: () => Promise<T>): Promise<T> {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'crypto')!
  const getRandomValues = crypto.getRandomValues.bind(crypto)
  Object.defineProperty(globalThis, 'crypto', { value: { subtle, getRandomValues }, configurable: true })
  try {
    return await run()
  } finally {
    Object.defineProperty(globalThis, 'crypto', descriptor)
  }
}

describe('Ed25519 where node:crypto is absent', () => {
  it('WebCrypto, @noble/curves and its own sign() give tweetnacl’s bytes on random keys and messages', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 300 }),
        async (seed, message) => {
          const reference = nacl.sign.keyPair.fromSeed(seed)
          const expected = hex(nacl.sign.detached(message, reference.secretKey))
          for (const backend of [nobleEd25519, webCrypto]) {
            const key = backend.fromSeed(seed)
            expect(hex(key.publicKey)).toBe(hex(reference.publicKey))
            const signature = await key.sign(message)
            expect(hex(signature)).toBe(expected)
            expect(nacl.sign.detached.verify(message, signature, reference.publicKey)).toBe(true)
          }
          // The per-key signing path against noble's own one-shot sign.
          expect(hex(nobleReference.sign(message, seed))).toBe(expected)
          expect(nobleEd25519.verify(reference.publicKey, message, Buffer.from(expected, 'hex'))).toBe(true)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('@noble/curves verify refuses a flipped bit, another message, and malformed inputs', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.nat({ max: 511 }), (seed, bit) => {
        const key = nobleEd25519.fromSeed(seed)
        const message = Uint8Array.of(1, 2, 3)
        const signature = key.sign(message) as Uint8Array
        const flipped = Uint8Array.from(signature)
        flipped[bit >> 3]! ^= 1 << (bit & 7)
        expect(nobleEd25519.verify(key.publicKey, message, flipped)).toBe(false)
        expect(nobleEd25519.verify(key.publicKey, Uint8Array.of(1, 2), signature)).toBe(false)
      }),
      { numRuns: 100 },
    )
    expect(nobleEd25519.verify(new Uint8Array(32), new Uint8Array(1), new Uint8Array(63))).toBe(false)
    expect(nobleEd25519.verify(new Uint8Array(32).fill(255), new Uint8Array(1), new Uint8Array(64))).toBe(
      false,
    )
  })

  it('WebCrypto imports each key once, when it is made: a seed wiped afterwards still signs right', async () => {
    const seed = new Uint8Array(32).fill(9)
    const expected = hex(nacl.sign.detached(Uint8Array.of(5), nacl.sign.keyPair.fromSeed(seed).secretKey))
    let imports = 0
    let signs = 0
    const subtle = {
      importKey: (...args: unknown[]) => {
        imports++
        return realSubtle.importKey(...args)
      },
      sign: (...args: unknown[]) => {
        signs++
        return realSubtle.sign(...args)
      },
    }
    await withSubtle(subtle, async () => {
      const backend = loadWebCryptoEd25519(nobleEd25519)!
      const key = backend.fromSeed(seed)
      seed.fill(0) // what solanaKeys does with its derived seeds
      expect(hex(await key.sign(Uint8Array.of(5)))).toBe(expected)
      expect(hex(await key.sign(Uint8Array.of(5)))).toBe(expected)
      // One import for the key, one for the known-answer check; the answer and both signatures by WebCrypto.
      expect(imports).toBe(2)
      expect(signs).toBe(3)
    })
  })

  it('a WebCrypto that fails the known answer, or has no Ed25519, is not used: the portable backend signs', async () => {
    const seed = new Uint8Array(32).fill(3)
    const expected = hex(nacl.sign.detached(Uint8Array.of(7), nacl.sign.keyPair.fromSeed(seed).secretKey))
    const liar = {
      importKey: (...args: unknown[]) => realSubtle.importKey(...args),
      sign: async () => new Uint8Array(64).buffer, // the right length, the wrong bytes
    }
    const withoutEd25519 = {
      importKey: async () => {
        throw new DOMException('Unrecognized name', 'NotSupportedError')
      },
      sign: async () => {
        throw new Error('unreachable')
      },
    }
    for (const subtle of [liar, withoutEd25519]) {
      await withSubtle(subtle, async () => {
        const backend = loadWebCryptoEd25519(nobleEd25519)!
        chosen.ed25519 = backend
        expect(activeBackends().ed25519).toBe('WebCrypto')
        expect(hex(await backend.fromSeed(seed).sign(Uint8Array.of(7)))).toBe(expected)
        // From then on the wallet says which backend really signs.
        expect(activeBackends().ed25519).toBe('@noble/curves')
      })
    }
    await withSubtle(undefined, async () => {
      expect(loadWebCryptoEd25519(nobleEd25519)).toBeUndefined()
    })
  })

  it('an injected backend must pass the known answers synchronously when installed (so WebCrypto is not injectable)', () => {
    const broken: Ed25519Backend = { ...nobleEd25519, name: 'broken', verify: () => true }
    expect(() => useCrypto({ ed25519: broken })).toThrow(/Ed25519 backend "broken"/)
    expect(() => useCrypto({ ed25519: webCrypto })).toThrow(/known answers/)
  })
})
