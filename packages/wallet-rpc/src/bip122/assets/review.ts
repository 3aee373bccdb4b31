import { group, item, type ReviewItem, type ReviewWarning, type Severity } from '../../core/review.js'
import { type CoinAssets, inscriptionText, rareSatText, runeText } from './lookup.js'
import type { RareSat } from './rarity.js'
import { allocateRunes, decipherRunestone } from './runestone.js'
import { type SatDestination, satFlow } from './satFlow.js'
import type { OutputRune } from './types.js'

/**
 * Where the inscriptions, rare sats and runes on the inputs a wallet signs end up, for the review of a PSBT
 * (signPsbt) or of a transfer that spends protected coins on purpose (sendTransfer with `policy.assets.spend`).
 *
 * Inscriptions and rare sats follow the sat flow (first in, first out: `satFlow.ts`), which is only sound when
 * the transaction is fixed: every signature the wallet makes commits to all inputs and all outputs (ALL or
 * taproot DEFAULT, no ANYONECANPAY; NONE or SINGLE let whoever completes the transaction change outputs, and
 * ANYONECANPAY lets them add inputs in front, which shifts every offset). It also rests on the values of the
 * inputs in front: the caller says which of those nothing proves. Runes follow the runestone (`runestone.ts`).
 */

export type AssetFlowContext = {
  /** Prefix of the warning codes: `psbt` or `transfer`. */
  method: 'psbt' | 'transfer'
  /** The provider's name, shown as the source. */
  source: string
  outputs: readonly { script: Uint8Array; value: bigint }[]
  /** Every input's value in input order (undefined: the transaction does not state it). */
  inputValues: readonly (bigint | undefined)[]
  /** The inputs the wallet signs, with what they carry, in input order. */
  signed: readonly { index: number; assets: CoinAssets }[]
  /** Why the wallet's signatures do not fix the transaction (a sighash other than ALL/DEFAULT), if so. */
  open: string | undefined
  /** Inputs whose stated value nothing proves. */
  unproven: ReadonlySet<number>
  /** Inputs the wallet does not sign may carry runes too: the amounts shown count the signed inputs' only. */
  othersUncounted: boolean
  /** `policy.assets.strict`: an input of unknown contents is `danger`, not `caution`. */
  strict: boolean
  /** How output `vout` reads in the review, and whether it is the wallet's. */
  output(vout: number): Promise<{ ours: boolean; text: string }>
}

export type AssetFlowReview = { items: ReviewItem[]; warnings: ReviewWarning[] }

const burnedLead = 'Inscriptions sent to the fee or an OP_RETURN, where they are lost:'
const openLead = 'What you sign lets whoever completes the transaction decide where these go:'
const unverifiedLead =
  'Where these go rests on input values nothing proves or the transaction does not state:'

/** How many things one warning names before it says how many more there are. */
const namedPerWarning = 5

