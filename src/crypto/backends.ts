import { type Ed25519Backend, ed25519, useEd25519 } from './ed25519.js'
import { activeSecp256k1, type Secp256k1Backend, useSecp256k1 } from './secp256k1.js'
import { activeSha256, type Sha256Backend, useSha256 } from './sha256.js'

/** Backends a wallet brings: a React Native native module, WASM an extension loads its own way. */
export type CryptoBackends = {
  secp256k1?: Secp256k1Backend
  ed25519?: Ed25519Backend
  sha256?: Sha256Backend
}

/** The name of each active backend, e.g. `{ secp256k1: 'tiny-secp256k1', ed25519: 'node:crypto', … }`. */
export type ActiveBackends = { secp256k1: string; ed25519: string; sha256: string }

/**
 * Installs the given backends for every namespace in this JavaScript realm (the crypto layer is shared).
 * Each must reproduce its known answers first, or this throws a TypeError naming it and nothing changes.
 */
export function useCrypto(backends: CryptoBackends): void {
  // Each `use…` checks before installing; the dry run of all first keeps a bad one from leaving a half-change.
  const { secp256k1, ed25519: edwards, sha256 } = backends
  const steps = [
    secp256k1 && (() => useSecp256k1(secp256k1)),
    edwards && (() => useEd25519(edwards)),
    sha256 && (() => useSha256(sha256)),
  ].filter((step) => step !== undefined)
  const previous = { secp256k1: activeSecp256k1(), ed25519: ed25519(), sha256: activeSha256() }
  try {
    for (const step of steps) step()
  } catch (error) {
    useSecp256k1(previous.secp256k1)
    useEd25519(previous.ed25519)
    useSha256(previous.sha256)
    throw error
  }
}

/** Which backend each primitive uses now (choosing them if nothing has yet). */
export function activeBackends(): ActiveBackends {
  return { secp256k1: activeSecp256k1().name, ed25519: ed25519().name, sha256: activeSha256().name }
}
