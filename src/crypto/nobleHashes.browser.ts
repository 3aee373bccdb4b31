import { hmac } from '@noble/hashes/hmac.js'
import { ripemd160 } from '@noble/hashes/legacy.js'
import { pbkdf2Async } from '@noble/hashes/pbkdf2.js'
import { sha256, sha512 } from '@noble/hashes/sha2.js'
import type { NobleHashes } from './nobleHashes.js'

const hashes: NobleHashes = { sha256, sha512, hmac, pbkdf2Async, ripemd160 }

/** Bundles' copy (the package's `browser` field): @noble/hashes' functions, imported statically. */
export function nobleHashes(): NobleHashes {
  return hashes
}
