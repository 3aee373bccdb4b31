import * as bitcoin from 'bitcoinjs-lib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { inputKeyType } from '../../src/bip122/psbt/apply.js'
import { decodePsbt } from '../../src/bip122/psbt/decode.js'
import { addToInputMaps, compareBytes, type KeyValue } from '../../src/bip122/psbt/encode.js'

/**
 * signPsbt's answer is the dapp's bytes with our entries added (psbt/encode.ts), no longer bitcoinjs'
 * `toBuffer()`: on PSBTs bitcoinjs wrote, with random fields (parents, witnessUtxo, BIP-32 derivations,
 * sighash types, proprietary keys), and random additions of every kind signPsbt makes, the bytes are
 * exactly what bitcoinjs serializes after the same additions through its BIP-174 layer.
 */

const bytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length })
const publicKey = fc.tuple(fc.constantFrom(2, 3), bytes(32)).map(([prefix, x]) => Uint8Array.of(prefix, ...x))
/** A DER signature with its sighash byte, as bip174 checks it (r and s of 32 bytes, high bit clear). */
const derSignature = fc.tuple(bytes(32), bytes(32), fc.constantFrom(1, 2, 3, 0x81)).map(([r, s, type]) => {
  r[0] = r[0]! & 0x7f || 1
  s[0] = s[0]! & 0x7f || 1
  return Uint8Array.of(0x30, 68, 2, 32, ...r, 2, 32, ...s, type)
})

const inputArbitrary = fc.record({
  parentOutputs: fc.integer({ min: 1, max: 4 }),
  vout: fc.nat(3),
  seed: bytes(32),
  witnessUtxo: fc.boolean(),
  nonWitnessUtxo: fc.boolean(),
  derivation: fc.option(publicKey, { nil: undefined }),
  sighashType: fc.option(fc.constantFrom(1, 2, 3, 0x81), { nil: undefined }),
  proprietary: fc.option(fc.uint8Array({ minLength: 1, maxLength: 40 }), { nil: undefined }),
  // What signPsbt may add to this input.
  partialSigs: fc.uniqueArray(fc.tuple(publicKey, derSignature), {
    maxLength: 2,
    selector: ([key]) => key.join(),
  }),
  tapKeySig: fc.option(fc.uint8Array({ minLength: 64, maxLength: 65 }), { nil: undefined }),
  tapInternalKey: fc.option(bytes(32), { nil: undefined }),
  redeemScript: fc.option(fc.uint8Array({ minLength: 1, maxLength: 60 }), { nil: undefined }),
})

const script = Uint8Array.of(0x00, 0x14, ...new Uint8Array(20).fill(7))

type InputCase = typeof inputArbitrary extends fc.Arbitrary<infer T> ? T : never

function psbtOf(inputs: InputCase[]): bitcoin.Psbt {
  const psbt = new bitcoin.Psbt()
  for (const input of inputs) {
    const parent = new bitcoin.Transaction()
    parent.addInput(input.seed, 0)
    for (let i = 0; i < input.parentOutputs; i++) parent.addOutput(script, BigInt(1000 + i))
    const vout = input.vout % input.parentOutputs
    psbt.addInput({
      hash: parent.getHash(),
      index: vout,
      ...(input.witnessUtxo ? { witnessUtxo: { script, value: BigInt(1000 + vout) } } : {}),
      ...(input.nonWitnessUtxo ? { nonWitnessUtxo: parent.toBuffer() } : {}),
      ...(input.derivation
        ? {
            bip32Derivation: [
              {
                masterFingerprint: Uint8Array.of(1, 2, 3, 4),
                pubkey: input.derivation,
                path: "m/84'/1'/0'/0/5",
              },
            ],
          }
        : {}),
      ...(input.sighashType ? { sighashType: input.sighashType } : {}),
    })
    if (input.proprietary) {
      psbt.data.addUnknownKeyValToInput(psbt.inputCount - 1, {
        key: Uint8Array.of(0xfc, ...input.proprietary),
        value: input.proprietary,
      })
    }
  }
  psbt.addOutput({ script, value: 500n })
  return psbt
}

