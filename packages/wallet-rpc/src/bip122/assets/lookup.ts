import { printableLine } from '../../core/text.js'
import type { AssetKind } from '../policy.js'
import { type RareSat, rareSatsIn } from './rarity.js'
import type { OutputAssetsProvider, OutputInscription, OutputRune } from './types.js'

/** One coin's contents as the wallet judges them: known (checked against its value) or unknown, with why. */
export type CoinAssets =
  | { known: false; reason: string }
  | {
      known: true
      inscriptions: readonly OutputInscription[]
      runes: readonly OutputRune[]
      /** Non-common sats (first sats of blocks), when the index gave sat ranges. */
      rareSats: readonly RareSat[]
      /** More rare sats than listed (an output holding many blocks' first sats). */
      moreRareSats: boolean
      /** False when the index does not track sat ranges: rare sats were not checked. */
      satRangesKnown: boolean
    }

/** Most outpoints one request asks the index about; the rest are unknown (and so never spent by accident). */
export const maxAssetLookups = 2000
/** A provider that never answers still ends the request: its outpoints are then unknown. */
const lookupDeadlineMs = 60_000
const rareSatsListed = 64

/**
 * The contents of `coins` (outpoint `txid:vout` and the value the wallet knows it has) from `provider`,
 * judged strictly: no answer, `indexed: false`, spent, a value that is not the wallet's, sat ranges that do
 * not add up, a malformed field, or a source that does not track inscriptions or runes all make a coin
 * unknown. A provider that fails or hangs makes every coin unknown, with its reason; this never rejects.
 */
export async function readCoinAssets(
  provider: OutputAssetsProvider,
  coins: readonly { outpoint: string; value: bigint }[],
  options: { details?: boolean } = {},
): Promise<Map<string, CoinAssets>> {
  const asked = [...new Set(coins.map((coin) => coin.outpoint))].slice(0, maxAssetLookups)
  const { answers, failure } = await askProvider(provider, asked, options.details === true)
  const checked = new Set(asked)
  const result = new Map<string, CoinAssets>()
  for (const { outpoint, value } of coins) {
    if (!checked.has(outpoint)) {
      result.set(outpoint, { known: false, reason: `not checked (more than ${maxAssetLookups} coins)` })
      continue
    }
    result.set(outpoint, judge(answers.get(outpoint), value, failure))
  }
  return result
}

/**
 * The values (satoshis) `provider` reports for `outpoints`, whatever their contents: a second, independent
 * word on the amounts a PSBT states for inputs the wallet does not sign. Missing when it gave none.
 */
export async function readValues(
  provider: OutputAssetsProvider,
  outpoints: readonly string[],
): Promise<Map<string, bigint>> {
  const { answers } = await askProvider(provider, [...new Set(outpoints)].slice(0, maxAssetLookups), false)
  const values = new Map<string, bigint>()
  for (const [outpoint, answer] of answers) {
    const value = (answer as { value?: unknown } | undefined)?.value
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)
      values.set(outpoint, BigInt(value))
  }
  return values
}

