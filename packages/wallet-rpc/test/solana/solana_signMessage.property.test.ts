import { base64 } from '@scure/base'
import { createNoopSigner } from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decodesAsTransactionOrMessage } from '../../src/solana/methods/solana_signMessage.js'
import { decodeMessage, decodeTransaction } from '../../src/solana/transaction.js'
import { kitTransaction, legacyKitTransaction, ours, stranger } from './helpers.js'

/** The predicate before the header pre-check: both decoders, each tried in full. */
function decodedBefore(bytes: Uint8Array): boolean {
  for (const decode of [decodeTransaction, decodeMessage]) {
    try {
      decode(bytes, 'message')
      return true
    } catch {}
  }
  return false
}

/** Wire transactions and bare messages compiled by @solana/kit (legacy and v0, 1 to 3 transfers). */
const real = (() => {
  const out: Uint8Array[] = []
  for (const transfers of [1, 2, 3]) {
    const instructions = Array.from({ length: transfers }, (_, i) =>
      getTransferSolInstruction({
        source: createNoopSigner(ours()),
        destination: stranger,
        amount: 1000n + BigInt(i),
      }),
    )
    for (const { base64: wire, messageBytes } of [
      kitTransaction({ feePayer: ours(), instructions }),
      legacyKitTransaction(ours(), instructions),
    ]) {
      out.push(base64.decode(wire), messageBytes)
    }
  }
  return out
})()

function same(bytes: Uint8Array): void {
  expect(decodesAsTransactionOrMessage(bytes)).toBe(decodedBefore(bytes))
}

describe('solana_signMessage: the pre-check refuses exactly what the decoders refused', () => {
  it('every real transaction and message still decodes, and every truncation and extension agrees', () => {
    for (const bytes of real) {
      expect(decodesAsTransactionOrMessage(bytes)).toBe(true)
      for (let length = 0; length < bytes.length; length++) same(bytes.subarray(0, length))
      same(Uint8Array.of(...bytes, 0))
    }
  })

  it('agrees on real bytes with any value in any of the first 72 bytes (signature count, header, key count)', () => {
    for (const bytes of real) {
      for (let at = 0; at < 72; at++) {
        const changed = Uint8Array.from(bytes)
        for (let value = 0; value < 256; value++) {
          changed[at] = value
          same(changed)
        }
      }
    }
  })

  it('agrees on real bytes with one byte changed anywhere', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...real),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        (bytes, at, value) => {
          const changed = Uint8Array.from(bytes)
          changed[at % changed.length] = value
          same(changed)
        },
      ),
      { numRuns: 5000 },
    )
  })

  it('agrees on random bytes, on random bytes after a real header, and on text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => same(bytes)),
      { numRuns: 5000 },
    )
    fc.assert(
      fc.property(
        fc.constantFrom(...real),
        fc.integer({ min: 1, max: 80 }),
        fc.uint8Array({ maxLength: 400 }),
        (bytes, keep, tail) => same(Uint8Array.of(...bytes.subarray(0, keep), ...tail)),
      ),
      { numRuns: 5000 },
    )
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) =>
        same(new TextEncoder().encode(text)),
      ),
      { numRuns: 2000 },
    )
  })
})
