import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { equalBytes } from '../../src/bip122/transaction/bytes.js'

// equalBytes compares long arrays four bytes at a time through DataViews: the answer must be the plain
// byte-by-byte one at every length, offset into a larger buffer, and position of a difference.
describe('equalBytes', () => {
  it('equals a byte-by-byte comparison, at any length, offset and differing byte', () => {
    fc.assert(
      fc.property(
        // Lengths drawn evenly (fast-check's own sizes stay short): most arrays take the four-byte path.
        fc.nat({ max: 300 }).chain((length) => fc.uint8Array({ minLength: length, maxLength: length })),
        fc.nat({ max: 7 }),
        fc.nat({ max: 7 }),
        fc.option(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 }))),
        (bytes, leftOffset, rightOffset, change) => {
          const left = new Uint8Array(bytes.length + leftOffset)
          left.set(bytes, leftOffset)
          const right = new Uint8Array(bytes.length + rightOffset)
          right.set(bytes, rightOffset)
          const a = left.subarray(leftOffset)
          const b = right.subarray(rightOffset)
          if (change && bytes.length > 0) b[change[0] % bytes.length]! ^= change[1]
          const expected = a.length === b.length && a.every((byte, i) => byte === b[i])
          expect(equalBytes(a, b)).toBe(expected)
          if (b.length > 0) expect(equalBytes(a, b.subarray(1))).toBe(false)
        },
      ),
      { numRuns: 2000 },
    )
  })
})
