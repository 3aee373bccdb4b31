import * as bitcoin from 'bitcoinjs-lib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  parseTransaction,
  serializeTransaction,
  type Transaction,
  transactionId,
  transactionOutputs,
  txidToHash,
} from '../../src/bip122/transaction/transaction.js'

/** What reading a parent the long way gives: the full parse, then the txid of its re-serialization. */
function fullRead(bytes: Uint8Array): { hash: Uint8Array; outputs: Transaction['outputs'] } | 'throws' {
  try {
    const tx = parseTransaction(bytes)
    return { hash: txidToHash(transactionId(tx)), outputs: tx.outputs }
  } catch {
    return 'throws'
  }
}

function quickRead(bytes: Uint8Array) {
  let read: ReturnType<typeof transactionOutputs>
  try {
    read = transactionOutputs(bytes)
  } catch {
    return 'throws'
  }
  // Every output, and nothing past the last.
  expect(read.output(read.outputCount)).toBeUndefined()
  return {
    hash: read.hash,
    outputs: Array.from({ length: read.outputCount }, (_, vout) => read.output(vout)),
  }
}

const bytes = (max: number) => fc.uint8Array({ maxLength: max })
const transaction = fc.record({
  version: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  locktime: fc.nat({ max: 2 ** 32 - 1 }),
  inputs: fc.array(
    fc.record({
      txid: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      vout: fc.nat({ max: 2 ** 32 - 1 }),
      sequence: fc.nat({ max: 2 ** 32 - 1 }),
      scriptSig: bytes(300),
      witness: fc.array(bytes(80), { maxLength: 3 }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  outputs: fc.array(fc.record({ value: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), script: bytes(300) }), {
    maxLength: 4,
  }),
})

describe('transactionOutputs reads a parent as parseTransaction + transactionId do', () => {
  it('random legacy and BIP-144 transactions: same txid, same outputs', () => {
    fc.assert(
      fc.property(transaction, (tx) => {
        const serialized = serializeTransaction(tx)
        expect(quickRead(serialized)).toEqual(fullRead(serialized))
      }),
      { numRuns: 500 },
    )
  })

  it('mutated and truncated bytes: refused exactly when the full parse refuses, else the same answer', () => {
    fc.assert(
      fc.property(transaction, fc.nat(), fc.integer({ min: 1, max: 255 }), fc.nat(), (tx, at, xor, cut) => {
        const serialized = serializeTransaction(tx)
        const mutated = Uint8Array.from(serialized)
        mutated[at % mutated.length]! ^= xor
        expect(quickRead(mutated)).toEqual(fullRead(mutated))
        const truncated = serialized.subarray(0, cut % serialized.length)
        expect(quickRead(truncated)).toEqual(fullRead(truncated))
      }),
      { numRuns: 1000 },
    )
  })

  it("a segwit transaction's txid is bitcoinjs-lib's (the witness-free hash)", () => {
    const tx = new bitcoin.Transaction()
    tx.version = 2
    tx.addInput(new Uint8Array(32).fill(3), 1)
    tx.setWitness(0, [new Uint8Array(71).fill(1), new Uint8Array(33).fill(2)])
    tx.addOutput(Uint8Array.of(0x51), 5000n)
    const read = transactionOutputs(tx.toBuffer())
    expect(read.hash).toEqual(txidToHash(tx.getId()))
    expect(read.outputCount).toBe(1)
    expect(read.output(0)).toEqual({ value: 5000n, script: Uint8Array.of(0x51) })
    expect(read.output(1)).toBeUndefined()
    expect(read.output(-1)).toBeUndefined()
  })
})
