import { readFileSync } from 'node:fs'
import * as btc from '@scure/btc-signer'
import { Transaction as BitcoinjsTransaction, script as bitcoinScript } from 'bitcoinjs-lib'
import fc from 'fast-check'
import * as tiny from 'tiny-secp256k1'
import { describe, expect, it } from 'vitest'
import { fromHex, toHex } from '../../src/bip122/transaction/bytes.js'
import { encodeDerSignature } from '../../src/bip122/transaction/scripts.js'
import { createSighashCache, type Prevout, SighashError } from '../../src/bip122/transaction/sighash.js'
import { derToCompact } from '../../src/bip122/transaction/sign.js'
import {
  parseTransaction,
  serializeTransaction,
  type Transaction,
  transactionId,
} from '../../src/bip122/transaction/transaction.js'

const bip341 = JSON.parse(
  readFileSync(new URL('../../test-vectors/bip122/bip341-wallet-test-vectors.json', import.meta.url), 'utf8'),
)
const bip143 = JSON.parse(
  readFileSync(new URL('../../test-vectors/bip122/bip143-examples.json', import.meta.url), 'utf8'),
)

describe('BIP-341 wallet vectors (keyPathSpending)', () => {
  const vector = bip341.keyPathSpending
  const tx = parseTransaction(fromHex(vector.given.rawUnsignedTx))
  const prevouts: Prevout[] = vector.given.utxosSpent.map(
    (utxo: { scriptPubKey: string; amountSats: number }) => ({
      script: fromHex(utxo.scriptPubKey),
      value: BigInt(utxo.amountSats),
    }),
  )

  it('round-trips the unsigned transaction byte for byte', () => {
    expect(toHex(serializeTransaction(tx))).toBe(vector.given.rawUnsignedTx)
  })

  for (const input of vector.inputSpending) {
    it(`input ${input.txinIndex}, hashType ${input.hashType}: sigHash and signature`, () => {
      const sighash = createSighashCache(tx, prevouts).taprootKeyPath(input.txinIndex, input.hashType)
      expect(toHex(sighash)).toBe(input.sigHash)
      // The vectors sign with an all-zero aux_rand (BIP-341 wallet vectors, "auxiliary" notes).
      const signature = tiny.signSchnorr(sighash, fromHex(input.tweakedPrivkey), new Uint8Array(32))
      const suffix = input.hashType === 0 ? '' : input.hashType.toString(16).padStart(2, '0')
      expect(toHex(signature) + suffix).toBe(input.witness[0])
    })
  }
})

describe('BIP-143 examples', () => {
  for (const vector of bip143.cases) {
    it(`${vector.name}: sigHash and RFC 6979 signature`, () => {
      const tx = parseTransaction(fromHex(vector.unsignedTx))
      const sighash = createSighashCache(tx).witnessV0(
        vector.inputIndex,
        fromHex(vector.scriptCode),
        BigInt(vector.amountSats),
        vector.hashType,
      )
      expect(toHex(sighash)).toBe(vector.sigHash)
      const compact = tiny.sign(sighash, fromHex(vector.privateKey))
      // bitcoinjs' DER encoder appends the hash type byte; the BIP lists the DER body alone.
      const der = bitcoinScript.signature.encode(compact, vector.hashType)
      expect(toHex(der.subarray(0, -1))).toBe(vector.signature)
    })
  }

  it('P2SH-P2WPKH signed transaction parses and re-serializes identically', () => {
    const vector = bip143.cases[1]
    const tx = parseTransaction(fromHex(vector.signedTx))
    expect(toHex(serializeTransaction(tx))).toBe(vector.signedTx)
    expect(transactionId(tx)).toBe(BitcoinjsTransaction.fromHex(vector.signedTx).getId())
  })
})

