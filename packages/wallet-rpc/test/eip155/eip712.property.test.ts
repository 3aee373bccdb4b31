import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { bytesToHex, getAddress, hashTypedData, type TypedDataDefinition } from 'viem'
import { describe, expect, it } from 'vitest'
import { timeSlicer } from '../../src/core/yielding.js'
import { fastTypedDataDigest, typedDataDigest } from '../../src/eip155/eip712.js'

/**
 * Our EIP-712 encoder against viem's `hashTypedData` (the reference the namespace used before, itself
 * checked against eth-sig-util): random types (nested structs, arrays of structs and of atoms, every atomic
 * type and size) with random values in every spelling dapps send (bigint, number, decimal and hex strings,
 * checksummed and lower-case addresses), and the same with one value broken. Same digest, or both refuse.
 */
const mail = JSON.parse(
  readFileSync(new URL('../../test-vectors/eip155/eip712-mail.json', import.meta.url), 'utf8'),
) as { typedData: TypedDataDefinition; signingHash: string }

type Field = { name: string; type: string }

const sizes = Array.from({ length: 32 }, (_, i) => i + 1)
const atomicType = fc.oneof(
  fc.constantFrom('address', 'bool', 'string', 'bytes'),
  fc.constantFrom(...sizes).map((size) => `bytes${size}`),
  fc.constantFrom(...sizes).map((size) => `uint${size * 8}`),
  fc.constantFrom(...sizes).map((size) => `int${size * 8}`),
)

const hexOf = (bytes: Uint8Array) => bytesToHex(bytes)

/** A valid value of an atomic type, in one of the spellings dapps use. */
function atomicValue(type: string): fc.Arbitrary<unknown> {
  if (type === 'address')
    return fc
      .tuple(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.boolean())
      .map(([bytes, checksummed]) => (checksummed ? getAddress(hexOf(bytes)) : hexOf(bytes)))
  if (type === 'bool') return fc.boolean()
  if (type === 'string') return fc.string({ unit: 'grapheme', maxLength: 40 })
  if (type === 'bytes') return fc.uint8Array({ maxLength: 80 }).map(hexOf)
  const bytes = /^bytes(\d+)$/.exec(type)
  if (bytes) {
    const size = Number(bytes[1])
    return fc.uint8Array({ minLength: size, maxLength: size }).map(hexOf)
  }
  const integer = /^(u?)int(\d+)$/.exec(type)!
  const bits = BigInt(integer[2]!)
  const signed = integer[1] === ''
  const max = (1n << (signed ? bits - 1n : bits)) - 1n
  const min = signed ? -max - 1n : 0n
  return fc
    .tuple(
      fc.oneof(fc.bigInt({ min, max }), fc.constantFrom(min, max, 0n)),
      fc.constantFrom('bigint', 'number', 'decimal', 'hex'),
    )
    .map(([value, spelling]) => {
      if (
        spelling === 'number' &&
        value >= BigInt(Number.MIN_SAFE_INTEGER) &&
        value <= BigInt(Number.MAX_SAFE_INTEGER)
      )
        return Number(value)
      if (spelling === 'decimal') return value.toString()
      if (spelling === 'hex' && value >= 0n) return `0x${value.toString(16)}`
      return value
    })
}

/** Values that viem refuses or reads its own way; one of them replaces a valid value in the broken runs. */
const junk = fc.oneof(
  fc.constantFrom(undefined, null, true, 1.5, 2 ** 60, -1, '', '0x', '0x1', '0xzz', 'abc', '12a', {}, []),
  fc.bigInt({ min: -(2n ** 257n), max: 2n ** 257n }),
  fc.string({ maxLength: 10 }),
  fc.constant('0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD827'), // bad checksum
  fc.constant('0xCD2A3D9F938E13CD947EC05ABC7FE734DF8DD826'), // upper case
)

/** Struct types S0..Sn; Si may use Sj only for j > i (no cycles), alone or in an array. */
const typedData = fc
  .integer({ min: 1, max: 3 })
  .chain((count) =>
    fc.tuple(
      ...Array.from({ length: count }, (_, index) =>
        fc.array(
          fc.tuple(
            index + 1 < count
              ? fc.oneof(
                  atomicType,
                  fc.constantFrom(
                    ...Array.from({ length: count - index - 1 }, (_, j) => `S${index + 1 + j}`),
                  ),
                )
              : atomicType,
            fc.constantFrom('', '', '[]', '[2]', '[][]'),
          ),
          { minLength: 1, maxLength: 4 },
        ),
      ),
    ),
  )
  .chain((structs) => {
    const types: Record<string, Field[]> = {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
    }
    for (const [index, fields] of structs.entries()) {
      types[`S${index}`] = fields.map(([base, suffix], i) => ({ name: `f${i}`, type: `${base}${suffix}` }))
    }
    const arbitraryOf = (type: string): fc.Arbitrary<unknown> => {
      const array = /^(.*)\[(\d*)\]$/.exec(type)
      if (array) {
        const length = array[2] === '' ? undefined : Number(array[2])
        return fc.array(arbitraryOf(array[1]!), { minLength: length ?? 0, maxLength: length ?? 3 })
      }
      if (Object.hasOwn(types, type)) {
        return fc.record(
          Object.fromEntries(types[type]!.map((field) => [field.name, arbitraryOf(field.type)])),
        )
      }
      return atomicValue(type)
    }
    return fc
      .record({
        types: fc.constant(types),
        primaryType: fc.constant('S0'),
        domain: arbitraryOf('EIP712Domain'),
        message: arbitraryOf('S0'),
      })
      .map((definition) => definition as unknown as TypedDataDefinition)
  })