export async function reviewAssetFlow(context: AssetFlowContext): Promise<AssetFlowReview> {
  const { method, outputs, inputValues, open } = context
  const lines: ReviewItem[] = []
  const notes = new Map<string, { severity: Severity; lead: string; parts: string[] }>()
  const warn = (code: string, severity: Severity, lead: string, part: string) => {
    const key = `${method}.${code}`
    const note = notes.get(key)
    if (note) note.parts.push(part)
    else notes.set(key, { severity, lead, parts: [part] })
  }

  // The sat flow counts on every input value in front of the one it follows: zero stands in for a missing
  // one, and `firstMissing` says from which input on the flow cannot be followed.
  const firstMissing = inputValues.indexOf(undefined)
  const flow = satFlow(
    inputValues.map((value) => value ?? 0n),
    outputs.map((output) => output.value),
  )
  const isOpReturn = (vout: number) => outputs[vout]!.script[0] === 0x6a
  const described = new Map<number, { ours: boolean; text: string }>()
  const describe = async (destination: SatDestination) => {
    if (destination === 'fee')
      return { burned: true, ours: false, text: 'the fee (the miner takes it)', detail: 'the fee' }
    let output = described.get(destination)
    if (!output) {
      output = await context.output(destination)
      described.set(destination, output)
    }
    return {
      burned: isOpReturn(destination),
      ours: output.ours,
      text: `output ${destination} (${output.text})`,
      detail: output.text,
    }
  }

  /** Where a sat of input `index` goes (at `offset`, or anywhere in the input), or why that is not known. */
  const place = (index: number, offset: number | undefined): SatDestination[] | string => {
    if (open) return open
    if (firstMissing !== -1 && firstMissing <= index) return `input ${firstMissing} states no value`
    const value = inputValues[index]!
    return offset === undefined ? flow.spread(index, 0n, value) : [flow.locate(index, BigInt(offset))]
  }

  /** What cannot be placed: the signatures leave it open, or a value in front is missing. */
  const notPlaced = (what: string, reason: string) => {
    if (open) warn('assets_destination_open', 'caution', openLead, what)
    else warn('assets_flow_unverified', 'caution', unverifiedLead, `${what} (${reason})`)
  }

  for (const { index, assets } of context.signed) {
    const label = `input ${index}`
    if (!assets.known) {
      lines.push(item(label, `contents unknown: ${assets.reason}`))
      warn(
        'assets_unknown',
        context.strict ? 'danger' : 'caution',
        `${context.source} cannot say what these inputs carry; if they hold inscriptions or runes, this may move or burn them:`,
        `${label} (${assets.reason})`,
      )
      continue
    }
    const said: string[] = []
    for (const inscription of assets.inscriptions) {
      const what = `${inscriptionText(inscription)}${inscription.offset === undefined ? ' (offset unknown)' : ''}`
      const placed = place(index, inscription.offset)
      if (typeof placed === 'string') {
        said.push(`${what}: where it goes is not known (${placed})`)
        notPlaced(`${what} of ${label}`, placed)
        continue
      }
      const targets = await Promise.all(placed.map(describe))
      const where = targets.map((target) => target.text).join(' or ')
      said.push(`${what} → ${where}`)
      if (targets.some((target) => target.burned)) {
        warn('inscription_burned', 'danger', burnedLead, `${what} of ${label} → ${where}`)
      } else if (targets.some((target) => !target.ours)) {
        warn(
          'inscription_to_external',
          'caution',
          'Inscriptions leave this wallet:',
          `${what} of ${label} → ${where}`,
        )
      }
    }
    const rare = await describeRareSats(assets, index, place, describe, warn, notPlaced, label)
    said.push(...rare)
    // The sat flow rests on the values in front: one the caller could not prove is named once per input.
    const unproven = [...context.unproven].filter((k) => k <= index)
    if (unproven.length > 0 && (assets.inscriptions.length > 0 || rare.length > 0)) {
      warn(
        'assets_flow_unverified',
        'caution',
        unverifiedLead,
        `${label} (the value of input ${unproven.join(', ')})`,
      )
    }
    if (assets.runes.length > 0) said.push(`${assets.runes.map(runeText).join(', ')} (see Runes)`)
    if (said.length === 0) {
      said.push(
        assets.satRangesKnown
          ? 'no inscriptions, runes or rare sats'
          : 'no inscriptions or runes (rare sats not checked: the index has no sat ranges)',
      )
    }
    lines.push(item(label, said.join('; ')))
  }

  const runeLines = await reviewRunes(context, describe, warn)
  const items: ReviewItem[] = [group(`Assets (${context.source})`, lines)]
  if (runeLines.length > 0) items.push(group('Runes', runeLines))
  const warnings: ReviewWarning[] = [...notes].map(([code, note]) => ({
    code,
    severity: note.severity,
    message: `${note.lead} ${listed(note.parts)}.`,
  }))
  return { items, warnings }
}

type Describe = (
  destination: SatDestination,
) => Promise<{ burned: boolean; ours: boolean; text: string; detail: string }>
type Warn = (code: string, severity: Severity, lead: string, part: string) => void

async function describeRareSats(
  assets: { rareSats: readonly RareSat[]; moreRareSats: boolean },
  index: number,
  place: (index: number, offset: number | undefined) => SatDestination[] | string,
  describe: Describe,
  warn: Warn,
  notPlaced: (what: string, reason: string) => void,
  label: string,
): Promise<string[]> {
  // Grouped by where they go: an output holding hundreds of block starts must not make hundreds of lines.
  const byWhere = new Map<string, { sats: RareSat[]; leaves: boolean; reason?: string }>()
  for (const sat of assets.rareSats) {
    const placed = place(index, sat.offset)
    let where: string
    let leaves = false
    let reason: string | undefined
    if (typeof placed === 'string') {
      where = `not known (${placed})`
      reason = placed
    } else {
      const target = await describe(placed[0]!)
      where = target.text
      leaves = target.burned || !target.ours
    }
    const entry = byWhere.get(where) ?? { sats: [], leaves, ...(reason === undefined ? {} : { reason }) }
    entry.sats.push(sat)
    byWhere.set(where, entry)
  }
  const said: string[] = []
  for (const [where, { sats, leaves, reason }] of byWhere) {
    const what = `${sats.length === 1 ? 'rare sat' : `${sats.length} rare sats`} (${listed(sats.map(rareSatText))})`
    said.push(`${what} → ${where}`)
    if (reason !== undefined) notPlaced(`${what} of ${label}`, reason)
    else if (leaves)
      warn(
        'rare_sats_leave_wallet',
        'caution',
        'Rare sats leave this wallet:',
        `${what} of ${label} → ${where}`,
      )
  }
  if (assets.moreRareSats) said.push('and more rare sats not listed')
  return said
}

