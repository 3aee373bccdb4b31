import { base64 as base64Codec } from '@scure/base'
import { Psbt } from 'bitcoinjs-lib'
import { InvalidParamsError } from '../../core/errors.js'
import { defaultPsbtLimits, type PsbtLimits } from '../policy.js'
import { equalBytes } from '../transaction/bytes.js'
import type { Prevout } from '../transaction/sighash.js'
import { parseTransaction, type Transaction, transactionId, txidToHash } from '../transaction/transaction.js'
import { useOurEccInBitcoinjs } from './eccLib.js'
import { checkPsbtLayout } from './layout.js'

export type PsbtInput = Psbt['data']['inputs'][number]

export type DecodedPsbt = {
  psbt: Psbt
  /** The unsigned transaction as plain data. */
  tx: Transaction
  /** Per input: the spent output as the PSBT describes it (nonWitnessUtxo checked against the prevout). */
  prevouts: (Prevout | undefined)[]
  /** Per input: where the prevout came from. */
  prevoutSources: ('nonWitnessUtxo' | 'witnessUtxo' | undefined)[]
}

const psbtMagic = Uint8Array.of(0x70, 0x73, 0x62, 0x74, 0xff)

/**
 * Strict decoding of a dapp's PSBT: canonical base64 (the schema already checked the alphabet), a size
 * cap, the BIP-174 magic, version 0 only, parsed by bitcoinjs-lib, counts capped, and every
 * nonWitnessUtxo checked to be the transaction the input spends. Failures are -32602 at `psbt`.
 */
export function decodePsbt(base64: string, limits: PsbtLimits = defaultPsbtLimits): DecodedPsbt {
  useOurEccInBitcoinjs()
  if (base64.length > Math.ceil((limits.maxBytes * 4) / 3) + 4) {
    throw new InvalidParamsError(`PSBT larger than ${limits.maxBytes} bytes`, { path: 'psbt' })
  }
  let bytes: Uint8Array
  try {
    bytes = base64Codec.decode(base64)
  } catch {
    bytes = new Uint8Array()
  }
  // Re-encoding must give the input back: no junk, no non-zero padding bits, one spelling per PSBT.
  if (base64Codec.encode(bytes) !== base64)
    throw new InvalidParamsError('PSBT is not canonical base64', { path: 'psbt' })
  if (bytes.length < psbtMagic.length || !equalBytes(bytes.subarray(0, 5), psbtMagic)) {
    throw new InvalidParamsError('not a PSBT (missing the psbt\\xff magic)', { path: 'psbt' })
  }
  checkPsbtLayout(bytes)
  let psbt: Psbt
  try {
    psbt = Psbt.fromBuffer(bytes)
  } catch (error) {
    throw new InvalidParamsError(`invalid PSBT: ${(error as Error).message}`, { path: 'psbt' })
  }
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
  psbt.data.inputs.forEach((input, index) => {
    const outpoint = tx.inputs[index]!
    if (input.nonWitnessUtxo) {
      let parent: Transaction
      try {
        parent = parseTransaction(input.nonWitnessUtxo)
      } catch {
        throw new InvalidParamsError(`input ${index}: nonWitnessUtxo is not a transaction`, { path: 'psbt' })
      }
      if (!equalBytes(txidToHash(transactionId(parent)), outpoint.txid)) {
        throw new InvalidParamsError(`input ${index}: nonWitnessUtxo is not the transaction it spends`, {
          path: 'psbt',
        })
      }
      const output = parent.outputs[outpoint.vout]
      if (!output)
        throw new InvalidParamsError(`input ${index}: nonWitnessUtxo has no output ${outpoint.vout}`, {
          path: 'psbt',
        })
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
  })
  return { psbt, tx, prevouts, prevoutSources }
}

export function isFinalized(input: PsbtInput): boolean {
  return input.finalScriptSig !== undefined || input.finalScriptWitness !== undefined
}