/** Replaces one leaf of `value` (picked by `seed`) with `replacement`. */
function breakOne(value: unknown, seed: number, replacement: unknown): unknown {
  const leaves: Array<{ parent: Record<string, unknown> | unknown[]; key: string | number }> = []
  const walk = (node: Record<string, unknown> | unknown[]) => {
    for (const [key, child] of Object.entries(node)) {
      if (isNode(child)) walk(child)
      else leaves.push({ parent: node, key: Array.isArray(node) ? Number(key) : key })
    }
  }
  const copy = structuredClone(value)
  if (isNode(copy)) walk(copy)
  const leaf = leaves[seed % Math.max(leaves.length, 1)]
  if (leaf !== undefined) (leaf.parent as Record<string | number, unknown>)[leaf.key] = replacement
  return copy
}
const isNode = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null

const outcome = (hash: () => string) => {
  try {
    return hash()
  } catch {
    return 'refused'
  }
}

describe('typedDataDigest (eip712.ts) against viem hashTypedData', () => {
  it('hashes EIP-712 Ether Mail to the spec signing hash, on the fast path', () => {
    expect(bytesToHex(fastTypedDataDigest(mail.typedData)!)).toBe(mail.signingHash)
    expect(bytesToHex(typedDataDigest(mail.typedData))).toBe(mail.signingHash)
  })

  it('gives viem’s digest for valid typed data, without falling back to viem', () => {
    fc.assert(
      fc.property(typedData, (definition) => {
        const expected = hashTypedData(definition)
        const fast = fastTypedDataDigest(definition)
        expect(fast && bytesToHex(fast)).toBe(expected)
      }),
      { numRuns: 400 },
    )
  })

  it('agrees with viem (same digest, or both refuse) when one value is broken', () => {
    fc.assert(
      fc.property(typedData, fc.nat(), junk, (definition, seed, replacement) => {
        const broken = {
          ...definition,
          message: breakOne(definition.message, seed, replacement),
        } as TypedDataDefinition
        const ours = outcome(() => bytesToHex(typedDataDigest(broken)))
        const theirs = outcome(() => hashTypedData(broken))
        expect(ours).toBe(theirs)
      }),
      { numRuns: 400 },
    )
  })

  it('the yielding digest (structs hashed first, in slices) gives the same answers, valid or broken', async () => {
    await fc.assert(
      fc.asyncProperty(
        typedData,
        fc.nat(),
        junk,
        fc.boolean(),
        async (definition, seed, replacement, breakIt) => {
          const input = breakIt
            ? ({
                ...definition,
                message: breakOne(definition.message, seed, replacement),
              } as TypedDataDefinition)
            : definition
          // Slices of 0 ms: a turn of the event loop between every two structs.
          let yielded: string
          try {
            const digest = await fastTypedDataDigest(input, timeSlicer(0))
            yielded = digest === undefined ? 'viem' : bytesToHex(digest)
          } catch {
            yielded = 'refused'
          }
          expect(yielded).toBe(
            outcome(() => {
              const digest = fastTypedDataDigest(input)
              return digest === undefined ? 'viem' : bytesToHex(digest)
            }),
          )
        },
      ),
      { numRuns: 400 },
    )
  })

  it('long arrays, hashed ahead 16 elements at a time, and one array object shared by fields of two types: viem digest', async () => {
    const word = fc.bigInt({ min: 0n, max: 2n ** 60n })
    await fc.assert(
      fc.asyncProperty(
        fc.array(word, { maxLength: 60 }),
        fc.array(
          fc.record({
            v: word,
            tags: fc.array(fc.uint8Array({ minLength: 32, maxLength: 32 }), { maxLength: 20 }),
          }),
          {
            maxLength: 40,
          },
        ),
        fc.array(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 20 }), { maxLength: 20 }),
        async (shared, items, grid) => {
          const input = {
            types: {
              EIP712Domain: [
                { name: 'name', type: 'string' },
                { name: 'salts', type: 'uint256[]' },
              ],
              Item: [
                { name: 'v', type: 'uint64' },
                { name: 'tags', type: 'bytes32[]' },
              ],
              Main: [
                { name: 'a', type: 'uint256[]' },
                { name: 'b', type: 'uint256[]' },
                { name: 'c', type: 'int256[]' },
                { name: 'items', type: 'Item[]' },
                { name: 'grid', type: 'uint8[][]' },
              ],
            },
            primaryType: 'Main',
            domain: { name: 'arrays', salts: shared },
            message: {
              a: shared,
              b: shared,
              c: shared,
              items: items.map(({ v, tags }) => ({ v, tags: tags.map(hexOf) })),
              grid,
            },
          } as unknown as TypedDataDefinition
          const yielded = await fastTypedDataDigest(input, timeSlicer(0))
          expect(yielded && bytesToHex(yielded)).toBe(hashTypedData(input))
          expect(bytesToHex(typedDataDigest(input))).toBe(hashTypedData(input))
        },
      ),
      { numRuns: 150 },
    )
  })

  it('caches type hashes without mixing types up (same name, different fields)', () => {
    const a = {
      ...mail.typedData,
      types: { ...mail.typedData.types, Person: [{ name: 'name', type: 'string' }] },
    }
    for (const definition of [mail.typedData, a, mail.typedData, a] as TypedDataDefinition[]) {
      expect(outcome(() => bytesToHex(typedDataDigest(definition)))).toBe(
        outcome(() => hashTypedData(definition)),
      )
    }
  })
})
