import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type Artifact,
  allocateRunes,
  decipherRunestone,
  decodeIntegers,
  encodeInteger,
} from '../../../src/bip122/assets/runestone.js'

// ord's own runestone cases (test-vectors/bip122/runestones.json, from ordinals/ord crates/ordinals/src/runestone.rs).
type Expected = Record<string, unknown> | null
const vectors = JSON.parse(
  readFileSync(new URL('../../../test-vectors/bip122/runestones.json', import.meta.url), 'utf8'),
) as {
  integerCases: { name: string; integers: string[]; outputs?: number; expected: Expected }[]
  scriptCases: { name: string; outputs: string[]; expected: Expected }[]
}

const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'))
const text = (value: bigint | undefined) => (value === undefined ? null : String(value))
const id = (value: { block: bigint; tx: number } | undefined) => (value ? `${value.block}:${value.tx}` : null)

/** The artifact in the vectors' JSON shape (u128 as decimal strings, ids as BLOCK:TX, absent as null). */
function asJson(artifact: Artifact | undefined): Expected {
  if (!artifact) return null
  if (artifact.kind === 'cenotaph')
    return { kind: 'cenotaph', flaw: artifact.flaw, etching: text(artifact.etching), mint: id(artifact.mint) }
  const etching = artifact.etching
  return {
    kind: 'runestone',
    edicts: artifact.edicts.map((edict) => ({
      id: id(edict.id),
      amount: String(edict.amount),
      output: edict.output,
    })),
    etching:
      etching === undefined
        ? null
        : {
            divisibility: etching.divisibility ?? null,
            premine: text(etching.premine),
            rune: text(etching.rune),
            spacers: etching.spacers ?? null,
            symbol: etching.symbol ?? null,
            terms:
              etching.terms === undefined
                ? null
                : {
                    amount: text(etching.terms.amount),
                    cap: text(etching.terms.cap),
                    height: etching.terms.height.map(text),
                    offset: etching.terms.offset.map(text),
                  },
            turbo: etching.turbo,
          },
    mint: id(artifact.mint),
    pointer: artifact.pointer ?? null,
  }
}

/** OP_RETURN OP_13 <one push of the LEB128 integers>, as ord's `decipher(&[..])` test helper builds it. */
function runestoneScript(integers: readonly bigint[]): Uint8Array {
  const payload = integers.flatMap(encodeInteger)
  const push = payload.length < 0x4c ? [payload.length] : [0x4c, payload.length]
  return Uint8Array.from([0x6a, 0x5d, ...push, ...payload])
}

describe('decipherRunestone: ord runestone.rs cases', () => {
  it.each(vectors.integerCases)('$name', ({ integers, outputs = 1, expected }) => {
    const scripts = [runestoneScript(integers.map(BigInt))]
    while (scripts.length < outputs) scripts.push(new Uint8Array(0))
    expect(asJson(decipherRunestone(scripts.map((script) => ({ script }))))).toEqual(expected)
  })

  it.each(vectors.scriptCases)('$name', ({ outputs, expected }) => {
    expect(asJson(decipherRunestone(outputs.map((script) => ({ script: hex(script) }))))).toEqual(expected)
  })

  it('all_pushdata_opcodes_are_valid: every push opcode 0–78 makes payload, not a cenotaph', () => {
    for (let opcode = 0; opcode < 79; opcode++) {
      const script = [0x6a, 0x5d, opcode]
      if (opcode <= 75) {
        for (let j = 0; j < opcode; j++) script.push(j % 2 === 0 ? 1 : 0)
        if (opcode % 2 === 1) script.push(1, 1)
      } else script.push(...{ 76: [0], 77: [0, 0], 78: [0, 0, 0, 0] }[opcode]!)
      expect(asJson(decipherRunestone([{ script: Uint8Array.from(script) }])), `opcode ${opcode}`).toEqual(
        asJson({
          kind: 'runestone',
          vout: 0,
          edicts: [],
          etching: undefined,
          mint: undefined,
          pointer: undefined,
        }),
      )
    }
  })

  it('all_non_pushdata_opcodes_are_invalid: opcodes 79–255 after the marker make an opcode cenotaph', () => {
    for (let opcode = 79; opcode <= 255; opcode++) {
      expect(decipherRunestone([{ script: Uint8Array.of(0x6a, 0x5d, opcode) }])).toMatchObject({
        kind: 'cenotaph',
        flaw: 'opcode',
      })
    }
  })
})

