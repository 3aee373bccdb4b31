import { beginCell, type Cell, type Slice } from '@ton/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CellSlice } from '../../src/ton/cellSlice.js'
import { fromCoreCell } from '../../src/ton/cells.js'

/**
 * CellSlice (what payload reviews read) against @ton/core's Slice (what they read before) on random cells
 * and random read sequences: every read gives the same value, or both throw. The one intended difference:
 * an anycast address, which CellSlice refuses (the review then calls the payload opaque).
 */
type Read = 'bit' | 'uint' | 'uintBig' | 'coins' | 'address' | 'maybeAddress' | 'stringTail' | 'ref'

const randomBits = (depth: number): fc.Arbitrary<Cell> =>
  fc
    .tuple(
      fc.array(fc.boolean(), { maxLength: 600 }),
      fc.option(fc.tuple(fc.constantFrom(0, -1, 5), fc.uint8Array({ minLength: 32, maxLength: 32 }))),
      fc.option(fc.string({ unit: 'binary', maxLength: 200 })),
      depth === 0 ? fc.constant([]) : fc.array(randomBits(depth - 1), { maxLength: 2 }),
    )
    .map(([bits, address, text, refs]) => {
      const builder = beginCell()
      // Well-formed fields first (so reads get past the start), then noise.
      if (address !== null)
        builder.storeUint(0b100, 3).storeInt(address[0], 8).storeBuffer(Buffer.from(address[1]))
      for (const bit of bits.slice(0, builder.availableBits)) builder.storeBit(bit)
      for (const ref of refs) builder.storeRef(ref)
      if (text !== null && refs.length === 0) builder.storeRef(beginCell().storeStringTail(text).endCell())
      return builder.endCell()
    })

const reads = fc.array(
  fc.tuple(
    fc.constantFrom<Read>('bit', 'uint', 'uintBig', 'coins', 'address', 'maybeAddress', 'stringTail', 'ref'),
    fc.integer({ min: 0, max: 32 }),
  ),
  { maxLength: 12 },
)

const attempt = (read: () => unknown) => {
  try {
    const value = read()
    if (value instanceof Uint8Array) return Buffer.from(value).toString('hex')
    if (value !== null && typeof value === 'object' && 'hash' in value && 'workChain' in value) {
      return String(value)
    }
    return value
  } catch {
    return 'threw'
  }
}

/** The methods both slices share; `loadRef` is compared by the referenced cell's hash. */
type Reader = Omit<CellSlice, 'loadRef' | 'loadBytes' | 'remainingBits' | 'remainingRefs'>

function readBoth(slice: Reader, loadRefHash: () => Uint8Array, read: Read, bits: number): unknown {
  switch (read) {
    case 'bit':
      return slice.loadBit()
    case 'uint':
      return slice.loadUint(bits)
    case 'uintBig':
      return slice.loadUintBig(bits * 2)
    case 'coins':
      return slice.loadCoins()
    case 'address':
      return slice.loadAddress()
    case 'maybeAddress':
      return slice.loadMaybeAddress()
    case 'stringTail':
      return slice.loadStringTail()
    case 'ref':
      return loadRefHash()
  }
}

/** An addr_std with the anycast bit set starts here. */
const isAnycast = (slice: Slice) => {
  try {
    const peek = slice.clone()
    return peek.loadUint(2) === 2 && peek.loadBit()
  } catch {
    return false
  }
}

describe('CellSlice against @ton/core Slice', () => {
  it('reads random cells as @ton/core does', () => {
    fc.assert(
      fc.property(randomBits(2), reads, (cell, sequence) => {
        const core = cell.beginParse()
        const fast = new CellSlice(fromCoreCell(cell))
        for (const [read, bits] of sequence) {
          const actual = attempt(() => readBoth(fast, () => fast.loadRef().hash, read, bits))
          if ((read === 'address' || read === 'maybeAddress') && isAnycast(core)) {
            expect(actual).toBe('threw')
            return
          }
          const expected = attempt(() => readBoth(core, () => core.loadRef().hash(), read, bits))
          expect(actual).toEqual(expected)
          if (expected === 'threw') return // @ton/core may have moved part way; stop comparing here.
          expect(fast.remainingBits).toBe(core.remainingBits)
          expect(fast.remainingRefs).toBe(core.remainingRefs)
        }
      }),
      { numRuns: 2000 },
    )
  })
})
