import { timeSlicer } from '../../core/yielding.js'
import { ecc } from '../../crypto/secp256k1.js'
import { hash160, p2pkhScript } from '../encoding.js'
import type { Account, AccountAddress } from '../types.js'
import { concatBytes } from './bytes.js'
import { encodeDerSignature, pushData } from './scripts.js'
import { createSighashCache, type Prevout, SIGHASH_DEFAULT, type SighashCache } from './sighash.js'
import type { Transaction } from './transaction.js'

/**
 * Signs inputs the wallet owns, one signature hash per input from a shared midstate cache, so a
 * transaction of n inputs costs n signatures plus O(n) hashing. Keys are reached only through the
 * `Account` (the key provider); this module never sees a private key.
 */

export type InputToSign = { index: number; owner: AccountAddress; hashType: number }

export type InputSignature =
  /** DER signature with its hash type byte appended, and the key that made it. */
  | { index: number; kind: 'ecdsa'; publicKey: Uint8Array; signature: Uint8Array }
  /** 64 bytes for SIGHASH_DEFAULT, else 65 with the hash type byte. */
  | { index: number; kind: 'schnorr'; signature: Uint8Array }

/** BIP-143 scriptCode of a P2WPKH/P2SH-P2WPKH key (the P2PKH script of its hash), computed once per address. */
const scriptCodes = new WeakMap<AccountAddress, Uint8Array>()
function witnessScriptCode(owner: AccountAddress): Uint8Array {
  let code = scriptCodes.get(owner)
  if (!code) {
    code = p2pkhScript(hash160(owner.publicKey))
    scriptCodes.set(owner, code)
  }
  return code
}

/** The digest input `index` signs, for the script type of its owner. */
function signatureHash(cache: SighashCache, input: InputToSign, prevout: Prevout): Uint8Array {
  const { owner, index, hashType } = input
  switch (owner.addressType) {
    case 'p2pkh':
      return cache.legacy(index, owner.scriptPubKey, hashType)
    case 'p2wpkh':
    case 'p2sh-p2wpkh':
      return cache.witnessV0(index, witnessScriptCode(owner), prevout.value, hashType)
    case 'p2tr':
      return cache.taprootKeyPath(index, hashType)
  }
}

export type SignOptions = {
  /** BIP-340 aux randomness per signature; fresh random bytes when absent (tests pass zeros). */
  auxRand?: Uint8Array
  /** A cache already built for this transaction and prevouts (e.g. by a verifier). */
  cache?: SighashCache
}

export async function signInputs(
  account: Account,
  tx: Transaction,
  prevouts: readonly (Prevout | undefined)[],
  inputs: readonly InputToSign[],
  options: SignOptions = {},
): Promise<InputSignature[]> {
  const cache = options.cache ?? createSighashCache(tx, prevouts)
  // Three passes (hash all, sign all, encode all) rather than one loop per input: other work between two
  // secp256k1 calls makes the next call slower (measured: a 3 µs double SHA-256 between WASM signatures
  // added ~7 µs to each, the code and tables evicting each other from the CPU caches); in passes it does not.
  // A hash that cannot be computed (e.g. SIGHASH_SINGLE without its output) now fails before any signature.
  // Each pass gives the event loop a turn every few milliseconds (core/yielding.ts): 3000 inputs must not
  // freeze a wallet's UI for a second.
  const pause = timeSlicer()
  const digests: Uint8Array[] = []
  for (const input of inputs) {
    const prevout = prevouts[input.index]
    if (!prevout) throw new Error(`input ${input.index}: prevout unknown`)
    digests.push(signatureHash(cache, input, prevout))
    await pause()
  }
  const signed: Uint8Array[] = []
  for (const [i, input] of inputs.entries()) {
    await pause()
    signed.push(
      input.owner.addressType === 'p2tr'
        ? await account.signTaproot(input.owner, digests[i]!, options.auxRand)
        : await account.signEcdsa(input.owner, digests[i]!),
    )
  }
  return inputs.map((input, i): InputSignature => {
    const signature = signed[i]!
    if (input.owner.addressType === 'p2tr') {
      return {
        index: input.index,
        kind: 'schnorr',
        signature:
          input.hashType === SIGHASH_DEFAULT
            ? signature
            : concatBytes(signature, Uint8Array.of(input.hashType)),
      }
    }
    return {
      index: input.index,
      kind: 'ecdsa',
      publicKey: input.owner.publicKey,
      signature: encodeDerSignature(signature, input.hashType),
    }
  })
}

