import { PolicyRefusedError } from '../../core/errors.js'
import { item, type ReviewItem } from '../../core/review.js'
import { formatSats } from '../format.js'
import type { AssetKind } from '../policy.js'
import type { Account, AccountAddress, AccountUtxo } from '../types.js'
import { type CoinAssets, kindsOf, readCoinAssets } from './lookup.js'
import { type AssetFlowReview, reviewAssetFlow } from './review.js'
import type { OutputAssetsProvider } from './types.js'

/**
 * sendTransfer with an assets provider: every candidate coin's contents are read before coins are chosen
 * (outside the section that selects and reserves coins with no await in between), and a coin carrying an
 * inscription, runes or rare sats, or one the index does not know, is kept out unless `policy.assets.spend`
 * allows its kinds; then it is used only after every clean coin, and the review says where its assets go.
 */

export type CoinProtection = {
  provider: OutputAssetsProvider
  /** The contents of `outpoint` as read (every coin asked about has an entry). */
  contents(outpoint: string): CoinAssets
  /** May a transfer spend it: it carries nothing, or only kinds the policy lets go. */
  usable(outpoint: string): boolean
  /** Splits coins into clean ones, protected ones the policy lets the transfer spend, and held-back ones. */
  sort<T extends { key: string }>(coins: readonly T[]): { clean: T[]; allowed: T[]; heldBack: T[] }
}

export async function protectCoins(
  provider: OutputAssetsProvider,
  coins: readonly AccountUtxo[],
  spend: readonly AssetKind[],
): Promise<CoinProtection> {
  // Confirmed coins first, larger first: if a wallet holds more coins than one request may ask about, the
  // ones selection prefers are the ones checked (the rest stay unknown, so they are held back, never spent).
  const ordered = [...coins].sort((a, b) => Number(b.confirmed) - Number(a.confirmed) || b.value - a.value)
  const read = await readCoinAssets(
    provider,
    ordered.map((utxo) => ({ outpoint: `${utxo.txid}:${utxo.vout}`, value: BigInt(utxo.value) })),
  )
  const contents = (outpoint: string): CoinAssets =>
    read.get(outpoint) ?? { known: false, reason: 'not asked (it appeared after the index was read)' }
  const usable = (outpoint: string) => kindsOf(contents(outpoint)).every((kind) => spend.includes(kind))
  return {
    provider,
    contents,
    usable,
    sort<T extends { key: string }>(list: readonly T[]) {
      const sorted: { clean: T[]; allowed: T[]; heldBack: T[] } = { clean: [], allowed: [], heldBack: [] }
      for (const coin of list) {
        if (kindsOf(contents(coin.key)).length === 0) sorted.clean.push(coin)
        else if (usable(coin.key)) sorted.allowed.push(coin)
        else sorted.heldBack.push(coin)
      }
      return sorted
    },
  }
}

/** `2 coins, 0.0003 BTC (30000 sat): 1 with inscriptions, 1 unknown (not indexed yet …)`. */
export function describeHeldBack(
  protection: CoinProtection,
  coins: readonly { key: string; value: number }[],
): string {
  const total = coins.reduce((sum, coin) => sum + BigInt(coin.value), 0n)
  const counts = new Map<string, number>()
  const count = (what: string) => counts.set(what, (counts.get(what) ?? 0) + 1)
  for (const coin of coins) {
    const assets = protection.contents(coin.key)
    if (!assets.known) count(`unknown to the index (${assets.reason})`)
    else for (const kind of kindsOf(assets)) count(`with ${kindNames[kind]}`)
  }
  // Kinds in a fixed order (inscriptions, runes, rare sats), then the unknown ones by reason.
  const rank = (what: string) => {
    const known = Object.values(kindNames).indexOf(what.slice('with '.length))
    return known === -1 ? Number.MAX_SAFE_INTEGER : known
  }
  const why = [...counts]
    .sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([what, n]) => `${n} ${what}`)
    .join(', ')
  return `${coins.length} coin${coins.length === 1 ? '' : 's'}, ${formatSats(total)}: ${why}`
}

const kindNames: Readonly<Record<AssetKind, string>> = {
  inscriptions: 'inscriptions',
  runes: 'runes',
  rareSats: 'rare sats',
  unknown: 'unknown contents',
}

/** The review line: what was held back and why, or that nothing was. */
export function heldBackItem(
  protection: CoinProtection,
  heldBack: readonly { key: string; value: number }[],
): ReviewItem {
  return item(
    'Protected coins',
    heldBack.length === 0
      ? `none held back (checked with ${protection.provider.name})`
      : `${describeHeldBack(protection, heldBack)}; held back, never spent by a plain transfer (checked with ${protection.provider.name})`,
  )
}

/** The refusal when the clean coins cannot pay: it names the protected total, and nothing is spent. */
export function protectedRefusal(
  protection: CoinProtection,
  spendableTotal: bigint,
  amount: bigint,
  heldBack: readonly { key: string; value: number }[],
): PolicyRefusedError {
  return new PolicyRefusedError(
    `insufficient funds without protected coins: ${formatSats(spendableTotal)} spendable, ${formatSats(amount)} plus fee needed; ${describeHeldBack(protection, heldBack)} are held back (inscriptions, runes, rare sats and coins the index does not know are never spent by a plain transfer; policy.assets.spend allows it)`,
    { rule: 'transfer.protected_coins' },
  )
}

/**
 * The review of a transfer that spends protected coins the policy allows: their inscriptions' offsets are read
 * now (the coins are already held), then the same sat flow and rune rules as signPsbt show where each goes.
 * A sendTransfer transaction has no runestone, so runes go to its first output: the recipient.
 */
export async function reviewProtectedSpend(
  protection: CoinProtection,
  transfer: {
    account: Account
    inputs: readonly (AccountUtxo & { key: string })[]
    /** The recipient's output, then the memo's when there is one. */
    targets: readonly { script: Uint8Array; value: bigint }[]
    recipient: string
    change: { address: AccountAddress; value: bigint } | undefined
  },
): Promise<AssetFlowReview | undefined> {
  const { provider } = protection
  const { account, inputs, targets, change } = transfer
  const spent = inputs.filter((coin) => kindsOf(protection.contents(coin.key)).length > 0)
  if (spent.length === 0) return undefined
  const detailed = await readCoinAssets(
    provider,
    spent.map((coin) => ({ outpoint: coin.key, value: BigInt(coin.value) })),
    { details: true },
  )
  const recipientIsOurs = (await account.findScript(targets[0]!.script)) !== undefined
  const review = await reviewAssetFlow({
    method: 'transfer',
    source: provider.name,
    outputs: change ? [...targets, { script: change.address.scriptPubKey, value: change.value }] : targets,
    inputValues: inputs.map((coin) => BigInt(coin.value)),
    // The first reading decided these coins could be spent: a second one that knows less does not hide them.
    signed: inputs.flatMap((coin, index) => {
      if (!spent.includes(coin)) return []
      const again = detailed.get(coin.key)
      return [{ index, assets: again?.known ? again : protection.contents(coin.key) }]
    }),
    open: undefined,
    unproven: new Set(),
    othersUncounted: false,
    strict: false,
    output: async (vout) => {
      if (vout === 0) return { ours: recipientIsOurs, text: `the recipient ${transfer.recipient}` }
      if (vout === targets.length) return { ours: true, text: `change, yours: ${change!.address.address}` }
      return { ours: false, text: 'the memo, OP_RETURN' }
    },
  })
  return {
    items: [item('Protected coins spent', describeHeldBack(protection, spent)), ...review.items],
    warnings: review.warnings,
  }
}
