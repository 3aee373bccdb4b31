import type * as hmacModule from '@noble/hashes/hmac.js'
import type * as legacy from '@noble/hashes/legacy.js'
import type * as pbkdf2Module from '@noble/hashes/pbkdf2.js'
import type * as sha2 from '@noble/hashes/sha2.js'
import { requireFromHere } from './requireFromHere.js'

/** The @noble/hashes functions the library uses outside its own backends (pure JS, audited). */
export type NobleHashes = {
  sha256: typeof sha2.sha256
  sha512: typeof sha2.sha512
  hmac: typeof hmacModule.hmac
  pbkdf2Async: typeof pbkdf2Module.pbkdf2Async
  ripemd160: typeof legacy.ripemd160
}

let loaded: NobleHashes | undefined

/**
 * Node's copy: @noble/hashes' sha2, hmac, pbkdf2 and legacy (6 module files) are required at their first use,
 * not imported. Node hashes SHA-256 and PBKDF2 with OpenSSL, so importing them cost every ton and bip122
 * cold start ~4 ms for code a wallet may never run. The package's `browser` field swaps this file for
 * `nobleHashes.browser.ts`, which imports them statically, as a bundle must.
 */
export function nobleHashes(): NobleHashes {
  if (loaded === undefined) {
    const { sha256, sha512 } = requireFromHere<typeof sha2>('@noble/hashes/sha2.js')
    const { hmac } = requireFromHere<typeof hmacModule>('@noble/hashes/hmac.js')
    const { pbkdf2Async } = requireFromHere<typeof pbkdf2Module>('@noble/hashes/pbkdf2.js')
    const { ripemd160 } = requireFromHere<typeof legacy>('@noble/hashes/legacy.js')
    loaded = { sha256, sha512, hmac, pbkdf2Async, ripemd160 }
  }
  return loaded
}
