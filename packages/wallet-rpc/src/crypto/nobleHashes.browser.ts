import { hmac } from '@noble/hashes/hmac.js'
import { ripemd160 } from '@noble/hashes/legacy.js'
import { pbkdf2Async } from '@noble/hashes/pbkdf2.js'
import { sha256, sha512 } from '@noble/hashes/sha2.js'

/*
 * Bundles' copy (the package's `browser` field): @noble/hashes' functions, imported statically. One accessor
 * per function, as in nobleHashes.ts, so that a bundle keeps only the ones its namespace calls.
 */

export const nobleSha256 = (): typeof sha256 => sha256
export const nobleSha512 = (): typeof sha512 => sha512
export const nobleHmac = (): typeof hmac => hmac
export const noblePbkdf2Async = (): typeof pbkdf2Async => pbkdf2Async
export const nobleRipemd160 = (): typeof ripemd160 => ripemd160
