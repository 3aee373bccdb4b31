import type { Psbt } from 'bitcoinjs-lib'
import { InvalidParamsError } from '../../core/errors.js'
import type { InputSignature } from '../transaction/sign.js'
import { isFinalized } from './decode.js'
import type { KeyValue } from './encode.js'

/**
 * Writes our signatures into the PSBT (`partialSig` / `tapKeySig`): constant work per input, unlike
 * bitcoinjs-lib's `signInput`, which recomputes every shared hash per input.
 */
export function writeSignatures(psbt: Psbt, signatures: readonly InputSignature[]): void {
  for (const signature of signatures) {
    // The BIP-174 layer directly: bitcoinjs' Psbt.updateInput re-derives "is this a taproot input?" by
    // trying payments.p2tr on the script, which throws (~50 µs) for every non-taproot input. Our inputs
    // were classified in plan; the BIP-174 layer still validates the key and value formats.
    if (signature.kind === 'schnorr') {
      psbt.data.updateInput(signature.index, { tapKeySig: signature.signature })
    } else {
      psbt.data.updateInput(signature.index, {
        partialSig: [{ pubkey: signature.publicKey, signature: signature.signature }],
      })
    }
  }
}

/** BIP-174 input key types of what signPsbt adds. */
export const inputKeyType = { redeemScript: 0x04, partialSig: 0x02, tapKeySig: 0x13, tapInternalKey: 0x17 }

/** The key-value pair `writeSignatures` adds for `signature`, as BIP-174 writes it (for psbt/encode.ts). */
export function signatureEntry(signature: InputSignature): KeyValue {
  if (signature.kind === 'schnorr') {
    return { key: Uint8Array.of(inputKeyType.tapKeySig), value: signature.signature }
  }
  const key = new Uint8Array(1 + signature.publicKey.length)
  key[0] = inputKeyType.partialSig
  key.set(signature.publicKey, 1)
  return { key, value: signature.signature }
}

/**
 * Finalizes every input that is not final yet (bitcoinjs-lib's finalizers: our single-key inputs and the
 * standard templates other parties use) and extracts the network transaction. An input that cannot be
 * finalized means the PSBT is not fully signed: -32602, and nothing is broadcast.
 */
export function finalizeAndExtract(psbt: Psbt): Uint8Array {
  psbt.data.inputs.forEach((input, index) => {
    if (isFinalized(input)) return
    try {
      psbt.finalizeInput(index)
    } catch (error) {
      throw new InvalidParamsError(`PSBT not fully signed: input ${index}: ${(error as Error).message}`, {
        path: 'psbt',
      })
    }
  })
  // The fee was checked against the wallet's own cap in plan; bitcoinjs' 5000 sat/vB guard is redundant.
  return psbt.extractTransaction(true).toBuffer()
}
