import type { BIP32API, TinySecp256k1Interface } from 'bip32'
import { requireFromHere } from './requireFromHere.js'

type Bip32 = { BIP32Factory(ecc: TinySecp256k1Interface): BIP32API }

/**
 * Node's copy: bip32 (with its own @noble/hashes, @scure/base, bs58check and wif: 16 modules, ~7 ms of every
 * cold start) is required when the first HD key provider is made, not at import: a wallet whose keys live
 * elsewhere (its own `KeyProvider`, a hardware signer) never loads it. The package's `browser` field swaps
 * this file for `bip32Library.browser.ts`, which imports it statically, as a bundle must.
 */
export function bip32Factory(ecc: TinySecp256k1Interface): BIP32API {
  return requireFromHere<Bip32>('bip32').BIP32Factory(ecc)
}
