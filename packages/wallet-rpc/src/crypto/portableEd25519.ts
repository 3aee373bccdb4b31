import type * as nobleEd25519Module from '@noble/curves/ed25519.js'
import type nacl from 'tweetnacl'
import { requireFromHere } from './requireFromHere.js'

/**
 * Node's copy: the portable Ed25519 libraries are required at their first use, not imported. In Node
 * node:crypto's Ed25519 answers first, so they usually never load, and importing tweetnacl alone cost every
 * cold start ~12 ms. The package's `browser` field swaps this file for `portableEd25519.browser.ts`, which
 * imports them statically.
 */
export function tweetnaclLibrary(): typeof nacl {
  return requireFromHere<typeof nacl>('tweetnacl')
}

export function nobleEd25519Library(): typeof nobleEd25519Module.ed25519 {
  return requireFromHere<typeof nobleEd25519Module>('@noble/curves/ed25519.js').ed25519
}
