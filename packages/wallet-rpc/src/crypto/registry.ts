/**
 * Which crypto backend each primitive uses, and the checks an injected one must pass. This module loads no
 * crypto library, so the root entry (`useCrypto`, `wallet.backends()`) stays free of them; the modules that
 * implement each primitive (secp256k1.ts, ed25519.ts, sha256.ts) fill a slot at first use.
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

/**
 * One Ed25519 signing key, imported once from its 32-byte seed (the RFC 8032 private key). `sign` answers
 * synchronously, or with a promise where the platform's Ed25519 is asynchronous (WebCrypto).
 */
export type Ed25519Key = {
  readonly publicKey: Uint8Array
  sign(message: Uint8Array): Uint8Array | Promise<Uint8Array>
}

/**
 * An Ed25519 implementation. `node:crypto` (OpenSSL) signs about 100x faster than tweetnacl, so it is used
 * wherever it exists; browsers and extension workers sign with WebCrypto's Ed25519; @noble/curves (pure
 * JS), then tweetnacl, cover the rest (React Native); a wallet can inject its own (`useCrypto({ ed25519 })`,
 * e.g. a React Native native module; an injected one signs synchronously, since its known answers are
 * checked when it is installed). All produce the same bytes, because Ed25519 signatures are deterministic
 * (test/ton/keys.test.ts, test/crypto/backends.test.ts and test/crypto/ed25519.property.test.ts prove it).
 */
export type Ed25519Backend = {
  readonly name: string
  fromSeed(seed: Uint8Array): Ed25519Key
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean
}

/** A SHA-256 implementation of one input; `name` is what `wallet.backends()` reports. */
export type Sha256Backend = { readonly name: string; hash(data: Uint8Array): Uint8Array }

/** Copies exactly the interface's functions, so nothing else of a module leaks through. */
export function pick(module: Secp256k1): Secp256k1 {
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

/** The backend of each primitive, once chosen (by first use or by injection). */
export const chosen: { secp256k1?: Secp256k1Backend; ed25519?: Ed25519Backend; sha256?: Sha256Backend } = {}

const toHex = (bytes: Uint8Array | null): string =>
  bytes === null ? 'null' : Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
const fromHex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16))

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

/** Whether a backend reproduces the known answers (a wrong or half-wired native module fails here). */
export function secp256k1PassesKnownAnswers(ecc: Secp256k1): boolean {
  try {
    const generator = ecc.pointFromScalar(one, true)
    const signature = ecc.sign(two, one)
    return (
      toHex(generator) === known.generator &&
      toHex(signature) === known.ecdsa &&
      toHex(ecc.signSchnorr(two, one, new Uint8Array(32))) === known.schnorr &&
      generator !== null &&
      ecc.verify(two, generator, signature) &&
      !ecc.verify(one, generator, signature) &&
      // bip122 verifies its own signatures against uncompressed keys (no square root per check).
      ecc.verify(two, ecc.pointCompress(generator, false), signature)
    )
  } catch {
    return false
  }
}

/** Whether a backend reproduces RFC 8032 §7.1 TEST 2 (key, signature, and verification of both). */
export function ed25519PassesKnownAnswers(backend: Ed25519Backend): boolean {
  try {
    const key = backend.fromSeed(fromHex(rfc8032Test2.seed))
    const signature = key.sign(Uint8Array.of(0x72))
    // Checked here synchronously; an asynchronous backend (WebCrypto) has ed25519SignsKnownAnswer.
    if (!(signature instanceof Uint8Array)) return false
    return (
      toHex(key.publicKey) === rfc8032Test2.publicKey &&
      toHex(signature) === rfc8032Test2.signature &&
      backend.verify(key.publicKey, Uint8Array.of(0x72), signature) &&
      !backend.verify(key.publicKey, Uint8Array.of(0x73), signature)
    )
  } catch {
    return false
  }
}

/** RFC 8032 §7.1 TEST 2's signature, for a backend that signs asynchronously (WebCrypto). */
export async function ed25519SignsKnownAnswer(
  sign: (seed: Uint8Array, message: Uint8Array) => Promise<Uint8Array>,
): Promise<boolean> {
  try {
    return toHex(await sign(fromHex(rfc8032Test2.seed), Uint8Array.of(0x72))) === rfc8032Test2.signature
  } catch {
    return false
  }
}

const rfc8032Test2 = {
  seed: '4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb',
  publicKey: '3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c',
  signature:
    '92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00',
}

// FIPS 180-2 appendix B.1: SHA-256("abc").
const abcDigest = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'

/**
 * The backend `use…` will install, after checking it: a TypeError naming it when it does not reproduce its
 * known answers, so a broken backend is found when the wallet starts, never inside a request.
 */
export function checkedSecp256k1(backend: Secp256k1Backend): Secp256k1Backend {
  if (typeof backend?.name !== 'string' || backend.ecc === null || typeof backend.ecc !== 'object')
    throw new TypeError('a secp256k1 backend is { name, ecc } with the Secp256k1 functions')
  if (!secp256k1PassesKnownAnswers(backend.ecc))
    throw new TypeError(
      `secp256k1 backend "${backend.name}" does not reproduce the known answers (RFC 6979, BIP-340)`,
    )
  return backend
}

export function checkedEd25519(backend: Ed25519Backend): Ed25519Backend {
  if (
    typeof backend?.name !== 'string' ||
    typeof backend.fromSeed !== 'function' ||
    typeof backend.verify !== 'function'
  )
    throw new TypeError('an Ed25519 backend is { name, fromSeed, verify }')
  if (!ed25519PassesKnownAnswers(backend))
    throw new TypeError(`Ed25519 backend "${backend.name}" does not reproduce RFC 8032's known answers`)
  return backend
}

export function checkedSha256(backend: Sha256Backend): Sha256Backend {
  let digest: string | undefined
  try {
    digest = toHex(backend.hash(new TextEncoder().encode('abc')))
  } catch {}
  if (digest !== abcDigest)
    throw new TypeError(`SHA-256 backend "${String(backend?.name)}" does not hash FIPS 180-2's "abc" right`)
  return backend
}
