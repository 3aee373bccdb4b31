/**
 * Rare sats by ordinal theory (ordinals/ord `crates/ordinals/src/{rarity,sat,epoch,degree}.rs`): sats are
 * numbered in the order they were mined, and a sat's rarity follows from its number alone. Every non-common
 * sat is the first sat of a block: uncommon (any block), rare (a difficulty adjustment, every 2016 blocks),
 * epic (a halving, every 210,000), legendary (both at once, every 1,260,000 blocks: a cycle), mythic (sat 0).
 * Sat numbers stay below 2.1e15, so plain numbers are exact.
 */

export type Rarity = 'uncommon' | 'rare' | 'epic' | 'legendary' | 'mythic'

/** A non-common sat found in an output: its number, its offset within the output, and its rarity. */
export type RareSat = { sat: number; offset: number; rarity: Rarity }

const halvingInterval = 210_000
const diffchangeInterval = 2016
const cycleBlocks = 6 * halvingInterval
const firstPostSubsidyEpoch = 33

/** Every sat that will ever exist (ord `Sat::SUPPLY`). */
export const satSupply = 2_099_999_997_690_000

/** Block subsidy of halving epoch `epoch`: 50 BTC shifted right, as Bitcoin Core computes it; 0 from epoch 33. */
export const epochSubsidy = (epoch: number): number =>
  epoch < firstPostSubsidyEpoch ? Math.floor(5_000_000_000 / 2 ** epoch) : 0

/** The first sat of each epoch, 0 … 33 (the last is the supply): ord's `Epoch::STARTING_SATS`. */
export const epochStartingSats: readonly number[] = (() => {
  const starts = [0]
  for (let epoch = 0; epoch < firstPostSubsidyEpoch; epoch++)
    starts.push(starts[epoch]! + halvingInterval * epochSubsidy(epoch))
  return starts
})()

function epochOf(sat: number): number {
  let epoch = 0
  while (epoch + 1 < firstPostSubsidyEpoch && sat >= epochStartingSats[epoch + 1]!) epoch++
  return epoch
}

/** Rarity of the first sat of block `height` (its other sats are common). */
export function blockRarity(height: number): Rarity {
  if (height === 0) return 'mythic'
  if (height % cycleBlocks === 0) return 'legendary'
  if (height % halvingInterval === 0) return 'epic'
  if (height % diffchangeInterval === 0) return 'rare'
  return 'uncommon'
}

/** The rarity of `sat`, or `common`. */
export function satRarity(sat: number): Rarity | 'common' {
  if (!Number.isSafeInteger(sat) || sat < 0 || sat >= satSupply) throw new RangeError('not a sat number')
  const epoch = epochOf(sat)
  const position = sat - epochStartingSats[epoch]!
  const subsidy = epochSubsidy(epoch)
  if (position % subsidy !== 0) return 'common'
  return blockRarity(epoch * halvingInterval + position / subsidy)
}

/** The first sat of a block at or after `sat`, with its block height; undefined past the last block. */
function nextBlockStart(sat: number): { sat: number; height: number } | undefined {
  if (sat >= satSupply) return undefined
  const epoch = epochOf(sat)
  const start = epochStartingSats[epoch]!
  const subsidy = epochSubsidy(epoch)
  const blocks = Math.ceil((sat - start) / subsidy)
  const candidate = start + blocks * subsidy
  if (candidate < epochStartingSats[epoch + 1]!)
    return { sat: candidate, height: epoch * halvingInterval + blocks }
  // Past the last block of this epoch: the next epoch's first block.
  const next = epochStartingSats[epoch + 1]!
  return next < satSupply ? { sat: next, height: (epoch + 1) * halvingInterval } : undefined
}

/**
 * The non-common sats of an output whose sats are `ranges` (`[start, end)` in output order), in output order,
 * at most `limit` of them; `more` says some were left out. Linear in the number of ranges plus `limit`.
 */
export function rareSatsIn(
  ranges: readonly (readonly [number, number])[],
  limit = 64,
): { rare: RareSat[]; more: boolean } {
  const rare: RareSat[] = []
  let offset = 0
  for (const [start, end] of ranges) {
    for (let next = nextBlockStart(start); next !== undefined && next.sat < end; ) {
      if (rare.length === limit) return { rare, more: true }
      rare.push({ sat: next.sat, offset: offset + next.sat - start, rarity: blockRarity(next.height) })
      next = nextBlockStart(next.sat + 1)
    }
    offset += end - start
  }
  return { rare, more: false }
}
