import { nodeRequire } from './nodeRequire.js'
import { portableSecp256k1Library } from './portableSecp256k1.js'
import { checkedSecp256k1, chosen, pick, type Secp256k1, type Secp256k1Backend } from './registry.js'

export type { Secp256k1, Secp256k1Backend } from './registry.js'

/**
 * The secp256k1 backend bip122 (and eip155 for its own keys) uses, chosen at first use, never at import:
 *
 * - a backend the wallet injected (`useCrypto({ secp256k1 })`: a React Native native module, WASM an
 *   extension loads its own way), after it reproduced the known answers below;
 * - in Node, tiny-secp256k1 (libsecp256k1 compiled to WASM), about 4x faster for ECDSA and 10x for Schnorr;
 *   it is reached with `require` from `node:module`, so bundles for browsers and Hermes never see it or its
 *   `.wasm` file, and `WALLET_RPC_SECP256K1=noble` turns it off;
 * - everywhere else, the audited portable @bitcoinerlab/secp256k1 (@noble/curves).
 *
 * All expose the same functions with the same results (RFC 6979 nonces, low-S), which
 * `test/crypto/secp256k1.test.ts` proves on vectors and random inputs.
 */

export const PORTABLE_SECP256K1 = '@bitcoinerlab/secp256k1'

let portableEcc: Secp256k1 | undefined

/** The audited pure-JS backend; loads everywhere (in Node at its first use: see portableSecp256k1.ts). */
export const portableSecp256k1: Secp256k1Backend = {
  name: PORTABLE_SECP256K1,
  get ecc() {
    portableEcc ??= pick(portableSecp256k1Library())
    return portableEcc
  },
}

/** tiny-secp256k1 through Node's `require`, or undefined outside Node or when it does not load. */
export function nodeWasmSecp256k1(): Secp256k1Backend | undefined {
  const module = nodeRequire<Secp256k1>('tiny-secp256k1')
  return module === undefined ? undefined : { name: 'tiny-secp256k1', ecc: pick(module) }
}

/** Loads one backend by name; rejects when it cannot load here. Kept for tests and benchmarks. */
export async function loadSecp256k1(
  name: 'tiny-secp256k1' | typeof PORTABLE_SECP256K1,
): Promise<Secp256k1Backend> {
  const backend = name === PORTABLE_SECP256K1 ? portableSecp256k1 : nodeWasmSecp256k1()
  if (backend === undefined) throw new Error(`${name} does not load here`)
  return backend
}

function choose(): Secp256k1Backend {
  const forced = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
    ?.WALLET_RPC_SECP256K1
  return (forced === 'noble' ? undefined : nodeWasmSecp256k1()) ?? portableSecp256k1
}

/** The active backend, chosen at the first call. */
export function activeSecp256k1(): Secp256k1Backend {
  chosen.secp256k1 ??= choose()
  return chosen.secp256k1
}

/** Makes `backend` the one every namespace uses from now on (process-wide), after it passed the known answers. */
export function useSecp256k1(backend: Secp256k1Backend): void {
  const checked = checkedSecp256k1(backend)
  chosen.secp256k1 = { name: checked.name, ecc: pick(checked.ecc) }
}

/** The active backend as a stable object: `secp256k1Backend.name` and `.ecc` read the current choice. */
export const secp256k1Backend: Secp256k1Backend = {
  get name() {
    return activeSecp256k1().name
  },
  get ecc() {
    return activeSecp256k1().ecc
  },
}

/** The Secp256k1 functions of the active backend, for code that holds a reference from import time. */
export const ecc: Secp256k1 = {
  isPoint: (p) => activeSecp256k1().ecc.isPoint(p),
  isXOnlyPoint: (p) => activeSecp256k1().ecc.isXOnlyPoint(p),
  isPrivate: (d) => activeSecp256k1().ecc.isPrivate(d),
  pointFromScalar: (d, compressed) => activeSecp256k1().ecc.pointFromScalar(d, compressed),
  pointAddScalar: (p, tweak, compressed) => activeSecp256k1().ecc.pointAddScalar(p, tweak, compressed),
  pointCompress: (p, compressed) => activeSecp256k1().ecc.pointCompress(p, compressed),
  privateAdd: (d, tweak) => activeSecp256k1().ecc.privateAdd(d, tweak),
  privateNegate: (d) => activeSecp256k1().ecc.privateNegate(d),
  xOnlyPointAddTweak: (p, tweak) => activeSecp256k1().ecc.xOnlyPointAddTweak(p, tweak),
  sign: (h, d, e) => activeSecp256k1().ecc.sign(h, d, e),
  signRecoverable: (h, d, e) => activeSecp256k1().ecc.signRecoverable(h, d, e),
  recover: (h, signature, recoveryId, compressed) =>
    activeSecp256k1().ecc.recover(h, signature, recoveryId, compressed),
  verify: (h, Q, signature, strict) => activeSecp256k1().ecc.verify(h, Q, signature, strict),
  signSchnorr: (h, d, e) => activeSecp256k1().ecc.signSchnorr(h, d, e),
  verifySchnorr: (h, Q, signature) => activeSecp256k1().ecc.verifySchnorr(h, Q, signature),
}