async function reviewRunes(context: AssetFlowContext, describe: Describe, warn: Warn): Promise<ReviewItem[]> {
  // Per rune: the key a runestone's edicts can name it by (its id when known), one entry per signed input's pile.
  const held = new Map<string, { sample: OutputRune; amount: bigint }>()
  for (const { assets } of context.signed) {
    if (!assets.known) continue
    for (const rune of assets.runes) {
      const key = rune.id ?? `name:${rune.rune}`
      const entry = held.get(key)
      if (entry) entry.amount += rune.amount
      else held.set(key, { sample: rune, amount: rune.amount })
    }
  }
  if (held.size === 0) return []
  const label = (key: string, amount: bigint) => runeText({ ...held.get(key)!.sample, amount })
  if (context.open) {
    const names = [...held].map(([key, { amount }]) => label(key, amount))
    warn('assets_destination_open', 'caution', openLead, listed(names))
    return [item('where they go', `not fixed (${context.open})`)]
  }
  const lines: ReviewItem[] = []
  const artifact = decipherRunestone(context.outputs)
  if (!artifact) {
    lines.push(
      item('runestone', 'none: every rune the inputs carry goes to the first output that is not OP_RETURN'),
    )
  } else if (artifact.kind === 'cenotaph') {
    lines.push(
      item('runestone', `output ${artifact.vout} holds a malformed runestone (${artifact.flaw}): a cenotaph`),
    )
  } else {
    const parts = [`${artifact.edicts.length} edict${artifact.edicts.length === 1 ? '' : 's'}`]
    if (artifact.pointer !== undefined) parts.push(`the rest to output ${artifact.pointer}`)
    if (artifact.etching) parts.push('etches a new rune')
    if (artifact.mint) parts.push(`mints rune ${artifact.mint.block}:${artifact.mint.tx}`)
    lines.push(item('runestone', `output ${artifact.vout}: ${parts.join(', ')}`))
    const unmatched = [...held].filter(([key]) => key.startsWith('name:'))
    if (artifact.edicts.length > 0 && unmatched.length > 0) {
      const names = unmatched.map(([key, { amount }]) => label(key, amount))
      warn(
        'runes_unresolved',
        'caution',
        "The runestone's edicts name runes by id, and the index gave no id for:",
        listed(names),
      )
    }
    if (artifact.edicts.length > 0 && context.othersUncounted) {
      lines.push(
        item(
          'note',
          "amounts count only the runes of the inputs you sign; other inputs' runes share the edicts",
        ),
      )
    }
  }
  const balances = new Map([...held].map(([key, { amount }]) => [key, amount]))
  const allocation = allocateRunes(artifact, context.outputs, balances)
  for (const [vout, entry] of [...allocation.outputs].sort((a, b) => a[0] - b[0])) {
    const target = await describe(vout)
    const what = [...entry].map(([key, amount]) => label(key, amount)).join(', ')
    lines.push(item(`to output ${vout}`, `${what}: ${target.detail}`))
    if (!target.ours)
      warn('runes_to_external', 'caution', 'Runes leave this wallet:', `${what} → ${target.text}`)
  }
  if (allocation.burned.size > 0) {
    const what = [...allocation.burned].map(([key, amount]) => label(key, amount)).join(', ')
    lines.push(item('burned', what))
    const why =
      artifact?.kind === 'cenotaph'
        ? `a cenotaph (${artifact.flaw}) burns every rune the inputs carry`
        : 'allocated to an OP_RETURN output, or no output can take them'
    warn('runes_burned', 'danger', 'Runes burned:', `${what}: ${why}`)
  }
  return lines
}

function listed(parts: readonly string[]): string {
  const named = parts.slice(0, namedPerWarning).join('; ')
  return parts.length > namedPerWarning ? `${named}; and ${parts.length - namedPerWarning} more` : named
}
