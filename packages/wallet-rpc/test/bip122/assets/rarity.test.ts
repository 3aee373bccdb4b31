import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  blockRarity,
  epochStartingSats,
  epochSubsidy,
  rareSatsIn,
  satRarity,
  satSupply,
} from '../../../src/bip122/assets/rarity.js'

// ord's own cases (test-vectors/bip122/ordinals-rarity.json, from ordinals/ord crates/ordinals/src).
const vectors = JSON.parse(
  readFileSync(new URL('../../../test-vectors/bip122/ordinals-rarity.json', import.meta.url), 'utf8'),
) as {
  rarity: { sat: string; rarity: string }[]
  epochStartingSats: string[]
  supply: Record<string, number | string>
}

describe('sat rarity (ord rarity.rs, epoch.rs)', () => {
  it.each(vectors.rarity)('sat $sat is $rarity', ({ sat, rarity }) => {
    expect(satRarity(Number(sat))).toBe(rarity)
  })

  it("every epoch's first sat is ord's Epoch::STARTING_SATS, the last one the supply", () => {
    expect(epochStartingSats.map(String)).toEqual(vectors.epochStartingSats)
    expect(epochStartingSats.at(-1)).toBe(satSupply)
    expect(String(satSupply)).toBe(vectors.supply.sats)
  })

  it("counting every block's first sat over the whole supply gives ord's Rarity::supply", () => {
    const counts: Record<string, number> = {}
    const { rare, more } = rareSatsIn([[0, satSupply]], 7_000_000)
    expect(more).toBe(false)
    for (const sat of rare) counts[sat.rarity] = (counts[sat.rarity] ?? 0) + 1
    for (const rarity of ['uncommon', 'rare', 'epic', 'legendary', 'mythic'])
      expect(counts[rarity], rarity).toBe(vectors.supply[rarity])
  })

  it('rareSatsIn finds exactly the non-common sats of any ranges, at their offsets (checked sat by sat)', () => {
    // Ranges around block starts of several epochs, walked one sat at a time by satRarity.
    const near = fc.constantFrom(
      0,
      50e8,
      50e8 * 2016,
      epochStartingSats[1]!,
      epochStartingSats[31]!,
      satSupply - 40,
    )
    const range = fc
      .tuple(near, fc.integer({ min: -30, max: 30 }), fc.integer({ min: 1, max: 40 }))
      .map(([base, shift, size]) => {
        const start = Math.min(Math.max(0, base + shift), satSupply - 1)
        return [start, Math.min(start + size, satSupply)] as [number, number]
      })
    fc.assert(
      fc.property(fc.array(range, { minLength: 1, maxLength: 4 }), (ranges) => {
        const expected: { sat: number; offset: number; rarity: string }[] = []
        let offset = 0
        for (const [start, end] of ranges) {
          for (let sat = start; sat < end; sat++, offset++) {
            const rarity = satRarity(sat)
            if (rarity !== 'common') expected.push({ sat, offset, rarity })
          }
        }
        expect(rareSatsIn(ranges, 1000)).toEqual({ rare: expected, more: false })
      }),
    )
  })

  it('lists at most `limit` and says there are more', () => {
    const { rare, more } = rareSatsIn([[0, 50e8 * 10]], 3)
    expect(rare.map((sat) => sat.offset)).toEqual([0, 50e8, 100e8])
    expect(more).toBe(true)
  })

  it('subsidies halve with integer truncation; heights name their rarity', () => {
    expect(epochSubsidy(0)).toBe(50e8)
    expect(epochSubsidy(10)).toBe(4_882_812)
    expect(epochSubsidy(33)).toBe(0)
    expect([0, 1, 2016, 210_000, 1_260_000].map(blockRarity)).toEqual([
      'mythic',
      'uncommon',
      'rare',
      'epic',
      'legendary',
    ])
  })
})
