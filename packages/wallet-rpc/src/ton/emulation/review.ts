/**
 * `ton_sendMessage`'s emulation: asking the chain provider's emulator (before approval, with nothing signed)
 * and the review section of its answer, the same "Balance changes (simulated)" every namespace shows.
 */
import { type BalanceChange, balanceChangesSection, balanceChangesTitle } from '../../core/balanceChanges.js'
import { group, item, type ReviewItem, type ReviewWarning } from '../../core/review.js'
import { printableLine } from '../../core/text.js'
import { friendly } from '../address.js'
import { Address } from '../tonCore.js'
import type {
  TonChainProvider,
  TonEmulationFailure,
  TonEmulationRequest,
  TonEmulationResult,
} from '../types.js'
import { accountKey, maxTraceEntries } from './outcome.js'

export type EmulationOutcome =
  | { status: 'done'; result: TonEmulationResult }
  | { status: 'unavailable'; reason: string }

/**
 * The provider's emulation of `request()` (built only when there is an emulator), or why there is none. Never throws: no emulator, an error, an answer
 * it could not read, or no answer within `timeoutMs` (whatever the provider does with the signal) is
 * `unavailable` with the reason.
 */
export async function emulate(
  provider: TonChainProvider,
  chainId: string,
  request: () => Omit<TonEmulationRequest, 'signal'>,
  timeoutMs: number,
): Promise<EmulationOutcome> {
  if (provider.emulate === undefined) {
    return { status: 'unavailable', reason: `no emulator is configured for ${chainId}` }
  }
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`the emulator did not answer within ${timeoutMs} ms`)
      controller.abort(error)
      reject(error)
    }, timeoutMs)
  })
  try {
    const result = await Promise.race([
      provider.emulate({ ...request(), signal: controller.signal }),
      timedOut,
    ])
    const problem = malformed(result)
    return problem === undefined
      ? { status: 'done', result }
      : { status: 'unavailable', reason: `the emulator's result is malformed (${problem})` }
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'the emulator failed'
    return { status: 'unavailable', reason: printableLine(reason, 300) }
  } finally {
    clearTimeout(timer)
  }
}

/** What is wrong with a result an emulator (perhaps the wallet's own) returned, or undefined. */
function malformed(result: unknown): string | undefined {
  if (typeof result !== 'object' || result === null) return 'not an object'
  const { emulator, ton, jettons, nfts, failures, incomplete, unreadActions } =
    result as Partial<TonEmulationResult>
  if (typeof emulator !== 'string') return 'emulator'
  if (typeof ton !== 'bigint') return 'ton'
  const list = (value: unknown): value is readonly unknown[] =>
    Array.isArray(value) && value.length <= maxTraceEntries
  const optional = (value: unknown, type: 'string' | 'boolean') =>
    value === undefined || typeof value === type
  if (!list(jettons) || !jettons.every(validJetton)) return 'jettons'
  if (!list(nfts) || !nfts.every(validNft)) return 'nfts'
  if (!list(failures) || !failures.every(validFailure)) return 'failures'
  if (!optional(incomplete, 'boolean')) return 'incomplete'
  if (
    unreadActions !== undefined &&
    (!list(unreadActions) || !unreadActions.every((kind) => typeof kind === 'string'))
  )
    return 'unreadActions'
  return undefined

  function validJetton(jetton: TonEmulationResult['jettons'][number]): boolean {
    const { decimals } = jetton ?? {}
    // Decimals size the text the review builds: TEP-64's 0 to 255 only.
    const decimalsOk =
      decimals === undefined || (Number.isInteger(decimals) && decimals >= 0 && decimals <= 255)
    return (
      accountKey(jetton?.master) !== undefined &&
      typeof jetton.amount === 'bigint' &&
      optional(jetton.symbol, 'string') &&
      decimalsOk
    )
  }

  function validNft(nft: TonEmulationResult['nfts'][number]): boolean {
    return (
      accountKey(nft?.item) !== undefined &&
      (nft.collection === undefined || accountKey(nft.collection) !== undefined) &&
      optional(nft.index, 'string') &&
      (nft.direction === 'in' || nft.direction === 'out')
    )
  }

  function validFailure(failure: TonEmulationResult['failures'][number]): boolean {
    return (
      accountKey(failure?.account) !== undefined &&
      typeof failure.reason === 'string' &&
      (failure.exitCode === undefined || Number.isSafeInteger(failure.exitCode)) &&
      typeof failure.bounced === 'boolean'
    )
  }
}

