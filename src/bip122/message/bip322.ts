import { concatBytes } from '@noble/hashes/utils.js'
import { sha256 } from '../../crypto/sha256.js'
import { compactSize, p2pkhScript, sha256d, taggedHash } from '../encoding.js'

/**
 * BIP-322 "simple" signatures built directly: the virtual `to_spend` / `to_sign` transactions have one input
 * and one output with fixed fields, so their txid and sighash are a handful of hashes over constant bytes.
 * No PSBT, no transaction objects (bip322-js takes about 1 ms per signature that way, plus 9 ms of ECPair
 * setup). `test/bip122/signMessage.bip322.test.ts` proves the bytes equal bip322-js on the vectors.
 */

const zero4 = new Uint8Array(4)
const zero8 = new Uint8Array(8)
const sighashAll = Uint8Array.of(1, 0, 0, 0)
/** to_sign's only output: value 0, script OP_RETURN. */
const toSignOutput = Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x6a)
const toSignOutputs = concatBytes(Uint8Array.of(0x01), toSignOutput)
// Midstates that are the same for every message: computed once.
const hashSequenceV0 = sha256d(zero4)
const hashOutputsV0 = sha256d(toSignOutput)
const shaAmountsV1 = sha256(zero8)
const shaSequencesV1 = sha256(zero4)
const shaOutputsV1 = sha256(toSignOutput)

/** `sha256_tag("BIP0322-signed-message", message)`: the message hash BIP-322 commits to. */
export function bip322MessageHash(message: Uint8Array): Uint8Array {
  return taggedHash('BIP0322-signed-message', message)
}

/** txid (internal byte order) of `to_spend` for the message hash and the signer's scriptPubKey. */
export function toSpendTxid(messageHash: Uint8Array, scriptPubKey: Uint8Array): Uint8Array {
  return sha256d(
    zero4, // version 0
    Uint8Array.of(0x01), // one input
    new Uint8Array(32), // prevout hash 0…0
    Uint8Array.of(0xff, 0xff, 0xff, 0xff), // prevout index 0xFFFFFFFF
    Uint8Array.of(0x22, 0x00, 0x20), // scriptSig: OP_0 PUSH32 <message hash>
    messageHash,
    zero4, // sequence 0
    Uint8Array.of(0x01), // one output
    zero8, // value 0
    compactSize(scriptPubKey.length),
    scriptPubKey,
    zero4, // locktime 0
  )
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

/** BIP-143 SIGHASH_ALL digest of to_sign's input for a P2WPKH key (native or nested in P2SH). */
export function segwitV0Sighash(toSpend: Uint8Array, publicKeyHash: Uint8Array): Uint8Array {
  const outpoint = concatBytes(toSpend, zero4)
  const scriptCode = p2pkhScript(publicKeyHash)
  return sha256d(
    zero4, // version 0
    sha256d(outpoint), // hashPrevouts
    hashSequenceV0,
    outpoint,
    compactSize(scriptCode.length),
    scriptCode,
    zero8, // amount 0
    zero4, // sequence 0
    hashOutputsV0,
    zero4, // locktime 0
    sighashAll,
  )
}

/** BIP-341 SIGHASH_DEFAULT key-path digest of to_sign's input spending `scriptPubKey`. */
export function taprootSighash(toSpend: Uint8Array, scriptPubKey: Uint8Array): Uint8Array {
  return taggedHash(
    'TapSighash',
    Uint8Array.of(0x00, 0x00), // epoch 0, hash_type DEFAULT
    zero4, // version 0
    zero4, // locktime 0
    sha256(toSpend, zero4), // sha_prevouts
    shaAmountsV1,
    sha256(compactSize(scriptPubKey.length), scriptPubKey), // sha_scriptpubkeys
    shaSequencesV1,
    shaOutputsV1,
    Uint8Array.of(0x00), // spend_type: key path, no annex
    zero4, // input index 0
  )
}

/** The witness stack serialized as BIP-322 simple signatures carry it: count, then each item with its length. */
export function serializeWitness(items: readonly Uint8Array[]): Uint8Array {
  return concatBytes(compactSize(items.length), ...items.flatMap((item) => [compactSize(item.length), item]))
}
