import type { Secp256k1 } from './registry.js'
import { requireFromHere } from './requireFromHere.js'

/**
 * Node's copy: @bitcoinerlab/secp256k1 is required at its first use, not imported. In Node the WASM backend
 * answers first, so the portable one usually never loads, and importing it (with @noble/curves) cost every
 * cold start 15-30 ms. The package's `browser` field swaps this file for `portableSecp256k1.browser.ts`,
 * which imports it statically, as a bundle must.
 */
export function portableSecp256k1Library(): Secp256k1 {
  return requireFromHere<Secp256k1>('@bitcoinerlab/secp256k1')
}
