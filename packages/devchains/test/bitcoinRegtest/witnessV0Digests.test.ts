import * as btc from '@scure/btc-signer'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseRawTransaction, witnessV0Digests } from '../../src/bitcoinRegtest/validate.js'

// The chain's BIP-143 digest (hashes shared across inputs) against @scure/btc-signer's preimageWitnessV0
// (recomputed per input), on random transactions, inputs, script codes, amounts and every standard hash type.
const bytes = (length: number) => fc.uint8Array({ minLength: length, maxLength: length })
const transaction = fc.record({
  // Every int32 (BIP-143 writes nVersion as 4 signed bytes); the chain's policy refuses all but 1 and 2 later.
  version: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  lockTime: fc.nat({ max: 0xffffffff }),
  inputs: fc.array(
    fc.record({ txid: bytes(32), index: fc.nat({ max: 0xffffffff }), sequence: fc.nat({ max: 0xffffffff }) }),
    {
      minLength: 1,
      maxLength: 8,
    },
  ),
  outputs: fc.array(
    fc.record({
      amount: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
      script: fc.uint8Array({ minLength: 0, maxLength: 300 }),
    }),
    { minLength: 1, maxLength: 8 },
  ),
})

describe('witnessV0Digests', () => {
  it('equals scure preimageWitnessV0 for every input and hash type', () => {
    fc.assert(
      fc.property(
        transaction,
        fc.uint8Array({ maxLength: 260 }),
        fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }),
        fc.constantFrom(0x01, 0x02, 0x03, 0x81, 0x82, 0x83),
        (fields, scriptCode, value, hashType) => {
          const raw = btc.RawTx.encode({
            ...fields,
            segwitFlag: false,
            inputs: fields.inputs.map((input) => ({ ...input, finalScriptSig: new Uint8Array(0) })),
          })
          const digests = witnessV0Digests(parseRawTransaction(raw))
          const scure = btc.Transaction.fromRaw(raw, {
            allowUnknownOutputs: true,
            allowUnknownInputs: true,
            disableScriptCheck: true,
            allowUnknownVersion: true,
          })
          for (let index = 0; index < fields.inputs.length; index++) {
            expect(digests(index, scriptCode, hashType, value)).toEqual(
              scure.preimageWitnessV0(index, scriptCode, hashType, value),
            )
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
