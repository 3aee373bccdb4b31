import { Psbt } from 'bitcoinjs-lib'
import { InvalidParamsError } from '../../core/errors.js'
import { nextTurn, type Pause, timeSlicer } from '../../core/yielding.js'
import { defaultPsbtLimits, type PsbtLimits } from '../policy.js'
import { ByteWriter, concatBytes, equalBytes, toHex } from '../transaction/bytes.js'
import type { Prevout } from '../transaction/sighash.js'
import {
  parseTransaction,
  serializeTransaction,
  type Transaction,
  type TxOutput,
  transactionOutputs,
} from '../transaction/transaction.js'
import { decodeBase64 } from './base64.js'
import { useOurEccInBitcoinjs } from './eccLib.js'
import { checkPsbtLayout, type MapRange, type PsbtLayout } from './layout.js'

export type PsbtInput = Psbt['data']['inputs'][number]

export type DecodedPsbt = {
  psbt: Psbt
  /** The dapp's PSBT bytes, and where each input map lies in them (psbt/encode.ts writes the answer). */
  bytes: Uint8Array
  inputMaps: MapRange[]
  /** The unsigned transaction as plain data. */
  tx: Transaction
  /** Per input: the spent output as the PSBT describes it (nonWitnessUtxo checked against the prevout). */
  prevouts: (Prevout | undefined)[]
  /** Per input: where the prevout came from. */
  prevoutSources: ('nonWitnessUtxo' | 'witnessUtxo' | undefined)[]
}

const psbtMagic = Uint8Array.of(0x70, 0x73, 0x62, 0x74, 0xff)

/**
 * Strict decoding of a dapp's PSBT: canonical base64 (checked here, not by a schema regex), a size
 * cap, the BIP-174 magic, version 0 only, parsed by bitcoinjs-lib, counts capped, and every
 * nonWitnessUtxo checked to be the transaction the input spends. Failures are -32602 at `psbt`.
 * A 4 MiB PSBT is a lot of work: the steps give the event loop a turn every few ms (core/yielding.ts).
 */
export async function decodePsbt(
  base64: string,
  limits: PsbtLimits = defaultPsbtLimits,
): Promise<DecodedPsbt> {
  useOurEccInBitcoinjs()
  if (base64.length > Math.ceil((limits.maxBytes * 4) / 3) + 4) {
    throw new InvalidParamsError(`PSBT larger than ${limits.maxBytes} bytes`, { path: 'psbt' })
  }
  const pause = timeSlicer()
  const bytes = await decodeCanonicalBase64(base64, pause)
  if (bytes.length < psbtMagic.length || !equalBytes(bytes.subarray(0, 5), psbtMagic)) {
    throw new InvalidParamsError('not a PSBT (missing the psbt\\xff magic)', { path: 'psbt' })
  }
  const layout = await checkPsbtLayout(bytes, pause)
  const { inputMaps } = layout
  await pause()
  let psbt: Psbt
  try {
    psbt = await parseInSlices(bytes, layout)
  } catch (error) {
    throw new InvalidParamsError(`invalid PSBT: ${(error as Error).message}`, { path: 'psbt' })
  }
  await nextTurn()
  const version = psbt.data.globalMap.unknownKeyVals?.find((kv) => kv.key.length === 1 && kv.key[0] === 0xfb)
  if (version?.value.some((byte) => byte !== 0)) {
    throw new InvalidParamsError('only PSBT version 0 is supported', { path: 'psbt' })
  }
  let tx: Transaction
  try {
    tx = parseTransaction(psbt.data.globalMap.unsignedTx.toBuffer())
  } catch (error) {
    throw new InvalidParamsError(`invalid PSBT transaction: ${(error as Error).message}`, { path: 'psbt' })
  }
  if (tx.inputs.length > limits.maxInputs) {
    throw new InvalidParamsError(`PSBT has more than ${limits.maxInputs} inputs`, { path: 'psbt' })
  }
  if (tx.outputs.length > limits.maxOutputs) {
    throw new InvalidParamsError(`PSBT has more than ${limits.maxOutputs} outputs`, { path: 'psbt' })
  }
  const prevouts: (Prevout | undefined)[] = []
  const prevoutSources: DecodedPsbt['prevoutSources'] = []
  // Inputs often spend several outputs of one parent: each parent is read and hashed once per txid.
  const parents = new Map<string, Parent>()
  for (const [index, input] of psbt.data.inputs.entries()) {
    await pause()
    const outpoint = tx.inputs[index]!
    if (input.nonWitnessUtxo) {
      const output = parentOutput(parents, input.nonWitnessUtxo, outpoint, index)
      if (
        input.witnessUtxo &&
        (input.witnessUtxo.value !== output.value || !equalBytes(input.witnessUtxo.script, output.script))
      ) {
        throw new InvalidParamsError(`input ${index}: witnessUtxo disagrees with nonWitnessUtxo`, {
          path: 'psbt',
        })
      }
      prevouts.push({ script: output.script, value: output.value })
      prevoutSources.push('nonWitnessUtxo')
    } else if (input.witnessUtxo) {
      prevouts.push({ script: input.witnessUtxo.script, value: input.witnessUtxo.value })
      prevoutSources.push('witnessUtxo')
    } else {
      prevouts.push(undefined)
      prevoutSources.push(undefined)
    }
  }
  return { psbt, bytes, inputMaps, tx, prevouts, prevoutSources }
}

