import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { activeSha256, sha256 } from '../../src/crypto/sha256.js'

describe('sha256', () => {
  it('uses node:crypto here', () => {
    expect(activeSha256().name).toBe('node:crypto')
  })

  it('matches FIPS 180-2 "abc" and the empty string', () => {
    expect(bytesToHex(sha256(utf8ToBytes('abc')))).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    )
    expect(bytesToHex(sha256(new Uint8Array()))).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    )
  })

  it('over parts equals @noble/hashes over their concatenation, and returns a plain Uint8Array', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 200 }), { minLength: 1, maxLength: 12 }), (parts) => {
        const digest = sha256(...parts)
        expect(digest.constructor).toBe(Uint8Array)
        expect(bytesToHex(digest)).toBe(bytesToHex(nobleSha256(concatBytes(...parts))))
      }),
      { numRuns: 500 },
    )
  })
})
