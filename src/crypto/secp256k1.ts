import * as bitcoinerlab from '@bitcoinerlab/secp256k1'
import { nodeRequire } from './nodeRequire.js'

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

type RecoveryId = 0 | 1 | 2 | 3
type XOnlyTweakResult = { parity: 1 | 0; xOnlyPubkey: Uint8Array }

/** What bip32, bitcoinjs-lib (`initEccLib`) and our own code need; both libraries implement it as is. */
export type Secp256k1 = {
  isPoint(p: Uint8Array): boolean
  isXOnlyPoint(p: Uint8Array): boolean
  isPrivate(d: Uint8Array): boolean
  pointFromScalar(d: Uint8Array, compressed?: boolean): Uint8Array | null
  pointAddScalar(p: Uint8Array, tweak: Uint8Array, compressed?: boolean): Uint8Array | null
  pointCompress(p: Uint8Array, compressed?: boolean): Uint8Array
  privateAdd(d: Uint8Array, tweak: Uint8Array): Uint8Array | null
  privateNegate(d: Uint8Array): Uint8Array
  xOnlyPointAddTweak(p: Uint8Array, tweak: Uint8Array): XOnlyTweakResult | null
  /** ECDSA over a 32-byte hash: 64-byte compact r‖s, RFC 6979 nonce (plus `e` as extra entropy), low-S. */
  sign(h: Uint8Array, d: Uint8Array, e?: Uint8Array): Uint8Array
  signRecoverable(
    h: Uint8Array,
    d: Uint8Array,
    e?: Uint8Array,
  ): { signature: Uint8Array; recoveryId: RecoveryId }
  recover(
    h: Uint8Array,
    signature: Uint8Array,
    recoveryId: RecoveryId,
    compressed?: boolean,
  ): Uint8Array | null
  verify(h: Uint8Array, Q: Uint8Array, signature: Uint8Array, strict?: boolean): boolean
  /** BIP-340 over a 32-byte message with 32 bytes of auxiliary randomness `e`. */
  signSchnorr(h: Uint8Array, d: Uint8Array, e?: Uint8Array): Uint8Array
  verifySchnorr(h: Uint8Array, Q: Uint8Array, signature: Uint8Array): boolean
}

/** A named implementation; `name` is what `wallet.backends()` reports. */
export type Secp256k1Backend = { readonly name: string; readonly ecc: Secp256k1 }

export const PORTABLE_SECP256K1 = '@bitcoinerlab/secp256k1'

/** Copies exactly the interface's functions, so nothing else of a module leaks through. */
function pick(module: Secp256k1): Secp256k1 {
  return {
    isPoint: module.isPoint,
    isXOnlyPoint: module.isXOnlyPoint,
    isPrivate: module.isPrivate,
    pointFromScalar: module.pointFromScalar,
    pointAddScalar: module.pointAddScalar,
    pointCompress: module.pointCompress,
    privateAdd: module.privateAdd,
    privateNegate: module.privateNegate,
    xOnlyPointAddTweak: module.xOnlyPointAddTweak,
    sign: module.sign,
    signRecoverable: module.signRecoverable,
    recover: module.recover,
    verify: module.verify,
    signSchnorr: module.signSchnorr,
    verifySchnorr: module.verifySchnorr,
  }
}

/** The audited pure-JS backend; loads everywhere. */
export const portableSecp256k1: Secp256k1Backend = {
  name: PORTABLE_SECP256K1,
  ecc: pick(bitcoinerlab as unknown as Secp256k1),
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

// Known answers every backend must reproduce before it is used: the public key of 1 (the generator), and
// key 1's RFC 6979 ECDSA and BIP-340 (zero aux) signatures of the 32-byte hash 2, computed with @noble/curves.
const one = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 1 : 0))
const two = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 2 : 0))
const known = {
  generator: '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
  ecdsa:
    '56166f3a4b7d34af3bcc6c8a92a8f3c40309db9f22d7c83f8c5b87b374fd8047348ebb966e4e4c5ab15c43277b857c2844e45958f79b1e511163ca560b2ab246',
  schnorr:
    '1a3cb8b0e4c212913941aee1ee350db169b0e4d4192d5a03fed34340c16c0617389e9af7001c4f87dc218aef6ce20480a23d3fd9302e9b07fa8f7246a5851244',
}

const toHex = (bytes: Uint8Array | null): string =>
  bytes === null ? 'null' : Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')

/** Whether a backend reproduces the known answers (a wrong or half-wired native module fails here). */
export function passesKnownAnswers(ecc: Secp256k1): boolean {
  try {
    const generator = ecc.pointFromScalar(one, true)
    const signature = ecc.sign(two, one)
    return (
      toHex(generator) === known.generator &&
      toHex(signature) === known.ecdsa &&
      toHex(ecc.signSchnorr(two, one, new Uint8Array(32))) === known.schnorr &&
      generator !== null &&
      ecc.verify(two, generator, signature) &&
      !ecc.verify(one, generator, signature)
    )
  } catch {
    return false
  }
}

let active: Secp256k1Backend | undefined

function choose(): Secp256k1Backend {
  const forced = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
    ?.WALLET_RPC_SECP256K1
  return (forced === 'noble' ? undefined : nodeWasmSecp256k1()) ?? portableSecp256k1
}

/** The active backend, chosen at the first call. */
export function activeSecp256k1(): Secp256k1Backend {
  active ??= choose()
  return active
}

/**
 * Makes `backend` the one every namespace uses from now on (process-wide: the crypto layer is shared).
 * Throws a TypeError when it does not reproduce the known answers, so a broken backend is found when the
 * wallet starts, never inside a request.
 */
export function useSecp256k1(backend: Secp256k1Backend): void {
  if (typeof backend?.name !== 'string' || backend.ecc === null || typeof backend.ecc !== 'object')
    throw new TypeError('a secp256k1 backend is { name, ecc } with the Secp256k1 functions')
  if (!passesKnownAnswers(backend.ecc))
    throw new TypeError(
      `secp256k1 backend "${backend.name}" does not reproduce the known answers (RFC 6979, BIP-340)`,
    )
  active = { name: backend.name, ecc: pick(backend.ecc) }
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