/** One `outputs()` call, bounded in time; a failure (or a hang) becomes the reason every outpoint is unknown. */
async function askProvider(
  provider: OutputAssetsProvider,
  outpoints: readonly string[],
  details: boolean,
): Promise<{ answers: ReadonlyMap<string, unknown>; failure: string | undefined }> {
  if (outpoints.length === 0) return { answers: new Map(), failure: undefined }
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const answers = await Promise.race([
      provider.outputs(outpoints, details ? { details: true } : {}),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${lookupDeadlineMs / 1000} s`)),
          lookupDeadlineMs,
        )
      }),
    ])
    if (!(answers instanceof Map)) throw new Error('its answer is not a Map')
    return { answers, failure: undefined }
  } catch (error) {
    const reason = (error as { data?: { reason?: unknown } })?.data?.reason ?? (error as Error)?.message
    const failure = `${provider.name} could not be read: ${printableLine(String(reason ?? error), 200)}`
    return { answers: new Map(), failure }
  } finally {
    clearTimeout(timer)
  }
}

function judge(raw: unknown, value: bigint, failure: string | undefined): CoinAssets {
  const unknown = (reason: string): CoinAssets => ({ known: false, reason })
  if (raw === undefined) return unknown(failure ?? 'the index has no answer for it')
  const answer = raw as Record<string, unknown>
  if (typeof answer !== 'object' || answer === null || typeof answer.indexed !== 'boolean')
    return unknown('the index answered something malformed')
  if (!answer.indexed) return unknown('not indexed yet (unconfirmed, or the index is behind the chain)')
  if (answer.spent === true) return unknown('the index reports it already spent')
  if (answer.value !== undefined) {
    if (!Number.isSafeInteger(answer.value)) return unknown('the index answered something malformed')
    if (BigInt(answer.value as number) !== value)
      return unknown(`the index says it holds ${answer.value} sat, the wallet ${value} sat`)
  }
  if (answer.inscriptions === undefined) return unknown('the index does not track inscriptions')
  if (answer.runes === undefined) return unknown('the index does not track runes (ord needs --index-runes)')
  const inscriptions = checkInscriptions(answer.inscriptions, value)
  const runes = checkRunes(answer.runes)
  if (!inscriptions || !runes) return unknown('the index answered something malformed')
  let rareSats: RareSat[] = []
  let moreRareSats = false
  const satRanges = answer.satRanges
  if (satRanges !== undefined) {
    const ranges = checkRanges(satRanges)
    if (!ranges) return unknown('the index answered something malformed')
    if (BigInt(ranges.reduce((sum, [start, end]) => sum + end - start, 0)) !== value)
      return unknown("the index's sat ranges do not add up to the coin's value")
    ;({ rare: rareSats, more: moreRareSats } = rareSatsIn(ranges, rareSatsListed))
  }
  return { known: true, inscriptions, runes, rareSats, moreRareSats, satRangesKnown: satRanges !== undefined }
}

// A wallet's own indexer may be plain JavaScript: every field is checked before it is believed.

function checkInscriptions(raw: unknown, value: bigint): OutputInscription[] | undefined {
  if (!Array.isArray(raw)) return undefined
  const checked: OutputInscription[] = []
  for (const entry of raw as unknown[]) {
    const { id, offset } = (entry ?? {}) as { id?: unknown; offset?: unknown }
    if (typeof id !== 'string' || id.length === 0 || id.length > 128) return undefined
    // An offset outside the coin says nothing: the inscription is then judged for the whole coin.
    const inside = typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0 && offset < value
    checked.push(inside ? { id, offset } : { id })
  }
  return checked
}

function checkRunes(raw: unknown): OutputRune[] | undefined {
  if (!Array.isArray(raw)) return undefined
  const checked: OutputRune[] = []
  for (const entry of raw as unknown[]) {
    const { rune, amount, divisibility, symbol, id } = (entry ?? {}) as Record<string, unknown>
    if (typeof rune !== 'string' || rune.length === 0 || rune.length > 128) return undefined
    if (typeof amount !== 'bigint' || amount < 0n) return undefined
    if (
      typeof divisibility !== 'number' ||
      !Number.isInteger(divisibility) ||
      divisibility < 0 ||
      divisibility > 38
    )
      return undefined
    checked.push({
      rune,
      amount,
      divisibility,
      symbol: typeof symbol === 'string' ? symbol : undefined,
      id: typeof id === 'string' && /^\d{1,20}:\d{1,10}$/.test(id) ? id : undefined,
    })
  }
  return checked
}

function checkRanges(raw: unknown): Array<[number, number]> | undefined {
  if (!Array.isArray(raw)) return undefined
  const ranges: Array<[number, number]> = []
  for (const range of raw as unknown[]) {
    if (!Array.isArray(range) || range.length !== 2) return undefined
    const [start, end] = range as unknown[]
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return undefined
    if ((start as number) < 0 || (end as number) <= (start as number)) return undefined
    ranges.push([start as number, end as number])
  }
  return ranges
}

/** Which protected kinds a coin is; empty for a coin known to carry nothing but bitcoin. */
export function kindsOf(assets: CoinAssets): AssetKind[] {
  if (!assets.known) return ['unknown']
  const kinds: AssetKind[] = []
  if (assets.inscriptions.length > 0) kinds.push('inscriptions')
  if (assets.runes.some((rune) => rune.amount > 0n)) kinds.push('runes')
  if (assets.rareSats.length > 0) kinds.push('rareSats')
  return kinds
}

// ---- how reviews write them ----------------------------------------------------------------------------

/** An inscription id as the review shows it (a wallet's own indexer may send anything). */
export const inscriptionText = (inscription: OutputInscription): string =>
  `inscription ${printableLine(inscription.id, 128)}`

/** `1234.5 UNCOMMON•GOODS ⧉`, from base units and divisibility, as ord's `Pile` displays it. */
export function runeText(rune: OutputRune): string {
  const scale = 10n ** BigInt(rune.divisibility)
  const whole = rune.amount / scale
  const fraction = (rune.amount % scale).toString().padStart(rune.divisibility, '0').replace(/0+$/, '')
  const amount = fraction === '' ? `${whole}` : `${whole}.${fraction}`
  const symbol = rune.symbol === undefined ? '' : ` ${printableLine(rune.symbol, 4)}`
  return `${amount} ${printableLine(rune.rune, 64)}${symbol}`
}

export const rareSatText = (sat: RareSat): string => `${sat.rarity} sat ${sat.sat}`