describe('LEB128 (ord varint.rs)', () => {
  it('round-trips every u128 and refuses overlong, overflowing and unterminated ones', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (n) => {
        expect(decodeIntegers(Uint8Array.from(encodeInteger(n)))).toEqual([n])
      }),
    )
    expect(decodeIntegers(Uint8Array.from(encodeInteger((1n << 128n) - 1n)))).toEqual([(1n << 128n) - 1n])
    // ord varint tests: 19 bytes is too long; the 19th byte may hold only the top 2 bits; a dangling byte.
    expect(decodeIntegers(Uint8Array.from([...Array(18).fill(0x80), 0x04]))).toBeUndefined()
    expect(decodeIntegers(Uint8Array.from([...Array(19).fill(0x80), 0x00]))).toBeUndefined()
    expect(decodeIntegers(Uint8Array.of(0x80))).toBeUndefined()
    expect(decodeIntegers(Uint8Array.from([...Array(18).fill(0x80), 0x03]))).toEqual([3n << 126n])
  })
})

describe('allocateRunes (ord rune_updater.rs, specification.md "Transferring")', () => {
  const wallet = { script: hex('0014' + '11'.repeat(20)) }
  const other = { script: hex('0014' + '22'.repeat(20)) }
  const opReturn = { script: hex('6a0401020304') }
  const stone = (integers: bigint[]) => ({ script: runestoneScript(integers) })
  const A = '840000:3'
  const B = '840000:7'
  const run = (outputs: { script: Uint8Array }[], balances: Record<string, bigint>) => {
    const allocation = allocateRunes(decipherRunestone(outputs), outputs, new Map(Object.entries(balances)))
    return {
      outputs: Object.fromEntries(
        [...allocation.outputs].map(([vout, entry]) => [vout, Object.fromEntries(entry)]),
      ),
      burned: Object.fromEntries(allocation.burned),
    }
  }

  it('no runestone: everything goes to the first output that is not OP_RETURN', () => {
    expect(run([opReturn, other, wallet], { [A]: 10n, [B]: 5n })).toEqual({
      outputs: { 1: { [A]: 10n, [B]: 5n } },
      burned: {},
    })
  })

  it('only OP_RETURN outputs: burned', () => {
    expect(run([opReturn], { [A]: 10n })).toEqual({ outputs: {}, burned: { [A]: 10n } })
  })

  it('a cenotaph burns every input rune, whatever its edicts say', () => {
    // An unrecognized even tag (126) before the body: ord reads a cenotaph.
    expect(run([wallet, stone([126n, 0n, 0n, 840000n, 3n, 4n, 0n])], { [A]: 10n, [B]: 5n })).toEqual({
      outputs: {},
      burned: { [A]: 10n, [B]: 5n },
    })
  })

  it('edicts: an amount to one output, the rest to the pointer', () => {
    // Edict A: 4 to output 1; pointer (tag 22) output 2.
    const outputs = [stone([22n, 2n, 0n, 840000n, 3n, 4n, 1n]), other, wallet]
    expect(run(outputs, { [A]: 10n, [B]: 5n })).toEqual({
      outputs: { 1: { [A]: 4n }, 2: { [A]: 6n, [B]: 5n } },
      burned: {},
    })
  })

  it('an edict above the balance takes what is left; amount 0 takes all; an edict for a rune not held does nothing', () => {
    // A: 15 to output 2 (only 10 held); B: 0 → output 1; 1:1 (not held) → output 0.
    const outputs = [stone([0n, 1n, 1n, 9n, 0n, 839999n, 3n, 15n, 2n, 0n, 4n, 0n, 1n]), other, wallet]
    expect(run(outputs, { [A]: 10n, [B]: 5n })).toEqual({
      outputs: { 2: { [A]: 10n }, 1: { [B]: 5n } },
      burned: {},
    })
  })

  it('output = number of outputs: amount 0 splits between the non-OP_RETURN outputs, the first ones get the remainder', () => {
    const outputs = [stone([0n, 840000n, 3n, 0n, 4n]), other, opReturn, wallet]
    expect(run(outputs, { [A]: 11n })).toEqual({ outputs: { 1: { [A]: 6n }, 3: { [A]: 5n } }, burned: {} })
  })

  it('output = number of outputs with an amount: that much to each, the rest to the first', () => {
    const outputs = [stone([0n, 840000n, 3n, 4n, 3n]), other, wallet]
    expect(run(outputs, { [A]: 10n })).toEqual({ outputs: { 1: { [A]: 6n }, 2: { [A]: 4n } }, burned: {} })
    // 7 held: 4 to output 1, the 3 left to output 2.
    expect(run(outputs, { [A]: 7n })).toEqual({ outputs: { 1: { [A]: 4n }, 2: { [A]: 3n } }, burned: {} })
  })

  it('an edict or a pointer to an OP_RETURN output burns', () => {
    const outputs = [stone([22n, 0n, 0n, 840000n, 3n, 4n, 1n]), wallet]
    expect(run(outputs, { [A]: 10n, [B]: 1n })).toEqual({
      outputs: { 1: { [A]: 4n } },
      burned: { [A]: 6n, [B]: 1n },
    })
  })
})
