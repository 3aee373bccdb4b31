import type * as curve from '@noble/curves/secp256k1.js'
import { requireFromHere } from './requireFromHere.js'

export type NobleSecp256k1 = typeof curve

let loaded: NobleSecp256k1 | undefined

/**
 * Node's copy: @noble/curves' secp256k1 (the independent check of what a signer produced, src/verify) is
 * required at its first use, not imported: importing it (9 files) cost every bip122 cold start ~14 ms, and a
 * wallet that never signs a PSBT never needs it. The package's `browser` field swaps this file for
 * `nobleSecp256k1.browser.ts`, which imports it statically, as a bundle must.
 */
export function nobleSecp256k1(): NobleSecp256k1 {
  loaded ??= requireFromHere<NobleSecp256k1>('@noble/curves/secp256k1.js')
  return loaded
}
