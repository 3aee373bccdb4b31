import * as bitcoinerlab from '@bitcoinerlab/secp256k1'
import type { Secp256k1 } from './registry.js'

/** Bundles' copy (the package's `browser` field): the portable backend, imported statically. */
export function portableSecp256k1Library(): Secp256k1 {
  return bitcoinerlab as unknown as Secp256k1
}
