import type nacl from 'tweetnacl'
import { requireFromHere } from './requireFromHere.js'

/**
 * Node's copy: tweetnacl is required at its first use, not imported. In Node node:crypto's Ed25519 answers
 * first, so tweetnacl usually never loads, and importing it cost every cold start ~12 ms. The package's
 * `browser` field swaps this file for `portableEd25519.browser.ts`, which imports it statically.
 */
export function tweetnaclLibrary(): typeof nacl {
  return requireFromHere<typeof nacl>('tweetnacl')
}
