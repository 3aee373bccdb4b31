import * as bitcoin from 'bitcoinjs-lib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { psbtFromUnsignedTransaction } from '../../src/bip122/psbt/build.js'
import { decodePsbt } from '../../src/bip122/psbt/decode.js'

/**
 * decodePsbt hands a large PSBT to bitcoinjs a slice of input maps at a time (one parse of thousands of
 * inputs is one long block of the event loop). The decoded PSBT must be the one a single parse gives, and a
 * PSBT a single parse refuses must be refused.
 */

const script = Uint8Array.of(0x00, 0x14, ...new Uint8Array(20).fill(7))
const count = 700

/** `count` inputs with varied fields: parents, witnessUtxo, BIP-32 derivations, sighash types, proprietary keys. */
function largePsbt(): Uint8Array {
  const parents = Array.from({ length: count }, (_, i) => {
    const parent = new bitcoin.Transaction()
    parent.addInput(new Uint8Array(32).fill(i % 256), i)
    parent.addOutput(script, BigInt(10_000 + i))
    return parent
  })
  const psbt = psbtFromUnsignedTransaction({
    version: 2,
    locktime: 0,
    inputs: parents.map((parent) => ({
      txid: parent.getHash(),
      vout: 0,
      sequence: 0xfffffffd,
      scriptSig: new Uint8Array(0),
      witness: [],
    })),
    outputs: [{ script, value: 1000n }],
  })
  parents.forEach((parent, i) => {
    psbt.updateInput(i, {
      ...(i % 3 !== 0 ? { witnessUtxo: { script, value: BigInt(10_000 + i) } } : {}),
      ...(i % 2 === 0 ? { nonWitnessUtxo: parent.toBuffer() } : {}),
      ...(i % 5 === 0 ? { sighashType: 1 } : {}),
      ...(i % 7 === 0
        ? {
            bip32Derivation: [
              {
                masterFingerprint: Uint8Array.of(1, 2, 3, 4),
                pubkey: Uint8Array.of(2, ...new Uint8Array(32).fill(i % 256)),
                path: `m/84'/1'/0'/0/${i}`,
              },
            ],
          }
        : {}),
    })
    if (i % 11 === 0)
      psbt.data.addUnknownKeyValToInput(i, {
        key: Uint8Array.of(0xfc, i % 256),
        value: Uint8Array.of(i % 256),
      })
  })
  return psbt.toBuffer()
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')

describe('decodePsbt parses large PSBTs in slices', () => {
  const bytes = largePsbt()

  it('gives the PSBT one bitcoinjs parse gives', async () => {
    const decoded = await decodePsbt(base64(bytes))
    const whole = bitcoin.Psbt.fromBuffer(bytes)
    expect(decoded.psbt.data.inputs).toEqual(whole.data.inputs)
    expect(decoded.psbt.data.outputs).toEqual(whole.data.outputs)
    expect(decoded.psbt.data.globalMap).toEqual(whole.data.globalMap)
    expect(decoded.psbt.toBuffer()).toEqual(whole.toBuffer())
    expect(decoded.prevoutSources.filter((source) => source === 'nonWitnessUtxo')).toHaveLength(count / 2)
  })

  it('refuses what one parse refuses, and otherwise decodes the same PSBT', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat(bytes.length - 6), fc.integer({ min: 1, max: 255 }), async (at, flip) => {
        const mutated = bytes.slice()
        mutated[5 + at] = mutated[5 + at]! ^ flip
        let whole: bitcoin.Psbt | undefined
        try {
          whole = bitcoin.Psbt.fromBuffer(mutated)
        } catch {
          whole = undefined
        }
        let decoded: Awaited<ReturnType<typeof decodePsbt>> | undefined
        try {
          decoded = await decodePsbt(base64(mutated))
        } catch {
          decoded = undefined
        }
        if (whole === undefined) expect(decoded).toBeUndefined()
        if (decoded !== undefined) expect(decoded.psbt.toBuffer()).toEqual(whole!.toBuffer())
      }),
      { numRuns: 60 },
    )
  })
})
