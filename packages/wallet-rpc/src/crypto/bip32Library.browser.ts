import { type BIP32API, BIP32Factory, type TinySecp256k1Interface } from 'bip32'

/** Bundles' copy (the package's `browser` field): bip32, imported statically. */
export function bip32Factory(ecc: TinySecp256k1Interface): BIP32API {
  return BIP32Factory(ecc)
}
