import type { AddressType } from '../types.js'
import { compactSizeLength } from './bytes.js'

/**
 * Virtual sizes for fee estimates, with the largest signature each type can have (72-byte DER + hash
 * type for ECDSA, 64-byte Schnorr with SIGHASH_DEFAULT), so an estimate never undershoots the real size.
 * Weight units: non-witness bytes count 4, witness bytes 1.
 */
const inputWeight: Readonly<Record<AddressType, number>> = {
  // outpoint 36 + sequence 4 + scriptSig len 1 + (push 73 sig + push 34 key) = 148 → ×4
  p2pkh: (36 + 4 + 1 + 107) * 4,
  // base 36+4+1+23 (push of the 22-byte redeem script) → ×4; witness: 1 count + 73 + 34
  'p2sh-p2wpkh': (36 + 4 + 1 + 23) * 4 + 1 + 73 + 34,
  // base 41 → ×4; witness: 1 count + 73 + 34
  p2wpkh: (36 + 4 + 1) * 4 + 1 + 73 + 34,
  // base 41 → ×4; witness: 1 count + 65 (push of 64-byte signature)
  p2tr: (36 + 4 + 1) * 4 + 1 + 65,
}

export function inputVbytes(type: AddressType): number {
  return inputWeight[type] / 4
}

function outputVbytes(scriptLength: number): number {
  return 8 + compactSizeLength(scriptLength) + scriptLength
}

/**
 * vsize of a transaction with these inputs and outputs (script lengths), rounded up. A transaction with
 * any segwit input pays for the 2-byte marker and flag (and each legacy input's empty witness count).
 */
export function estimateVsize(
  inputs: readonly AddressType[],
  outputScriptLengths: readonly number[],
): number {
  const segwit = inputs.some((type) => type !== 'p2pkh')
  let weight = (4 + compactSizeLength(inputs.length) + compactSizeLength(outputScriptLengths.length) + 4) * 4
  if (segwit) weight += 2
  for (const type of inputs) weight += inputWeight[type] + (segwit && type === 'p2pkh' ? 1 : 0)
  for (const length of outputScriptLengths) weight += outputVbytes(length) * 4
  return Math.ceil(weight / 4)
}
