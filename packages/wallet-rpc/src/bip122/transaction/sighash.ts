import { sha256 } from '../../crypto/sha256.js'
import { sha256d, taggedHashPrefix } from '../encoding.js'
import { ByteWriter, compactSizeLength } from './bytes.js'
import type { Transaction } from './transaction.js'

/**
 * Signature hashes for legacy, BIP-143 (segwit v0) and BIP-341 (taproot key path) inputs.
 *
 * Why our own: bitcoinjs-lib and @scure/btc-signer recompute the per-transaction midstates
 * (hashPrevouts, hashSequence, hashOutputs; sha_prevouts, sha_amounts, sha_scriptpubkeys,
 * sha_sequences, sha_outputs) for every input, so signing n inputs hashes O(n²) bytes. Here they are
 * computed once per transaction, on first use, as Bitcoin Core's `PrecomputedTransactionData` does,
 * and every input then costs a constant ~200-byte hash. The per-input preimage is written into a buffer
 * reused across inputs and hashed in one shot (native SHA-256 where there is one): on these sizes that is
 * faster than resuming a saved @noble/hashes midstate, which has to be cloned per input.
 */

export const SIGHASH_DEFAULT = 0x00
export const SIGHASH_ALL = 0x01
export const SIGHASH_NONE = 0x02
export const SIGHASH_SINGLE = 0x03
export const SIGHASH_ANYONECANPAY = 0x80

/** Every hash type a signature may commit to (BIP-341 defines exactly these; DEFAULT is taproot only). */
export const knownSighashTypes: readonly number[] = [0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83]

export type Prevout = { script: Uint8Array; value: bigint }

const tapSighashPrefix = taggedHashPrefix('TapSighash')

/** CompactSize at `offset` (script lengths only, so below 2^32); returns its byte count. */
function writeCompactSize(out: Uint8Array, offset: number, n: number): number {
  if (n < 0xfd) {
    out[offset] = n
    return 1
  }
  if (n <= 0xffff) {
    out[offset] = 0xfd
    out[offset + 1] = n & 0xff
    out[offset + 2] = n >>> 8
    return 3
  }
  out[offset] = 0xfe
  new DataView(out.buffer, out.byteOffset).setUint32(offset + 1, n, true)
  return 5
}

export class SighashError extends Error {
  override name = 'SighashError'
}

const zero32: Uint8Array = new Uint8Array(32)

function once(compute: () => Uint8Array): () => Uint8Array {
  let value: Uint8Array | undefined
  return () => {
    value ??= compute()
    return value
  }
}

export type SighashCache = {
  /** Pre-segwit digest. `scriptCode` is the prevout script (P2PKH) with no OP_CODESEPARATOR. */
  legacy(index: number, scriptCode: Uint8Array, hashType: number): Uint8Array
  /** BIP-143 digest. For P2WPKH the scriptCode is the P2PKH script of the key hash. */
  witnessV0(index: number, scriptCode: Uint8Array, value: bigint, hashType: number): Uint8Array
  /** BIP-341 key-path digest (no annex). Needs every input's prevout. */
  taprootKeyPath(index: number, hashType: number): Uint8Array
}

/**
 * `prevouts` may be partial (undefined where unknown) unless a taproot digest is asked for, which
 * commits to every input's amount and script and so needs all of them.
 */