describe('addToInputMaps', () => {
  it('gives the bytes bitcoinjs serializes after the same additions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(inputArbitrary, { minLength: 1, maxLength: 5 }), async (inputs) => {
        const decoded = await decodePsbt(psbtOf(inputs).toBase64())
        const additions = new Map<number, KeyValue[]>()
        for (const [index, input] of inputs.entries()) {
          const entries: KeyValue[] = []
          for (const [pubkey, signature] of input.partialSigs) {
            decoded.psbt.data.updateInput(index, { partialSig: [{ pubkey, signature }] })
            entries.push({ key: Uint8Array.of(inputKeyType.partialSig, ...pubkey), value: signature })
          }
          if (input.tapKeySig) {
            decoded.psbt.data.updateInput(index, { tapKeySig: input.tapKeySig })
            entries.push({ key: Uint8Array.of(inputKeyType.tapKeySig), value: input.tapKeySig })
          }
          if (input.tapInternalKey) {
            decoded.psbt.data.updateInput(index, { tapInternalKey: input.tapInternalKey })
            entries.push({ key: Uint8Array.of(inputKeyType.tapInternalKey), value: input.tapInternalKey })
          }
          if (input.redeemScript) {
            decoded.psbt.data.updateInput(index, { redeemScript: input.redeemScript })
            entries.push({ key: Uint8Array.of(inputKeyType.redeemScript), value: input.redeemScript })
          }
          additions.set(index, entries)
        }
        const ours = await addToInputMaps(decoded.bytes, decoded.inputMaps, additions, () => undefined)
        expect(Buffer.from(ours).toString('hex')).toBe(Buffer.from(decoded.psbt.toBuffer()).toString('hex'))
      }),
      { numRuns: 200 },
    )
  })

  it('keeps a map it adds nothing to as the dapp wrote it, and sorts one it adds to', async () => {
    // Input 0's map written by hand in reverse key order (proprietary key, then witnessUtxo).
    const witnessUtxo = Uint8Array.of(...new Uint8Array(8).fill(1), script.length, ...script)
    const psbt = new bitcoin.Psbt()
    psbt.addInput({ hash: new Uint8Array(32).fill(3), index: 0 })
    psbt.addInput({ hash: new Uint8Array(32).fill(4), index: 0 })
    psbt.addOutput({ script, value: 1n })
    const base = psbt.toBuffer()
    // base ends with: input 0 map (00), input 1 map (00), output map (00).
    const unsorted = Uint8Array.of(
      0x02,
      0xfc,
      0x01,
      0x01,
      0x09,
      0x01,
      0x01,
      witnessUtxo.length,
      ...witnessUtxo,
      0x00,
    )
    const head = base.subarray(0, base.length - 3)
    const dapp = Uint8Array.of(...head, ...unsorted, ...unsorted, 0x00)
    const decoded = await decodePsbt(Buffer.from(dapp).toString('base64'))
    const tapKeySig = new Uint8Array(64).fill(5)
    const ours = await addToInputMaps(
      dapp,
      decoded.inputMaps,
      new Map([[1, [{ key: Uint8Array.of(inputKeyType.tapKeySig), value: tapKeySig }]]]),
      () => undefined,
    )
    const sorted = Uint8Array.of(
      0x01,
      0x01,
      witnessUtxo.length,
      ...witnessUtxo,
      0x01,
      0x13,
      64,
      ...tapKeySig,
      0x02,
      0xfc,
      0x01,
      0x01,
      0x09,
      0x00,
    )
    expect(Buffer.from(ours).toString('hex')).toBe(
      Buffer.from(Uint8Array.of(...head, ...unsorted, ...sorted, 0x00)).toString('hex'),
    )
    expect(bitcoin.Psbt.fromBuffer(ours).data.inputs[1]!.tapKeySig).toEqual(tapKeySig)
  })

  it('orders keys as Buffer.compare does', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4 }), fc.uint8Array({ maxLength: 4 }), (a, b) => {
        expect(Math.sign(compareBytes(a, b))).toBe(Buffer.compare(Buffer.from(a), Buffer.from(b)))
      }),
    )
  })
})
