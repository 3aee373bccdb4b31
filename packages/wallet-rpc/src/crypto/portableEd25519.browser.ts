import { ed25519 } from '@noble/curves/ed25519.js'
import nacl from 'tweetnacl'

/** Bundles' copy (the package's `browser` field): the portable Ed25519 libraries, imported statically. */
export function tweetnaclLibrary(): typeof nacl {
  return nacl
}

export function nobleEd25519Library(): typeof ed25519 {
  return ed25519
}