export function createSighashCache(
  tx: Transaction,
  prevouts: readonly (Prevout | undefined)[] = [],
): SighashCache {
  // Per hash type: the whole tagged BIP-341 message, input index last (rewritten per input).
  const taprootPreimages = new Map<number, { bytes: Uint8Array; view: DataView }>()
  let preimage = new Uint8Array(256)
  let view = new DataView(preimage.buffer)

  // The per-transaction hashes, each computed on first use and then shared by every input.
  const prevoutsSha = once(() => {
    const writer = new ByteWriter(tx.inputs.length * 36)
    for (const input of tx.inputs) writer.bytes(input.txid).u32(input.vout)
    return sha256(writer.finish())
  })
  const sequencesSha = once(() => {
    const writer = new ByteWriter(tx.inputs.length * 4)
    for (const input of tx.inputs) writer.u32(input.sequence)
    return sha256(writer.finish())
  })
  const outputsSha = once(() => {
    const writer = new ByteWriter(tx.outputs.length * 34)
    for (const output of tx.outputs) writer.u64(output.value).varBytes(output.script)
    return sha256(writer.finish())
  })
  const allPrevouts = (): Prevout[] => {
    if (prevouts.length !== tx.inputs.length) {
      throw new SighashError('taproot signature hash needs the prevout of every input')
    }
    return prevouts.map((prevout, index) => {
      if (!prevout) throw new SighashError(`taproot signature hash needs the prevout of input ${index}`)
      return prevout
    })
  }
  const amountsSha = once(() => {
    const writer = new ByteWriter(tx.inputs.length * 8)
    for (const prevout of allPrevouts()) writer.u64(prevout.value)
    return sha256(writer.finish())
  })
  const scriptPubkeysSha = once(() => {
    const writer = new ByteWriter(tx.inputs.length * 35)
    for (const prevout of allPrevouts()) writer.varBytes(prevout.script)
    return sha256(writer.finish())
  })
  // BIP-143's double-SHA256 forms of the same three.
  const hashPrevouts = once(() => sha256(prevoutsSha()))
  const hashSequence = once(() => sha256(sequencesSha()))
  const hashOutputs = once(() => sha256(outputsSha()))

  const checkIndex = (index: number) => {
    if (!Number.isSafeInteger(index) || index < 0 || index >= tx.inputs.length) {
      throw new SighashError(`input ${index} does not exist`)
    }
  }

  return {
    legacy(index, scriptCode, hashType) {
      checkIndex(index)
      const base = hashType & 0x1f
      const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0
      if (base === SIGHASH_SINGLE && index >= tx.outputs.length) {
        // Core would sign the constant 1 here: a signature valid for any transaction. Never produce one.
        throw new SighashError(`SIGHASH_SINGLE on input ${index} without a matching output`)
      }
      const writer = new ByteWriter(64 + tx.inputs.length * 41 + tx.outputs.length * 34 + scriptCode.length)
      writer.i32(tx.version)
      const inputs = anyoneCanPay ? [index] : tx.inputs.map((_, i) => i)
      writer.compactSize(inputs.length)
      for (const i of inputs) {
        const input = tx.inputs[i]!
        writer.bytes(input.txid).u32(input.vout)
        writer.varBytes(i === index ? scriptCode : new Uint8Array(0))
        const zeroSequence = i !== index && (base === SIGHASH_NONE || base === SIGHASH_SINGLE)
        writer.u32(zeroSequence ? 0 : input.sequence)
      }
      if (base === SIGHASH_NONE) {
        writer.compactSize(0)
      } else if (base === SIGHASH_SINGLE) {
        writer.compactSize(index + 1)
        for (let i = 0; i < index; i++) writer.u64(0xffffffffffffffffn).compactSize(0)
        const output = tx.outputs[index]!
        writer.u64(output.value).varBytes(output.script)
      } else {
        writer.compactSize(tx.outputs.length)
        for (const output of tx.outputs) writer.u64(output.value).varBytes(output.script)
      }
      writer.u32(tx.locktime).u32(hashType)
      return sha256d(writer.finish())
    },

    witnessV0(index, scriptCode, value, hashType) {
      checkIndex(index)
      const base = hashType & 0x1f
      const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0
      let prevoutsHash = zero32
      let sequenceHash = zero32
      let outputsHash = zero32
      if (!anyoneCanPay) prevoutsHash = hashPrevouts()
      if (!anyoneCanPay && base !== SIGHASH_SINGLE && base !== SIGHASH_NONE) sequenceHash = hashSequence()
      if (base !== SIGHASH_SINGLE && base !== SIGHASH_NONE) {
        outputsHash = hashOutputs()
      } else if (base === SIGHASH_SINGLE && index < tx.outputs.length) {
        const output = tx.outputs[index]!
        outputsHash = sha256d(new ByteWriter(44).u64(output.value).varBytes(output.script).finish())
      }
      // One preimage buffer per transaction, reused for every input (this is the per-input hot path).
      const input = tx.inputs[index]!
      const length = 156 + compactSizeLength(scriptCode.length) + scriptCode.length
      if (preimage.length < length) {
        preimage = new Uint8Array(length + 64)
        view = new DataView(preimage.buffer)
      }
      view.setInt32(0, tx.version, true)
      preimage.set(prevoutsHash, 4)
      preimage.set(sequenceHash, 36)
      preimage.set(input.txid, 68)
      view.setUint32(100, input.vout, true)
      let at = 104 + writeCompactSize(preimage, 104, scriptCode.length)
      preimage.set(scriptCode, at)
      at += scriptCode.length
      view.setBigUint64(at, value, true)
      view.setUint32(at + 8, input.sequence, true)
      preimage.set(outputsHash, at + 12)
      view.setUint32(at + 44, tx.locktime, true)
      view.setUint32(at + 48, hashType >>> 0, true)
      return sha256d(preimage.subarray(0, length))
    },

    taprootKeyPath(index, hashType) {
      checkIndex(index)
      if (!knownSighashTypes.includes(hashType))
        throw new SighashError(`invalid taproot hash type ${hashType}`)
      const base = hashType === SIGHASH_DEFAULT ? SIGHASH_ALL : hashType & 0x03
      const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0
      if (base === SIGHASH_SINGLE && index >= tx.outputs.length) {
        throw new SighashError(`SIGHASH_SINGLE on input ${index} without a matching output`)
      }
      if (!anyoneCanPay && base !== SIGHASH_SINGLE) {
        // Everything but the input index is the same for every input: build the message once per hash
        // type, then only the index changes.
        let message = taprootPreimages.get(hashType)
        if (!message) {
          const writer = new ByteWriter(256)
          writer.bytes(tapSighashPrefix).u8(0).u8(hashType).i32(tx.version).u32(tx.locktime)
          writer.bytes(prevoutsSha()).bytes(amountsSha()).bytes(scriptPubkeysSha()).bytes(sequencesSha())
          if (base !== SIGHASH_NONE) writer.bytes(outputsSha())
          writer.u8(0).u32(0) // spend_type: key path, no annex; then input_index
          const bytes = writer.finish()
          message = { bytes, view: new DataView(bytes.buffer) }
          taprootPreimages.set(hashType, message)
        }
        message.view.setUint32(message.bytes.length - 4, index, true)
        return sha256(message.bytes)
      }
      const writer = new ByteWriter(256)
      writer.u8(0).u8(hashType).i32(tx.version).u32(tx.locktime)
      if (!anyoneCanPay) {
        writer.bytes(prevoutsSha()).bytes(amountsSha()).bytes(scriptPubkeysSha()).bytes(sequencesSha())
      }
      if (base !== SIGHASH_NONE && base !== SIGHASH_SINGLE) writer.bytes(outputsSha())
      writer.u8(0) // spend_type: key path, no annex
      if (anyoneCanPay) {
        const input = tx.inputs[index]!
        const prevout = prevouts[index]
        if (!prevout) throw new SighashError(`taproot signature hash needs the prevout of input ${index}`)
        writer
          .bytes(input.txid)
          .u32(input.vout)
          .u64(prevout.value)
          .varBytes(prevout.script)
          .u32(input.sequence)
      } else {
        writer.u32(index)
      }
      if (base === SIGHASH_SINGLE) {
        const output = tx.outputs[index]!
        writer.bytes(sha256(new ByteWriter(44).u64(output.value).varBytes(output.script).finish()))
      }
      return sha256(tapSighashPrefix, writer.finish())
    },
  }
}
