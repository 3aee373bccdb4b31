/**
 * What a transaction does to the signing account's holdings, as a simulation of it showed: the review
 * section every namespace builds the same way (eip155 from simulated logs, Solana from simulated account
 * balances). Token metadata is the token's own claim: a symbol is always shown next to the asset's
 * address, since any contract can call itself "ETH".
 */
import { group, item, type ReviewItem, type ReviewWarning, unlimitedAllowance } from './review.js'
import { printableLine } from './text.js'

/** native: the chain's coin; fungible: ERC-20/SPL; nft: ERC-721; multi: ERC-1155 (an id with an amount). */
export type AssetKind = 'native' | 'fungible' | 'nft' | 'multi'

export type BalanceChange = {
  kind: AssetKind
  /** The asset's address on its chain (contract, mint); undefined for the native coin. */
  asset: string | undefined
  /** Token id within `asset` (nft, multi). */
  tokenId?: bigint
  /** The NFT's own address where each NFT is a contract (TON); `asset` is then its collection, if any. */
  item?: string
  /** As the asset reports it (untrusted, shown through `printableLine`); undefined when it has none. */
  symbol: string | undefined
  /** Decimals of `amount`, as the asset reports them; undefined: shown in base units. */
  decimals: number | undefined
  /** Base units, always positive; `direction` says which way. */
  amount: bigint
  direction: 'in' | 'out'
}

/** A permission to move the account's assets that the transaction grants (or revokes). */
export type AllowanceChange = {
  /** fungible: an amount of one token; nft: one token id; all: every token of the collection. */
  kind: 'fungible' | 'nft' | 'all'
  asset: string
  symbol: string | undefined
  decimals: number | undefined
  spender: string
  /** fungible: the allowance in base units; nft: the token id; all: undefined. */
  amount: bigint | undefined
  /** False for a revocation (allowance 0, ApprovalForAll false, ERC-721 approval of the zero address). */
  granted: boolean
}

export type BalanceChangesInput = {
  /** The chain's native symbol (configured by the wallet, trusted). */
  nativeSymbol: string
  nativeDecimals: number
  changes: readonly BalanceChange[]
  approvals: readonly AllowanceChange[]
  /** Lines that qualify the list (events not decoded, logs cut, metadata unavailable…). */
  notes: readonly string[]
}

/** The section's title, for a namespace that says why it has no changes to show. */
export const balanceChangesTitle = 'Balance changes (simulated)'

/**
 * The "Balance changes (simulated)" and "Approvals (simulated)" groups, and their warnings: a caution per
 * granted approval (unlimited ones say so) and per token claiming the native coin's symbol.
 */
export function balanceChangesSection(input: BalanceChangesInput): {
  items: ReviewItem[]
  warnings: ReviewWarning[]
} {
  const warnings: ReviewWarning[] = []
  const lines = input.changes.map((change) => {
    if (
      change.symbol !== undefined &&
      change.kind !== 'native' &&
      sameSymbol(change.symbol, input.nativeSymbol)
    )
      warnings.push(symbolLookalike(change.asset ?? '', change.symbol))
    return item(change.direction === 'out' ? 'You send' : 'You receive', describeChange(change, input))
  })
  const items: ReviewItem[] = [
    group(balanceChangesTitle, [
      ...(lines.length === 0 ? [item('Balance changes', 'none for this account')] : lines),
      ...input.notes.map((note) => item('Note', note)),
    ]),
  ]
  if (input.approvals.length > 0) {
    items.push(
      group(
        'Approvals (simulated)',
        input.approvals.map((approval) =>
          item(approval.granted ? 'Grants' : 'Revokes', describeApproval(approval)),
        ),
      ),
    )
  }
  for (const approval of input.approvals) {
    if (!approval.granted) continue
    const unlimited = approval.kind === 'fungible' && (approval.amount ?? 0n) >= unlimitedAllowance
    warnings.push({
      code: unlimited ? 'tx.simulated_unlimited_approval' : 'tx.simulated_approval',
      severity: 'caution',
      message: `Lets ${approval.spender} spend ${allowanceText(approval)}.`,
    })
  }
  return { items, warnings }
}