export type EmulationReviewOptions = {
  chainId: string
  /** `ton({ requireEmulation: true })`: a request that could not be simulated is a `danger`. */
  required: boolean
}

const nativeSymbol = 'TON'
const nativeDecimals = 9
/** How many failures the warning names; the rest are counted. */
const failuresNamed = 3

/** The review's "Balance changes (simulated)" group and its warnings. */
export function emulationReview(
  outcome: EmulationOutcome,
  options: EmulationReviewOptions,
): { items: ReviewItem[]; warnings: ReviewWarning[] } {
  const { chainId } = options
  if (outcome.status === 'unavailable') {
    return {
      items: [group(balanceChangesTitle, [item('Simulation', `unavailable: ${outcome.reason}`)])],
      warnings: [
        {
          code: 'ton.emulation_unavailable',
          severity: options.required ? 'danger' : 'caution',
          message: `The request could not be simulated (${outcome.reason}); what it does to your balances is not shown.`,
        },
      ],
    }
  }
  const { result } = outcome
  // Raw addresses (checked by `malformed`), shown as explorers show contracts: user-friendly, bounceable.
  const show = (raw: string) => friendly(Address.parseRaw(raw), chainId, true)
  const changes: BalanceChange[] = []
  if (result.ton !== 0n) {
    changes.push({
      kind: 'native',
      asset: undefined,
      symbol: undefined,
      decimals: undefined,
      amount: result.ton < 0n ? -result.ton : result.ton,
      direction: result.ton < 0n ? 'out' : 'in',
    })
  }
  for (const jetton of result.jettons) {
    if (jetton.amount === 0n) continue
    changes.push({
      kind: 'fungible',
      asset: show(jetton.master),
      symbol: jetton.symbol,
      decimals: jetton.decimals,
      amount: jetton.amount < 0n ? -jetton.amount : jetton.amount,
      direction: jetton.amount < 0n ? 'out' : 'in',
    })
  }
  for (const nft of result.nfts) {
    const index = nft.index !== undefined && /^\d{1,78}$/.test(nft.index) ? BigInt(nft.index) : undefined
    changes.push({
      kind: 'nft',
      item: show(nft.item),
      asset: nft.collection === undefined ? undefined : show(nft.collection),
      ...(index === undefined ? {} : { tokenId: index }),
      symbol: undefined,
      decimals: undefined,
      amount: 1n,
      direction: nft.direction,
    })
  }
  const emulator = printableLine(result.emulator, 80)
  const notes: string[] = []
  const failed = result.failures.map((failure) => describeFailure(failure, show))
  if (failed.length > 0) notes.push(`fails when simulated: ${namedFailures(failed)}`)
  notes.push(
    `simulated by ${emulator}; the TON change includes every network fee and what comes back (excess, bounced coins)`,
  )
  if (result.unreadActions !== undefined && result.unreadActions.length > 0) {
    const kinds = result.unreadActions.slice(0, 8).map((kind) => printableLine(kind, 64))
    notes.push(
      `the emulator also reports ${kinds.join(', ')}; their jetton and NFT moves are not listed here`,
    )
  }
  if (result.incomplete === true)
    notes.push('the emulator stopped before the end of the trace; later changes are missing')

  const section = balanceChangesSection({ nativeSymbol, nativeDecimals, changes, approvals: [], notes })
  if (failed.length > 0) {
    section.warnings.unshift({
      code: 'ton.emulation_failed',
      severity: 'danger',
      message: `The request fails when simulated by ${emulator}: ${namedFailures(failed)}. The failed attempt still costs what the balance changes show.`,
    })
  }
  if (result.incomplete === true) {
    section.warnings.push({
      code: 'ton.emulation_incomplete',
      severity: 'caution',
      message:
        'The emulator stopped before the end of the trace: the balance changes shown may be incomplete.',
    })
  }
  return section
}

/** `EQ…: compute phase failed, exit code 132, its coins bounce back minus fees`. */
function describeFailure(failure: TonEmulationFailure, show: (raw: string) => string): string {
  const exitCode = failure.exitCode === undefined ? '' : `, exit code ${failure.exitCode}`
  const bounce = failure.bounced ? ', its coins bounce back minus fees' : ''
  return `${show(failure.account)}: ${printableLine(failure.reason, 120)}${exitCode}${bounce}`
}

function namedFailures(failed: readonly string[]): string {
  const named = failed.slice(0, failuresNamed).join('; ')
  return failed.length > failuresNamed ? `${named}; and ${failed.length - failuresNamed} more` : named
}
