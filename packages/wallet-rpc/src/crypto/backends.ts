import {
  checkedEd25519,
  checkedSecp256k1,
  checkedSha256,
  chosen,
  type Ed25519Backend,
  pick,
  type Secp256k1Backend,
  type Sha256Backend,
} from './registry.js'

/** Backends a wallet brings: a React Native native module, WASM an extension loads its own way. */
export type CryptoBackends = {
  secp256k1?: Secp256k1Backend
  ed25519?: Ed25519Backend
  sha256?: Sha256Backend
}

/**
 * The name of each primitive's backend, e.g. `{ secp256k1: 'tiny-secp256k1', ed25519: 'node:crypto', … }`;
 * `'unused'` for a primitive no namespace has needed yet (each is chosen when a namespace is created or first
 * signs, never at import).
 */
export type ActiveBackends = { secp256k1: string; ed25519: string; sha256: string }

/**
 * Installs the given backends for every namespace in this JavaScript realm (the crypto layer is shared).
 * Each must reproduce its known answers first; otherwise this throws a TypeError naming it and installs none.
 */
export function useCrypto(backends: CryptoBackends): void {
  const secp256k1 = backends.secp256k1 && checkedSecp256k1(backends.secp256k1)
  const ed25519 = backends.ed25519 && checkedEd25519(backends.ed25519)
  const sha256 = backends.sha256 && checkedSha256(backends.sha256)
  if (secp256k1) chosen.secp256k1 = { name: secp256k1.name, ecc: pick(secp256k1.ecc) }
  if (ed25519) chosen.ed25519 = ed25519
  if (sha256) chosen.sha256 = sha256
}

/** Which backend each primitive uses now. */
export function activeBackends(): ActiveBackends {
  return {
    secp256k1: chosen.secp256k1?.name ?? 'unused',
    ed25519: chosen.ed25519?.name ?? 'unused',
    sha256: chosen.sha256?.name ?? 'unused',
  }
}