function describeChange(change: BalanceChange, input: BalanceChangesInput): string {
  const sign = change.direction === 'out' ? '-' : '+'
  if (change.kind === 'native')
    return `${sign}${units(change.amount, input.nativeDecimals)} ${input.nativeSymbol}`
  const name = assetName(change.asset ?? '', change.symbol)
  if (change.kind === 'fungible')
    return change.decimals === undefined
      ? `${sign}${change.amount} base units of ${name}`
      : `${sign}${units(change.amount, change.decimals)} ${name}`
  const id = `#${change.tokenId ?? 0n}`
  if (change.kind === 'nft' && change.item !== undefined) {
    if (change.asset === undefined) return `${sign}NFT ${change.item}`
    const index = change.tokenId === undefined ? '' : `#${change.tokenId} `
    return `${sign}NFT ${change.item} (${index}of collection ${change.asset})`
  }
  if (change.kind === 'nft') return `${sign}NFT ${id} of ${name}`
  return `${sign}${change.amount} of token ${id} of ${name}`
}

function describeApproval(approval: AllowanceChange): string {
  return approval.granted
    ? `${approval.spender} may spend ${allowanceText(approval)}`
    : `${approval.spender} may no longer spend ${allowanceText(approval)}`
}

function allowanceText(approval: AllowanceChange): string {
  const name = assetName(approval.asset, approval.symbol)
  if (approval.kind === 'all') return `every token you hold of ${name}`
  if (approval.kind === 'nft') return `NFT #${approval.amount ?? 0n} of ${name}`
  const amount = approval.amount ?? 0n
  if (amount >= unlimitedAllowance) return `an unlimited amount of ${name}`
  return approval.decimals === undefined
    ? `${amount} base units of ${name}`
    : `${units(amount, approval.decimals)} ${name}`
}

/** `USDC (token 0x…, symbol as it reports)`: the address is what identifies the asset, never the symbol. */
function assetName(asset: string, symbol: string | undefined): string {
  return symbol === undefined
    ? `token ${asset}`
    : `${shownSymbol(symbol)} (token ${asset}, symbol as it reports)`
}

/** A token's own symbol, bounded and with hidden characters written out. */
const shownSymbol = (symbol: string) => printableLine(symbol, 32)

/** Invisible characters (controls, format and bidi marks, spaces, variation selectors, Hangul fillers). */
const invisible = /[\p{Cc}\p{Cf}\p{Cs}\p{Z}\u115f\u1160\u3164]|\u034f|[\ufe00-\ufe0f]/gu

/**
 * Each Latin letter and the characters drawn as it: Cyrillic and Greek letters, digits, one-stroke marks. A
 * reader cannot tell "ТОN" (Cyrillic) or "T0N" from "TON". I, l, 1 and | are one letter, so with case ignored
 * I and L are too ("SOI" reads as "SOl"): a caution too many beats one too few.
 */
const drawnAs: Readonly<Record<string, string>> = {
  A: 'АΑ',
  B: 'ВΒ',
  C: 'С',
  E: 'ЕΕ',
  H: 'НΗ',
  J: 'Ј',
  K: 'КΚ',
  M: 'МΜ',
  N: 'Ν',
  O: 'ОΟ0',
  P: 'РΡ',
  S: 'Ѕ',
  T: 'ТΤ',
  X: 'ХΧ',
  Y: 'Υ',
  Z: 'Ζ',
  a: 'а',
  c: 'с',
  e: 'е',
  i: 'і',
  j: 'ј',
  o: 'оο',
  p: 'р',
  s: 'ѕ',
  x: 'х',
  y: 'у',
  l: 'I1|ІΙ',
}
const latinOf = new Map(
  Object.entries(drawnAs).flatMap(([latin, lookalikes]) => [...lookalikes].map((c) => [c, latin] as const)),
)
const lookalike = new RegExp(`[${[...latinOf.keys()].join('')}]`, 'gu')

/**
 * What a symbol looks like: fullwidth and styled letters as plain ones (NFKC), invisible characters gone,
 * lookalikes as the Latin letter they are drawn as, case ignored.
 */
function skeleton(symbol: string): string {
  return symbol
    .normalize('NFKC')
    .replace(invisible, '')
    .replace(lookalike, (character) => latinOf.get(character)!)
    .toLowerCase()
}

function sameSymbol(a: string, b: string): boolean {
  return skeleton(a) === skeleton(b)
}

function symbolLookalike(asset: string, symbol: string): ReviewWarning {
  return {
    code: 'tx.token_symbol_lookalike',
    severity: 'caution',
    message: `Token ${asset} calls itself "${shownSymbol(symbol)}", which reads as the symbol of this chain's own coin; it is a different asset.`,
  }
}

/** A base-unit amount in whole units, without rounding (`1234500` with 6 decimals → `1.2345`). */
export function units(amount: bigint, decimals: number): string {
  if (decimals <= 0) return amount.toString()
  const digits = amount.toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, -decimals)
  const fraction = digits.slice(-decimals).replace(/0+$/, '')
  return fraction === '' ? whole : `${whole}.${fraction}`
}
