import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { satFlow } from '../../../src/bip122/assets/satFlow.js'

/**
 * An independent first-in-first-out: hand every input sat, one by one in input order, to the outputs in
 * output order; what no output takes is the fee. Written without prefix sums or search, to check satFlow.
 */
function naiveFifo(inputs: number[], outputs: number[]): Array<Array<number | 'fee'>> {
  const queue: Array<number | 'fee'> = []
  for (const [vout, value] of outputs.entries()) for (let i = 0; i < value; i++) queue.push(vout)
  return inputs.map((value) => Array.from({ length: value }, () => queue.shift() ?? 'fee'))
}

const amounts = fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 6 })

describe('satFlow: first in, first out', () => {
  it('places every sat of every input where the sat-by-sat walk does, and spreads ranges in order', () => {
    fc.assert(
      fc.property(amounts, amounts, (inputs, outputs) => {
        const flow = satFlow(inputs.map(BigInt), outputs.map(BigInt))
        const expected = naiveFifo(inputs, outputs)
        for (const [input, sats] of expected.entries()) {
          sats.forEach((destination, offset) => {
            expect(flow.locate(input, BigInt(offset))).toBe(destination)
          })
          if (sats.length > 0) expect(flow.spread(input, 0n, BigInt(sats.length))).toEqual([...new Set(sats)])
        }
      }),
    )
  })

  it('refuses an offset outside its input', () => {
    const flow = satFlow([10n, 5n], [12n])
    expect(() => flow.locate(1, 5n)).toThrow(RangeError)
    expect(() => flow.locate(2, 0n)).toThrow(RangeError)
    expect(flow.locate(1, 1n)).toBe(0)
    expect(flow.locate(1, 2n)).toBe('fee')
  })
})