/** Input maps per bitcoinjs parse: a few ms each, well under a slice. */
const inputsPerParse = 250

/**
 * bitcoinjs' parse of the whole PSBT is one block (tens of ms at 3000 inputs with parents), so it parses
 * the global and output maps with empty input maps first, then the input maps a slice at a time, each in
 * a PSBT of its own around the same inputs (BIP-174 input maps do not depend on one another or on the
 * outputs), with a turn of the event loop between slices. The decoded PSBT is the one a single parse gives.
 */
async function parseInSlices(bytes: Uint8Array, layout: PsbtLayout): Promise<Psbt> {
  const { globalMap, inputMaps, outputMapsStart } = layout
  if (inputMaps.length <= inputsPerParse) return Psbt.fromBuffer(bytes)
  const magic = bytes.subarray(0, 5)
  const psbt = Psbt.fromBuffer(
    concatBytes(
      bytes.subarray(0, globalMap.end + 1),
      new Uint8Array(inputMaps.length),
      bytes.subarray(outputMapsStart),
    ),
  )
  const unsigned = psbt.data.globalMap.unsignedTx.toBuffer()
  const { version, locktime, inputs } = parseTransaction(unsigned)
  for (let first = 0; first < inputMaps.length; first += inputsPerParse) {
    await nextTurn()
    const slice = inputMaps.slice(first, first + inputsPerParse)
    const sliceTx = serializeTransaction(
      { version, locktime, inputs: inputs.slice(first, first + inputsPerParse), outputs: [] },
      { witness: false },
    )
    const writer = new ByteWriter(sliceTx.length + 16)
    writer.bytes(magic).compactSize(1).u8(0x00).varBytes(sliceTx).u8(0x00) // global map: the unsigned tx
    const parsed = Psbt.fromBuffer(
      concatBytes(
        writer.finish(),
        bytes.subarray(slice[0]!.start, slice.at(-1)!.end + 1), // the slice's input maps, as sent
      ),
    )
    parsed.data.inputs.forEach((input, index) => {
      psbt.data.inputs[first + index] = input
    })
  }
  return psbt
}

/** A parent transaction already checked against its txid: its bytes, and its outputs read on demand. */
type Parent = { bytes: Uint8Array; output: (vout: number) => TxOutput | undefined }

/**
 * The output `outpoint` spends, from the input's parent transaction, which must hash to the outpoint's
 * txid. A parent already checked for an earlier input is reused when the bytes are the same (comparing
 * is cheaper than hashing); other bytes are checked on their own (a segwit parent may carry other
 * witnesses under the same txid).
 */
function parentOutput(
  parents: Map<string, Parent>,
  bytes: Uint8Array,
  outpoint: Transaction['inputs'][number],
  index: number,
): TxOutput {
  const txid = toHex(outpoint.txid)
  let parent = parents.get(txid)
  if (parent === undefined || !equalBytes(parent.bytes, bytes)) {
    let read: ReturnType<typeof transactionOutputs>
    try {
      read = transactionOutputs(bytes)
    } catch {
      throw new InvalidParamsError(`input ${index}: nonWitnessUtxo is not a transaction`, { path: 'psbt' })
    }
    if (!equalBytes(read.hash, outpoint.txid)) {
      throw new InvalidParamsError(`input ${index}: nonWitnessUtxo is not the transaction it spends`, {
        path: 'psbt',
      })
    }
    parent = { bytes, output: read.output }
    parents.set(txid, parent)
  }
  const output = parent.output(outpoint.vout)
  if (!output)
    throw new InvalidParamsError(`input ${index}: nonWitnessUtxo has no output ${outpoint.vout}`, {
      path: 'psbt',
    })
  return output
}

/** Characters per base64 chunk (a multiple of 4): about 48 KB of bytes, well under a time slice. */
const base64Chunk = 65_536

/**
 * Base64 → bytes, refusing any spelling but the canonical one (re-encoding must give the input back: no
 * junk, no non-zero padding bits, one spelling per PSBT), in chunks with a turn for the event loop between.
 */
async function decodeCanonicalBase64(base64: string, pause: Pause): Promise<Uint8Array> {
  const parts: Uint8Array[] = []
  for (let start = 0; start < base64.length || start === 0; start += base64Chunk) {
    await pause()
    const chunk = base64.slice(start, start + base64Chunk)
    const bytes = decodeBase64(chunk)
    // Padding only at the very end: a chunk is whole on its own, the string must be too.
    const last = start + base64Chunk >= base64.length
    if (bytes === undefined || (!last && chunk.endsWith('=')))
      throw new InvalidParamsError('PSBT is not canonical base64', { path: 'psbt' })
    parts.push(bytes)
  }
  return parts.length === 1 ? parts[0]! : concatBytes(...parts)
}

export function isFinalized(input: PsbtInput): boolean {
  return input.finalScriptSig !== undefined || input.finalScriptWitness !== undefined
}