// Random transactions: our cached digests must equal bitcoinjs-lib's and @scure/btc-signer's for every
// input and every hash type. Two independent implementations agreeing is the proof.
const scriptArb = fc.oneof(
  fc.uint8Array({ minLength: 22, maxLength: 22 }).map((b) => Uint8Array.from([0x00, 0x14, ...b.subarray(2)])),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Uint8Array.from([0x51, 0x20, ...b])),
  fc
    .uint8Array({ minLength: 20, maxLength: 20 })
    .map((b) => Uint8Array.from([0x76, 0xa9, 0x14, ...b, 0x88, 0xac])),
)
const txArb = fc.record({
  version: fc.constantFrom(1, 2),
  locktime: fc.integer({ min: 0, max: 0xffffffff }),
  inputs: fc.array(
    fc.record({
      txid: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      vout: fc.integer({ min: 0, max: 20 }),
      sequence: fc.constantFrom(0xffffffff, 0xfffffffd, 0, 12345),
      prevout: fc.record({ script: scriptArb, value: fc.bigInt({ min: 1n, max: 2_100_000_000_000_000n }) }),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  outputs: fc.array(
    fc.record({ script: scriptArb, value: fc.bigInt({ min: 0n, max: 2_100_000_000_000_000n }) }),
    {
      minLength: 1,
      maxLength: 5,
    },
  ),
})

type TxModel = typeof txArb extends fc.Arbitrary<infer T> ? T : never

function toTransaction(model: TxModel): Transaction {
  return {
    version: model.version,
    locktime: model.locktime,
    inputs: model.inputs.map((input) => ({ ...input, scriptSig: new Uint8Array(0), witness: [] })),
    outputs: model.outputs,
  }
}

describe('cross-check against bitcoinjs-lib and @scure/btc-signer', () => {
  it('BIP-143, BIP-341 and legacy digests agree for every input and hash type', () => {
    fc.assert(
      fc.property(txArb, (model) => {
        const tx = toTransaction(model)
        const raw = serializeTransaction(tx)
        const bitcoinjs = BitcoinjsTransaction.fromBuffer(raw)
        const scure = btc.Transaction.fromRaw(raw, { allowUnknownOutputs: true, allowUnknownInputs: true })
        const prevouts = model.inputs.map((input) => input.prevout)
        const ours = createSighashCache(tx, prevouts)
        const scripts = prevouts.map((p) => p.script)
        const values = prevouts.map((p) => p.value)
        for (let index = 0; index < tx.inputs.length; index++) {
          const scriptCode = fromHex(`76a914${'11'.repeat(20)}88ac`)
          for (const hashType of [0x01, 0x02, 0x03, 0x81, 0x82, 0x83]) {
            const single = (hashType & 0x1f) === 0x03 && index >= tx.outputs.length
            if (!single) {
              const v0 = ours.witnessV0(index, scriptCode, values[index]!, hashType)
              expect(toHex(v0)).toBe(
                toHex(bitcoinjs.hashForWitnessV0(index, scriptCode, values[index]!, hashType)),
              )
              expect(toHex(v0)).toBe(
                toHex(scure.preimageWitnessV0(index, scriptCode, hashType, values[index]!)),
              )
              const legacy = ours.legacy(index, scriptCode, hashType)
              expect(toHex(legacy)).toBe(toHex(bitcoinjs.hashForSignature(index, scriptCode, hashType)))
            } else {
              expect(() => ours.legacy(index, scriptCode, hashType)).toThrow(SighashError)
              expect(() => ours.taprootKeyPath(index, hashType)).toThrow(SighashError)
            }
          }
          for (const hashType of [0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83]) {
            if ((hashType & 0x03) === 0x03 && index >= tx.outputs.length) continue
            const v1 = ours.taprootKeyPath(index, hashType)
            // bitcoinjs-lib 7 sizes the ANYONECANPAY message for a 34-byte P2TR prevout script only.
            if (!(hashType & 0x80) || scripts[index]!.length === 34) {
              expect(toHex(v1)).toBe(toHex(bitcoinjs.hashForWitnessV1(index, scripts, values, hashType)))
            }
            expect(toHex(v1)).toBe(toHex(scure.preimageWitnessV1(index, scripts, hashType, values)))
          }
        }
      }),
      { numRuns: 60 },
    )
  })

  it('BIP-143 digests agree for scriptCodes of any length, one cache reused across them', () => {
    // The per-input preimage buffer is shared and grows on demand; CompactSize takes 3 bytes past 252.
    fc.assert(
      fc.property(
        txArb,
        fc.array(fc.uint8Array({ maxLength: 600 }), { minLength: 1, maxLength: 8 }),
        (model, scriptCodes) => {
          const tx = toTransaction(model)
          const raw = serializeTransaction(tx)
          const bitcoinjs = BitcoinjsTransaction.fromBuffer(raw)
          const ours = createSighashCache(tx)
          scriptCodes.forEach((scriptCode, i) => {
            const index = i % tx.inputs.length
            const value = model.inputs[index]!.prevout.value
            expect(toHex(ours.witnessV0(index, scriptCode, value, 0x01))).toBe(
              toHex(bitcoinjs.hashForWitnessV0(index, scriptCode, value, 0x01)),
            )
          })
        },
      ),
      { numRuns: 100 },
    )
  })

  it('taproot digests refuse to guess a missing prevout', () => {
    const tx = parseTransaction(fromHex(bip341.keyPathSpending.given.rawUnsignedTx))
    expect(() => createSighashCache(tx, []).taprootKeyPath(0, 0)).toThrow(SighashError)
  })

  it('serialization and txid agree with bitcoinjs-lib', () => {
    fc.assert(
      fc.property(txArb, (model) => {
        const tx = toTransaction(model)
        const raw = serializeTransaction(tx)
        expect(transactionId(tx)).toBe(BitcoinjsTransaction.fromBuffer(raw).getId())
        expect(toHex(serializeTransaction(parseTransaction(raw)))).toBe(toHex(raw))
      }),
      { numRuns: 50 },
    )
  })
})

describe('DER signature encoding', () => {
  it('matches bitcoinjs-lib for random and edge-case signatures, and parses back', () => {
    const edge = [
      new Uint8Array(64).fill(0x01),
      Uint8Array.from({ length: 64 }, (_, i) => (i === 31 || i === 63 ? 1 : 0)),
      Uint8Array.from({ length: 64 }, (_, i) => (i % 32 === 0 ? 0x80 : 0x11)),
      Uint8Array.from({ length: 64 }, (_, i) => (i % 32 < 2 ? 0 : 0x90)),
    ]
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.constantFrom(...edge)),
        fc.constantFrom(0x01, 0x02, 0x03, 0x81, 0x82, 0x83),
        (compact, hashType) => {
          fc.pre(compact.subarray(0, 32).some((b) => b !== 0) && compact.subarray(32).some((b) => b !== 0))
          const ours = encodeDerSignature(compact, hashType)
          expect(toHex(ours)).toBe(toHex(bitcoinScript.signature.encode(compact, hashType)))
          expect(toHex(derToCompact(ours.subarray(0, -1))!)).toBe(toHex(compact))
        },
      ),
      { numRuns: 300 },
    )
  })
})
