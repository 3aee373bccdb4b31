import { beginCell, Cell } from '@ton/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { InvalidParamsError } from '../../src/core/errors.js'
import { fastBoc, fromCoreCell } from '../../src/ton/cells.js'
import { parseBoc, parseFastBoc } from '../../src/ton/params.js'
import { readBoc } from '../../src/ton/readBoc.js'

/**
 * Our BoC reader (readBoc.ts) against @ton/core's `Cell.fromBoc` on random BoCs: ordinary trees (shared
 * cells too), trees holding exotic cells (library cells, pruned branches), written with and without index
 * and CRC, then corrupted (a flipped byte, truncated, extended) or plain random bytes. Whatever readBoc
 * accepts, @ton/core accepts with the same hashes and bytes; `parseFastBoc`, what ton_sendMessage uses,
 * accepts and refuses exactly what `parseBoc` (@ton/core) does, with the same cell hash.
 */
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

const library = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((hash) => beginCell().storeUint(2, 8).storeBuffer(Buffer.from(hash)).endCell({ exotic: true }))

const pruned = fc
  .uint8Array({ minLength: 34, maxLength: 34 })
  .map((bytes) =>
    beginCell().storeUint(1, 8).storeUint(1, 8).storeBuffer(Buffer.from(bytes)).endCell({ exotic: true }),
  )

const cell = (depth: number, exotic: boolean): fc.Arbitrary<Cell> => {
  const ordinary = fc
    .tuple(
      fc.array(fc.boolean(), { maxLength: depth === 3 ? 1023 : 200 }),
      depth === 0 ? fc.constant([]) : fc.array(cell(depth - 1, exotic), { maxLength: 3 }),
      fc.boolean(),
    )
    .map(([bits, refs, shareFirst]) => {
      const builder = beginCell()
      for (const bit of bits) builder.storeBit(bit)
      for (const ref of refs) builder.storeRef(ref)
      // The same cell twice: BoCs store it once (a DAG, not a tree).
      if (shareFirst && refs.length > 0 && refs.length < 4) builder.storeRef(refs[0]!)
      return builder.endCell()
    })
  return exotic && depth < 3 ? fc.oneof({ weight: 4, arbitrary: ordinary }, library, pruned) : ordinary
}

const written = fc
  .tuple(cell(3, false), fc.boolean(), fc.boolean())
  .chain(([root, idx, crc32]) => fc.constant(new Uint8Array(root.toBoc({ idx, crc32 }))))

const withExotic = fc
  .tuple(cell(3, true), fc.boolean(), fc.boolean())
  .map(([root, idx, crc32]) => new Uint8Array(root.toBoc({ idx, crc32 })))

const corrupted = fc
  .tuple(fc.oneof(written, withExotic), fc.nat(), fc.integer({ min: 1, max: 255 }), fc.nat({ max: 3 }))
  .map(([boc, at, xor, how]) => {
    const out = new Uint8Array(boc)
    if (how === 0) out[at % out.length]! ^= xor
    if (how === 1) return out.subarray(0, at % out.length)
    if (how === 2) return new Uint8Array([...out, xor])
    if (how === 3) out[4 + (at % 2)]! ^= xor // the flags and size bytes
    return out
  })

const anyBoc = fc.oneof(
  written,
  withExotic,
  corrupted,
  fc.uint8Array({ maxLength: 64 }).map((tail) => new Uint8Array([0xb5, 0xee, 0x9c, 0x72, ...tail])),
)

const coreRoots = (boc: Uint8Array): Cell[] | undefined => {
  try {
    return Cell.fromBoc(Buffer.from(boc))
  } catch {
    return undefined
  }
}

const outcome = (run: () => { hash: Uint8Array }) => {
  try {
    return hex(run().hash)
  } catch (error) {
    return error instanceof InvalidParamsError ? `refused: ${error.message}` : `threw ${String(error)}`
  }
}

describe('readBoc against @ton/core', () => {
  it('reads the BoCs @ton/core writes, with its hashes and bytes', () => {
    fc.assert(
      fc.property(written, (boc) => {
        const ours = readBoc(boc)
        const [theirs] = Cell.fromBoc(Buffer.from(boc))
        expect(ours).toBeDefined()
        expect(hex(ours!.hash)).toBe(theirs!.hash().toString('hex'))
        expect(ours!.depth).toBe(theirs!.depth())
        expect(hex(fastBoc(ours!))).toBe(theirs!.toBoc().toString('hex'))
      }),
      { numRuns: 300 },
    )
  })

  it('accepts only what @ton/core accepts, with the same cells', () => {
    fc.assert(
      fc.property(anyBoc, (boc) => {
        const ours = readBoc(boc)
        if (ours === undefined) return
        const theirs = coreRoots(boc)
        expect(theirs?.length).toBe(1)
        expect(hex(ours.hash)).toBe(theirs![0]!.hash().toString('hex'))
      }),
      { numRuns: 3000 },
    )
  })

  it('parseFastBoc accepts and refuses what parseBoc does, with the same hash', () => {
    fc.assert(
      fc.property(anyBoc, (boc) => {
        const text = Buffer.from(boc).toString('base64')
        const before = outcome(() => {
          const root = parseBoc(text, 'payload')
          return { hash: root.hash() }
        })
        expect(outcome(() => parseFastBoc(text, 'payload'))).toBe(before)
      }),
      { numRuns: 3000 },
    )
  })

  it('leaves exotic cells, non-canonical padding and odd flags to @ton/core', () => {
    const libraryCell = beginCell().storeUint(2, 8).storeBuffer(Buffer.alloc(32, 7)).endCell({ exotic: true })
    expect(readBoc(libraryCell.toBoc())).toBeUndefined()
    const fast = parseFastBoc(libraryCell.toBoc().toString('base64'), 'payload')
    expect(fast.exotic).toBe(true)
    expect(hex(fast.hash)).toBe(libraryCell.hash().toString('hex'))
    expect(fromCoreCell(libraryCell).allOrdinary).toBe(false)
    // 8 bits written with a completion tag in a byte of its own: @ton/core reads it, we leave it to it.
    const padded = Buffer.from('b5ee9c7201010101000400000301ff80', 'hex')
    expect(readBoc(padded)).toBeUndefined()
    expect(hex(parseFastBoc(padded.toString('base64'), 'payload').hash)).toBe(
      Cell.fromBoc(padded)[0]!.hash().toString('hex'),
    )
  })
})
