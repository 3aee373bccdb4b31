import type * as hmacModule from '@noble/hashes/hmac.js'
import type * as legacyModule from '@noble/hashes/legacy.js'
import type * as pbkdf2Module from '@noble/hashes/pbkdf2.js'
import type * as sha2Module from '@noble/hashes/sha2.js'
import { requireFromHere } from './requireFromHere.js'

/*
 * Node's copy: @noble/hashes' sha2, hmac, pbkdf2 and legacy (6 module files) are required at their first use,
 * not imported. Node hashes SHA-256 and PBKDF2 with OpenSSL, so importing them cost the cold start of ton,
 * bip122 and solana 1-4 ms (issue 14) for code most Node wallets never run. The package's `browser` field
 * swaps this file for `nobleHashes.browser.ts`, which imports them statically, as a bundle must. One accessor
 * per function, so that a bundle keeps only the functions its namespace calls.
 */

/** `require(id)` at the first call, the same module after. */
function loadOnce<T>(id: string): () => T {
  let loaded: T | undefined
  return () => {
    loaded ??= requireFromHere<T>(id)
    return loaded
  }
}

const sha2 = loadOnce<typeof sha2Module>('@noble/hashes/sha2.js')
const hmac = loadOnce<typeof hmacModule>('@noble/hashes/hmac.js')
const pbkdf2 = loadOnce<typeof pbkdf2Module>('@noble/hashes/pbkdf2.js')
const legacy = loadOnce<typeof legacyModule>('@noble/hashes/legacy.js')

export const nobleSha256 = (): typeof sha2Module.sha256 => sha2().sha256
export const nobleSha512 = (): typeof sha2Module.sha512 => sha2().sha512
export const nobleHmac = (): typeof hmacModule.hmac => hmac().hmac
export const noblePbkdf2Async = (): typeof pbkdf2Module.pbkdf2Async => pbkdf2().pbkdf2Async
export const nobleRipemd160 = (): typeof legacyModule.ripemd160 => legacy().ripemd160
