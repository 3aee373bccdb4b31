import { keyPairFromSeed, sha256_sync, sign, signVerify } from '@ton/crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as standIn from '../../src/ton/coreCrypto.js'

/**
 * What React Native's build of @ton/core (scripts/ton-core-native.mjs) uses in @ton/crypto's place answers
 * as @ton/crypto does, for any input: SHA-256 of bytes and of strings (UTF-8, lone surrogates included), and
 * Ed25519 signatures and their verification, tampered ones included. Buffers out, as @ton/core expects.
 */
const bytes = fc.uint8Array({ maxLength: 300 })

describe('src/ton/coreCrypto.ts against @ton/crypto', () => {
  it('sha256_sync: the same digest for bytes and for any string', () => {
    fc.assert(
      fc.property(bytes, fc.string({ unit: 'binary' }), (data, text) => {
        const digest = standIn.sha256_sync(Buffer.from(data))
        expect(Buffer.isBuffer(digest)).toBe(true)
        expect(digest).toEqual(sha256_sync(Buffer.from(data)))
        expect(standIn.sha256_sync(text)).toEqual(sha256_sync(text))
      }),
      { numRuns: 500 },
    )
  })

  it('sign and signVerify: the same signature, the same verdict on it and on a tampered one', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), bytes, fc.nat(), (seed, data, flip) => {
        const { secretKey, publicKey } = keyPairFromSeed(Buffer.from(seed))
        const message = Buffer.from(data)
        const signature = standIn.sign(message, secretKey)
        expect(Buffer.isBuffer(signature)).toBe(true)
        expect(signature).toEqual(sign(message, secretKey))
        expect(standIn.signVerify(message, signature, publicKey)).toBe(true)
        const tampered = Buffer.from(signature)
        tampered[flip % 64]! ^= 1 << (flip % 8)
        expect(standIn.signVerify(message, tampered, publicKey)).toBe(
          signVerify(message, tampered, publicKey),
        )
        expect(standIn.signVerify(message, tampered, publicKey)).toBe(false)
      }),
      { numRuns: 100 },
    )
  })
})
