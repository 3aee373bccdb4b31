import { sha256d } from '../encoding.js'
import { ByteReader, ByteWriter, compactSizeLength, reversed, toHex } from './bytes.js'

/**
 * A Bitcoin transaction as plain data. `txid` here is the 32-byte hash in *internal* (serialized) byte
 * order, as it appears in an outpoint; `txidHex` gives the familiar reversed display form.
 */
export type TxInput = {
  txid: Uint8Array
  vout: number
  sequence: number
  scriptSig: Uint8Array
  witness: readonly Uint8Array[]
}

export type TxOutput = { value: bigint; script: Uint8Array }

export type Transaction = {
  version: number
  locktime: number
  inputs: readonly TxInput[]
  outputs: readonly TxOutput[]
}

/** Upper bound for one serialized transaction we are willing to parse (Core's standard weight is 400 kWU). */
const maxTransactionBytes = 4_000_000

export function hasWitness(tx: Transaction): boolean {
  return tx.inputs.some((input) => input.witness.length > 0)
}

function writeBody(writer: ByteWriter, tx: Transaction, withWitness: boolean): void {
  writer.i32(tx.version)
  if (withWitness) writer.u8(0).u8(1)
  writer.compactSize(tx.inputs.length)
  for (const input of tx.inputs) {
    writer.bytes(input.txid).u32(input.vout).varBytes(input.scriptSig).u32(input.sequence)
  }
  writer.compactSize(tx.outputs.length)
  for (const output of tx.outputs) writer.u64(output.value).varBytes(output.script)
  if (withWitness) {
    for (const input of tx.inputs) {
      writer.compactSize(input.witness.length)
      for (const item of input.witness) writer.varBytes(item)
    }
  }
  writer.u32(tx.locktime)
}

/** Serializes with witness data when any input has some (BIP-144), else in the legacy form. */
export function serializeTransaction(tx: Transaction, options: { witness?: boolean } = {}): Uint8Array {
  const writer = new ByteWriter(64 + tx.inputs.length * 160 + tx.outputs.length * 44)
  writeBody(writer, tx, (options.witness ?? true) && hasWitness(tx))
  return writer.finish()
}

export function parseTransaction(bytes: Uint8Array): Transaction {
  if (bytes.length > maxTransactionBytes) throw new RangeError('transaction too large')
  const reader = new ByteReader(bytes)
  const version = reader.i32()
  let inputCount = reader.compactSize()
  let segwit = false
  if (inputCount === 0) {
    // BIP-144 marker 0x00 then flag 0x01; a zero-input transaction is not something we handle.
    const flag = reader.u8()
    if (flag !== 1) throw new RangeError('unsupported transaction flag')
    segwit = true
    inputCount = reader.compactSize()
  }
  if (inputCount > reader.remaining / 41) throw new RangeError('input count exceeds data')
  const inputs: TxInput[] = []
  for (let i = 0; i < inputCount; i++) {
    const txid = reader.bytes(32)
    const vout = reader.u32()
    const scriptSig = reader.varBytes()
    const sequence = reader.u32()
    inputs.push({ txid, vout, sequence, scriptSig, witness: [] })
  }
  const outputCount = reader.compactSize()
  if (outputCount > reader.remaining / 9) throw new RangeError('output count exceeds data')
  const outputs: TxOutput[] = []
  for (let i = 0; i < outputCount; i++) {
    const value = reader.u64()
    const script = reader.varBytes()
    outputs.push({ value, script })
  }
  if (segwit) {
    let any = false
    for (const input of inputs) {
      const count = reader.compactSize()
      if (count > reader.remaining) throw new RangeError('witness count exceeds data')
      const witness: Uint8Array[] = []
      for (let j = 0; j < count; j++) witness.push(reader.varBytes())
      input.witness = witness
      if (count > 0) any = true
    }
    if (!any) throw new RangeError('segwit marker without witness data')
  }
  const locktime = reader.u32()
  if (reader.remaining !== 0) throw new RangeError('trailing bytes after transaction')
  return { version, locktime, inputs, outputs }
}

/**
 * The txid (internal byte order) and the outputs of a serialized transaction, with the checks
 * `parseTransaction` makes, but building nothing else: inputs and witnesses are stepped over, outputs are
 * decoded only when asked for (a parent is read for one or a few of its outputs), and the txid is the hash
 * of the bytes themselves (their witness-free parts for a BIP-144 serialization), not of a re-serialization
 * (the same bytes: every length is canonical). What a parent transaction is read for.
 */
export function transactionOutputs(bytes: Uint8Array): {
  hash: Uint8Array
  outputCount: number
  /** Output `vout`, or undefined past the last. */
  output(vout: number): TxOutput | undefined
} {
  if (bytes.length > maxTransactionBytes) throw new RangeError('transaction too large')
  const reader = new ByteReader(bytes)
  reader.skip(4) // version
  let inputCount = reader.compactSize()
  let segwit = false
  if (inputCount === 0) {
    if (reader.u8() !== 1) throw new RangeError('unsupported transaction flag')
    segwit = true
    inputCount = reader.compactSize()
  }
  const bodyStart = reader.offset - compactSizeLength(inputCount)
  if (inputCount > reader.remaining / 41) throw new RangeError('input count exceeds data')
  for (let i = 0; i < inputCount; i++) {
    reader.skip(36) // outpoint
    reader.skip(reader.compactSize()) // scriptSig
    reader.skip(4) // sequence
  }
  const outputCount = reader.compactSize()
  if (outputCount > reader.remaining / 9) throw new RangeError('output count exceeds data')
  const outputStarts = new Uint32Array(outputCount)
  for (let i = 0; i < outputCount; i++) {
    outputStarts[i] = reader.offset
    reader.skip(8) // value
    reader.skip(reader.compactSize()) // script
  }
  const bodyEnd = reader.offset
  if (segwit) {
    let any = false
    for (let i = 0; i < inputCount; i++) {
      const count = reader.compactSize()
      if (count > reader.remaining) throw new RangeError('witness count exceeds data')
      for (let j = 0; j < count; j++) reader.skip(reader.compactSize())
      if (count > 0) any = true
    }
    if (!any) throw new RangeError('segwit marker without witness data')
  }
  reader.skip(4) // locktime
  if (reader.remaining !== 0) throw new RangeError('trailing bytes after transaction')
  const hash = segwit
    ? sha256d(bytes.subarray(0, 4), bytes.subarray(bodyStart, bodyEnd), bytes.subarray(bytes.length - 4))
    : sha256d(bytes)
  return {
    hash,
    outputCount,
    output(vout) {
      if (!Number.isInteger(vout) || vout < 0 || vout >= outputCount) return undefined
      const output = new ByteReader(bytes)
      output.skip(outputStarts[vout]!)
      const value = output.u64()
      return { value, script: output.subarray(output.compactSize()) }
    },
  }
}

/** The transaction id in display (reversed) hex. */
export function transactionId(tx: Transaction): string {
  return toHex(reversed(sha256d(serializeTransaction(tx, { witness: false }))))
}

/** Display hex → internal-order outpoint hash. */
export function txidToHash(txidHex: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(txidHex)) throw new TypeError('txid must be 64 hex characters')
  const out = new Uint8Array(32)
  for (let i = 0; i < 32; i++) out[31 - i] = Number.parseInt(txidHex.slice(i * 2, i * 2 + 2), 16)
  return out
}

export function hashToTxid(hash: Uint8Array): string {
  return toHex(reversed(hash))
}
