import { hmac } from '@noble/hashes/hmac.js'
import { ripemd160 } from '@noble/hashes/legacy.js'
import { pbkdf2Async } from '@noble/hashes/pbkdf2.js'
import { sha256, sha512 } from '@noble/hashes/sha2.js'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { describe, expect, it } from 'vitest'
import * as bundled from '../../src/crypto/nobleHashes.browser.js'
import * as node from '../../src/crypto/nobleHashes.js'
import { modulesLoadedByImport } from '../setup/modulesLoaded.js'

/**
 * @noble/hashes behind accessors: Node requires each module at its first use (src/crypto/nobleHashes.ts),
 * bundles import it (nobleHashes.browser.ts, swapped in by the package's `browser` field; test/platforms runs
 * those bundles). Both copies must be @noble/hashes itself, and importing a namespace in Node must load none
 * of its hash modules (the cold start that issue 14 measures).
 */
const abc = utf8ToBytes('abc')

describe('nobleHashes', () => {
  it.each([
    ['Node (required at first use)', node],
    ['bundles (imported)', bundled],
  ])('%s: the same bytes as @noble/hashes', async (_, copy) => {
    const known = {
      // FIPS 180-2 B.1, FIPS 180-2 C.1, and RIPEMD-160's own test vector for "abc".
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      sha512:
        'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
      ripemd160: '8eb208f7e05d987a9b044a8e98c6b087f15a0bfc',
    }
    expect(bytesToHex(copy.nobleSha256()(abc))).toBe(known.sha256)
    expect(bytesToHex(copy.nobleSha512()(abc))).toBe(known.sha512)
    expect(bytesToHex(copy.nobleRipemd160()(abc))).toBe(known.ripemd160)
    expect(copy.nobleHmac()(copy.nobleSha512(), abc, abc)).toEqual(hmac(sha512, abc, abc))
    expect(await copy.noblePbkdf2Async()(copy.nobleSha512(), abc, abc, { c: 3, dkLen: 64 })).toEqual(
      await pbkdf2Async(sha512, abc, abc, { c: 3, dkLen: 64 }),
    )
    expect(copy.nobleSha256()(new Uint8Array(1000))).toEqual(sha256(new Uint8Array(1000)))
    expect(copy.nobleRipemd160()(new Uint8Array(1000))).toEqual(ripemd160(new Uint8Array(1000)))
  })

  it.each(['ton', 'bip122', 'solana'])(
    'importing %s in Node loads no @noble/hashes hash module (Node hashes with OpenSSL)',
    (namespace) => {
      const modules = modulesLoadedByImport(`./src/${namespace}/index.ts`, { sources: true })
      expect(modules.some((line) => line.includes('/src/crypto/nobleHashes.ts'))).toBe(true)
      // Our own copy (bitcoinjs-lib brings its own older one, under node_modules/@noble/hashes/esm).
      const hashModules = modules.filter((line) =>
        /\/node_modules\/@noble\/hashes\/(sha2|_md|_u64|hmac|pbkdf2|legacy)\.js$/.test(line),
      )
      expect(hashModules).toEqual([])
    },
  )
})
