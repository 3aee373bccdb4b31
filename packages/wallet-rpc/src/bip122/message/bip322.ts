import { concatBytes } from '@noble/hashes/utils.js'
import { constantSha256, sha256 } from '../../crypto/sha256.js'
import { compactSize, p2pkhScript, sha256d, taggedHash, taggedHashPrefix } from '../encoding.js'

/**
 * BIP-322 "simple" signatures built directly: the virtual `to_spend` / `to_sign` transactions have one input
 * and one output with fixed fields, so their txid and sighash are a handful of hashes over constant bytes.
 * No PSBT, no transaction objects (bip322-js takes about 1 ms per signature that way, plus 9 ms of ECPair
 * setup). Only the message hash changes between two messages of one address, so `to_spend` and the sighash
 * preimage are serialized once per address and each message only writes its hashes into them: 7 SHA-256
 * calls for P2WPKH (the minimum: each hash feeds the next), 5 for P2TR, nothing serialized per message.
 * `test/bip122/signMessage.bip322.test.ts` proves the bytes equal the vectors and bip322-js.
 */

const zero4 = new Uint8Array(4)
const zero8 = new Uint8Array(8)
const zero32 = new Uint8Array(32)
/** to_sign's only output: value 0, script OP_RETURN. */
const toSignOutput = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x6a)
const toSignOutputs = concatBytes(Uint8Array.of(0x01), toSignOutput)
// Midstates that are the same for every message: computed once, at import (so without choosing a backend).
const hashSequenceV0 = constantSha256(constantSha256(zero4))
const hashOutputsV0 = constantSha256(constantSha256(toSignOutput))
const shaAmountsV1 = constantSha256(zero8)
const shaSequencesV1 = constantSha256(zero4)
const shaOutputsV1 = constantSha256(toSignOutput)

/** `sha256_tag("BIP0322-signed-message", message)`: the message hash BIP-322 commits to. */
export function bip322MessageHash(message: Uint8Array): Uint8Array {
  return taggedHash('BIP0322-signed-message', message)
}

/** Where the message hash sits in serialized `to_spend`: after version, input count, prevout and `0x22 0x00 0x20`. */
const messageHashAt = 4 + 1 + 32 + 4 + 3

/** Serialized `to_spend` paying `scriptPubKey`, with zeros where the message hash goes. */
function toSpendTemplate(scriptPubKey: Uint8Array): Uint8Array {
  return concatBytes(
    zero4, // version 0
    Uint8Array.of(0x01), // one input
    zero32, // prevout hash 0…0
    Uint8Array.of(0xff, 0xff, 0xff, 0xff), // prevout index 0xFFFFFFFF
    Uint8Array.of(0x22, 0x00, 0x20), // scriptSig: OP_0 PUSH32 <message hash>
    zero32, // message hash, at `messageHashAt`
    zero4, // sequence 0
    Uint8Array.of(0x01), // one output
    zero8, // value 0
    compactSize(scriptPubKey.length),
    scriptPubKey,
    zero4, // locktime 0
  )
}

/** Writes the message hash into a `to_spend` template and returns the txid (internal byte order). */
function txidOf(toSpend: Uint8Array, messageHash: Uint8Array): Uint8Array {
  toSpend.set(messageHash, messageHashAt)
  return sha256d(toSpend)
}

/** txid (internal byte order) of `to_spend` for the message hash and the signer's scriptPubKey. */
export function toSpendTxid(messageHash: Uint8Array, scriptPubKey: Uint8Array): Uint8Array {
  return txidOf(toSpendTemplate(scriptPubKey), messageHash)
}

/** Serialized `to_sign` without witness (version 0, one input spending to_spend:0, one OP_RETURN output). */
export function toSignTransaction(toSpend: Uint8Array): Uint8Array {
  return concatBytes(
    zero4,
    Uint8Array.of(0x01),
    toSpend,
    zero4,
    Uint8Array.of(0x00),
    zero4,
    toSignOutputs,
    zero4,
  )
}

/** The sighash of `to_sign`'s input for one signing address, as a function of the BIP-322 message hash. */
export type Bip322Sighash = (messageHash: Uint8Array) => Uint8Array

/** In the BIP-143 preimage: hashPrevouts after the version, the outpoint after hashSequence. */
const hashPrevoutsAt = 4
const outpointAt = 4 + 32 + 32

/**
 * BIP-143 SIGHASH_ALL digest of to_sign's input for a P2WPKH key (native or nested in P2SH): `scriptPubKey`
 * is what to_spend pays, `publicKeyHash` the key's hash160.
 */
export function segwitV0Sighash(scriptPubKey: Uint8Array, publicKeyHash: Uint8Array): Bip322Sighash {
  const toSpend = toSpendTemplate(scriptPubKey)
  const scriptCode = p2pkhScript(publicKeyHash)
  const preimage = concatBytes(
    zero4, // version 0
    zero32, // hashPrevouts = sha256d(outpoint), at `hashPrevoutsAt`
    hashSequenceV0,
    zero32, // outpoint: to_spend's txid, at `outpointAt`
    zero4, //   and output 0
    compactSize(scriptCode.length),
    scriptCode,
    zero8, // amount 0
    zero4, // sequence 0
    hashOutputsV0,
    zero4, // locktime 0
    Uint8Array.of(1, 0, 0, 0), // SIGHASH_ALL
  )
  const outpoint = preimage.subarray(outpointAt, outpointAt + 36)
  // The templates are filled in place: the function is synchronous, so no other message's bytes interleave.
  return (messageHash) => {
    preimage.set(txidOf(toSpend, messageHash), outpointAt)
    preimage.set(sha256d(outpoint), hashPrevoutsAt)
    return sha256d(preimage)
  }
}

/** In the TapSighash preimage (after its 64-byte tag prefix): sha_prevouts after epoch, hash_type, version, locktime. */
const shaPrevoutsAt = 64 + 1 + 1 + 4 + 4

/** BIP-341 SIGHASH_DEFAULT key-path digest of to_sign's input spending `scriptPubKey`. */
export function taprootSighash(scriptPubKey: Uint8Array): Bip322Sighash {
  const toSpend = toSpendTemplate(scriptPubKey)
  const preimage = concatBytes(
    taggedHashPrefix('TapSighash'),
    Uint8Array.of(0x00, 0x00), // epoch 0, hash_type DEFAULT
    zero4, // version 0
    zero4, // locktime 0
    zero32, // sha_prevouts = sha256(outpoint), at `shaPrevoutsAt`
    shaAmountsV1,
    sha256(compactSize(scriptPubKey.length), scriptPubKey), // sha_scriptpubkeys
    shaSequencesV1,
    shaOutputsV1,
    Uint8Array.of(0x00), // spend_type: key path, no annex
    zero4, // input index 0
  )
  const outpoint = new Uint8Array(36) // to_spend's txid, output 0
  // Filled in place, as in `segwitV0Sighash`.
  return (messageHash) => {
    outpoint.set(txidOf(toSpend, messageHash))
    preimage.set(sha256(outpoint), shaPrevoutsAt)
    return sha256(preimage)
  }
}

/** The witness stack serialized as BIP-322 simple signatures carry it: count, then each item with its length. */
export function serializeWitness(items: readonly Uint8Array[]): Uint8Array {
  const parts = [compactSize(items.length)]
  for (const item of items) parts.push(compactSize(item.length), item)
  return concatBytes(...parts)
}