/**
 * Checks each signature against its digest with the wallet's secp256k1 backend before anything is
 * broadcast: a faulty or compromised signer must not get a bad transaction (or a fault-induced
 * signature) onto the network.
 */
export async function verifyInputSignatures(
  tx: Transaction,
  prevouts: readonly (Prevout | undefined)[],
  inputs: readonly InputToSign[],
  signatures: readonly InputSignature[],
  cache: SighashCache = createSighashCache(tx, prevouts),
): Promise<boolean> {
  const pause = timeSlicer()
  for (const [i, input] of inputs.entries()) {
    await pause()
    if (!verifiesInput(cache, input, signatures[i], prevouts[input.index])) return false
  }
  return true
}

function verifiesInput(
  cache: SighashCache,
  input: InputToSign,
  signature: InputSignature | undefined,
  prevout: Prevout | undefined,
): boolean {
  if (!signature || !prevout || signature.index !== input.index) return false
  const digest = signatureHash(cache, input, prevout)
  if (signature.kind === 'schnorr') {
    const outputKey = input.owner.outputKey
    return (
      outputKey !== undefined && ecc.verifySchnorr(digest, outputKey, signature.signature.subarray(0, 64))
    )
  }
  const compact = derToCompact(signature.signature.subarray(0, -1))
  return compact !== undefined && ecc.verify(digest, uncompressed(signature.publicKey), compact, true)
}

/**
 * The uncompressed form of a public key, once per key object (an address's key is one object): verifying
 * against it skips the square root that decompression costs on every call (about a tenth of a verification
 * with tiny-secp256k1).
 */
const uncompressedKeys = new WeakMap<Uint8Array, Uint8Array>()
function uncompressed(publicKey: Uint8Array): Uint8Array {
  let point = uncompressedKeys.get(publicKey)
  if (point === undefined) {
    point = ecc.pointCompress(publicKey, false)
    uncompressedKeys.set(publicKey, point)
  }
  return point
}

/** The final scriptSig and witness that spend an input of ours with its signature. */
export function finalInputScripts(
  owner: AccountAddress,
  signature: InputSignature,
): { scriptSig: Uint8Array; witness: Uint8Array[] } {
  if (signature.kind === 'schnorr') return { scriptSig: new Uint8Array(0), witness: [signature.signature] }
  switch (owner.addressType) {
    case 'p2pkh':
      return { scriptSig: concatBytes(pushData(signature.signature), pushData(owner.publicKey)), witness: [] }
    case 'p2sh-p2wpkh':
      // Every P2SH-P2WPKH address carries its redeem script (encoding.ts derives it with the address).
      return { scriptSig: pushData(owner.redeemScript!), witness: [signature.signature, owner.publicKey] }
    default:
      return { scriptSig: new Uint8Array(0), witness: [signature.signature, owner.publicKey] }
  }
}

/** Strict DER → 64-byte r‖s, or undefined when the encoding is not canonical. */
export function derToCompact(der: Uint8Array): Uint8Array | undefined {
  if (der.length < 8 || der.length > 72 || der[0] !== 0x30 || der[1] !== der.length - 2) return undefined
  const read = (offset: number): [Uint8Array, number] | undefined => {
    if (der[offset] !== 0x02) return undefined
    const length = der[offset + 1]!
    const start = offset + 2
    if (length === 0 || length > 33 || start + length > der.length) return undefined
    const value = der.subarray(start, start + length)
    if (value[0]! >= 0x80) return undefined
    if (length > 1 && value[0] === 0 && value[1]! < 0x80) return undefined
    return [value, start + length]
  }
  const r = read(2)
  if (!r) return undefined
  const s = read(r[1])
  if (!s || s[1] !== der.length) return undefined
  const out = new Uint8Array(64)
  const place = (value: Uint8Array, at: number) => {
    const trimmed = value.length === 33 ? value.subarray(1) : value
    if (trimmed.length > 32) return false
    out.set(trimmed, at + 32 - trimmed.length)
    return true
  }
  return place(r[0], 0) && place(s[0], 32) ? out : undefined
}
