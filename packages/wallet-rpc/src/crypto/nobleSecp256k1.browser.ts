import * as curve from '@noble/curves/secp256k1.js'

export type NobleSecp256k1 = typeof curve

/** Bundles' copy (the package's `browser` field): @noble/curves' secp256k1, imported statically. */
export function nobleSecp256k1(): NobleSecp256k1 {
  return curve
}
