import { noblePbkdf2Async, nobleSha512 } from './nobleHashes.js'

type NodeCrypto = typeof import('node:crypto')
type Subtle = {
  importKey(
    format: 'raw',
    key: Uint8Array,
    algorithm: 'PBKDF2',
    extractable: false,
    usages: ['deriveBits'],
  ): Promise<unknown>
  deriveBits(
    algorithm: { name: 'PBKDF2'; hash: 'SHA-512'; salt: Uint8Array; iterations: number },
    key: unknown,
    length: number,
  ): Promise<ArrayBuffer>
}

/**
 * PBKDF2-HMAC-SHA512 (RFC 8018) of 64 bytes, in the fastest place this runtime has: OpenSSL in Node, WebCrypto
 * in browsers and service workers, @noble/hashes elsewhere (Hermes; Node never loads it). The same bytes
 * everywhere (test/ton/mnemonic.test.ts checks the first two against the third).
 */
export async function pbkdf2Sha512(
  password: Uint8Array,
  salt: Uint8Array,
  iterations: number,
): Promise<Uint8Array> {
  const node = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined
  if (typeof node?.pbkdf2Sync === 'function') {
    const key = node.pbkdf2Sync(password, salt, iterations, 64, 'sha512')
    return new Uint8Array(key.buffer, key.byteOffset, key.byteLength)
  }
  const subtle = (globalThis as { crypto?: { subtle?: Subtle } }).crypto?.subtle
  if (subtle !== undefined) {
    try {
      const key = await subtle.importKey('raw', password, 'PBKDF2', false, ['deriveBits'])
      return new Uint8Array(
        await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-512', salt, iterations }, key, 512),
      )
    } catch {
      // An insecure context (http: page) has no usable SubtleCrypto: the portable code below.
    }
  }
  return noblePbkdf2Async()(nobleSha512(), password, salt, { c: iterations, dkLen: 64 })
}
