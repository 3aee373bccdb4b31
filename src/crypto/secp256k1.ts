/**
 * The secp256k1 backend bip122 (and eip155 for its own keys) uses. tiny-secp256k1 (libsecp256k1 compiled to WASM) is about
 * 4x faster for ECDSA and 10x for Schnorr than the portable @bitcoinerlab/secp256k1 (@noble/curves); both
 * expose the same functions with the same results (RFC 6979 nonces, low-S), which `test/crypto/secp256k1.test.ts`
 * proves on vectors. The WASM one is used when it loads; `WALLET_RPC_SECP256K1=noble` forces the fallback.
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

export type Secp256k1Backend = { name: 'tiny-secp256k1' | '@bitcoinerlab/secp256k1'; ecc: Secp256k1 }

/** Loads one backend by name; rejects when it cannot load here (e.g. no WebAssembly). */
export async function loadSecp256k1(name: Secp256k1Backend['name']): Promise<Secp256k1Backend> {
  if (name === 'tiny-secp256k1') {
    const module = (await import('tiny-secp256k1')) as unknown as Secp256k1
    return { name, ecc: pick(module) }
  }
  const module = (await import('@bitcoinerlab/secp256k1')) as unknown as Secp256k1 & { default?: Secp256k1 }
  return { name, ecc: pick(module.default ?? module) }
}

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

async function loadPreferred(): Promise<Secp256k1Backend> {
  const forced = typeof process === 'undefined' ? undefined : process.env.WALLET_RPC_SECP256K1
  if (forced !== 'noble') {
    try {
      return await loadSecp256k1('tiny-secp256k1')
    } catch {
      // No WebAssembly or no file system for the .wasm: the portable backend gives the same results.
    }
  }
  return loadSecp256k1('@bitcoinerlab/secp256k1')
}

/** The backend chosen at load time. */
export const secp256k1Backend: Secp256k1Backend = await loadPreferred()
export const ecc: Secp256k1 = secp256k1Backend.ecc
