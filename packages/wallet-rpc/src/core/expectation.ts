import { InvalidParamsError } from './errors.js'
import { type ReviewDraft, type ReviewWarning, unlimitedAllowance } from './review.js'
import { printableLine } from './text.js'

/**
 * The rule for requests someone else describes (a payment gateway's option, a dapp's `walletPay`): the review's
 * claims come from what will be signed or sent. The method decodes what its exact transaction or typed data
 * moves (`AssetEffect`, in `Planned.effects`); the router compares that with the description the caller passed
 * (`HandleInput.expected`) and adds a `danger` for every difference, naming both values. A request whose
 * effects the method cannot decode is a `danger` too (`pay.action_unverified`): the wallet cannot tell what it
 * would pay.
 */

/** One movement of value the signed bytes authorise, decoded by the method from the exact request it signs. */
export type AssetEffect = {
  /** CAIP-2 chain where the signature or transaction takes effect (typed data: its domain's chain). */
  chainId: string
  /** The account whose assets move, as the namespace writes addresses (eip155: 0x…; solana: base58). */
  account: string
  /** `native`, or the token's contract address (eip155) or mint (solana). */
  asset: string
  /** Base units. */
  amount: bigint
  /** Who receives (`transfer`) or who may spend (`allowance`). */
  recipient: string
  /** Who owns `recipient` when it is a token account (solana), when the request itself establishes it. */
  recipientOwner?: string
  /** `transfer`: moves `amount` once signed or sent; `allowance`: lets `recipient` move up to `amount`. */
  kind: 'transfer' | 'allowance'
  /** The decoded form, for the warnings: `ERC-20 transfer`, `EIP-3009 TransferWithAuthorization`, … */
  form: string
  /**
   * The spender whose ERC-20 allowance the movement draws on, when it draws on one: Permit2 for its signatures,
   * the sending account for `transferFrom`. It takes nothing that allowance does not cover, so a payment's
   * approval to `via` and what is drawn through it expose the larger of the two, not their sum.
   */
  via?: string
}

/** A payment as a third party describes it (`HandleInput.expected`): what the request is supposed to pay. */
export type ExpectedPayment = {
  /** Who describes it, as the warnings name it: `The payment gateway`, `The dapp's walletPay`. */
  source: string
  /** CAIP-2 chain the payment is on; the request must be on it. */
  chainId: string
  /** CAIP-10 account that pays. */
  account: string
  /** CAIP-19 asset: `<chain>/slip44:<n>` is the chain's native coin; `erc20:`, `token:` … name a token. */
  asset: string
  /** Base units of `asset`, decimal digits. */
  amount: string
  /** CAIP-10 payee, when the description names one. */
  recipient?: string
  /** Base units of `asset` the payment may take on top of `amount` (a declared fee), decimal digits. Default 0. */
  maxFee?: string
  /**
   * Base units of `asset` the payment's earlier requests (a gateway's earlier actions) already transfer without
   * drawing on an allowance, decimal digits; what they let a spender take is in `spenders`. Counted with this
   * request's effects against `amount` + `maxFee`, so N actions cannot each pay it all. Default 0. `handle`'s
   * `onEffects` gives it for the next request (`PaymentExposure`).
   */
  paid?: string
  /**
   * Per spender, what the payment's earlier requests let it take of `asset`: the largest allowance granted to it
   * and the total drawn through its allowance (effects whose `via` it is), decimal digits. At most 64 spenders.
   * Default none. `handle`'s `onEffects` gives it for the next request (`PaymentExposure`).
   */
  spenders?: readonly SpenderExposure[]
  /** The asset's decimals and symbol as the description shows them, for the warnings' amounts. */
  decimals?: number
  symbol?: string
}

/** What a payment's earlier requests let one spender take of its asset (`ExpectedPayment.spenders`). */
export type SpenderExposure = {
  /** The spender's address, as the namespace writes addresses. */
  spender: string
  /** The largest allowance granted to it, base units in decimal digits (a later approval replaces an earlier one). */
  granted: string
  /** Base units drawn through its allowance, decimal digits. */
  drawn: string
}

/**
 * What a payment's requests so far can take of its asset, in the form the next request carries it in `expected`
 * (`{ ...expected, ...exposure }`): `handle`'s `onEffects` gives it, this request included.
 */
export type PaymentExposure = { paid: string; spenders: SpenderExposure[] }

type AccountRef = { chainId: string; address: string }

/**
 * The form in which two addresses of a namespace name the same account (`Namespace.addressKey`): TON's
 * user-friendly forms differ by their bounce and test flags, eip155's by EIP-55 case, and each pays the same account.
 */
export type AddressKey = (address: string) => string

/** eip155 addresses are case-insensitive (EIP-55 is only a checksum); elsewhere, unless the namespace says how, exact. */
const defaultAddressKey = (chainId: string): AddressKey =>
  chainId.startsWith('eip155:') ? (address) => address.toLowerCase() : (address) => address

/** `ExpectedPayment` once read: bounded, printable, amounts as bigints. */
export type Expectation = {
  source: string
  chainId: string
  account: AccountRef
  asset: { native: boolean; reference: string; id: string }
  amount: bigint
  maxFee: bigint
  paid: bigint
  spenders: Spender[]
  recipient: AccountRef | undefined
  decimals: number | undefined
  symbol: string | undefined
}

const chainPattern = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/
// CAIP-10/19, with `_` allowed in an address: TON's user-friendly form is URL-safe base64.
const accountPattern = /^([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}):([-_.%a-zA-Z0-9]{1,128})$/
const assetPattern = /^([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32})\/([-a-z0-9]{3,8}):([-_.%a-zA-Z0-9]{1,128})$/
const digits = /^[0-9]{1,78}$/
const addressPattern = /^[-_.%a-zA-Z0-9]{1,128}$/
/** More spenders than a payment plausibly grants: `exposureAfter` folds the rest into `paid`. */
const maxSpenders = 64

type Spender = { spender: string; granted: bigint; drawn: bigint }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Reads `HandleInput.expected` (a third party's description, passed on by the caller): -32602 at `expected.<field>`
 * for anything malformed, so a payment whose description cannot be read is never paid unchecked.
 */
export function readExpectation(value: unknown): Expectation | undefined {
  if (value === undefined) return undefined
  const fail = (field: string, reason: string): never => {
    throw new InvalidParamsError(reason, { path: `expected.${field}` })
  }
  if (!isRecord(value)) fail('', 'expected must be an object')
  const record = value as Record<string, unknown>
  const field = (name: string) => (Object.hasOwn(record, name) ? record[name] : undefined)
  const source = field('source')
  if (typeof source !== 'string' || source === '') fail('source', 'must name who describes the payment')
  const chainId = field('chainId')
  if (typeof chainId !== 'string' || !chainPattern.test(chainId)) fail('chainId', 'must be a CAIP-2 chain id')
  const onChain = (name: string, pattern: RegExp, what: string): RegExpExecArray => {
    const text = field(name)
    const match = typeof text === 'string' ? pattern.exec(text) : null
    if (match === null) return fail(name, `must be a ${what}`)
    if (match[1] !== chainId) fail(name, `is on ${match[1]}, the payment on ${chainId as string}`)
    return match
  }
  const account = onChain('account', accountPattern, 'CAIP-10 account id')
  const asset = onChain('asset', assetPattern, 'CAIP-19 asset id')
  const recipient =
    field('recipient') === undefined ? undefined : onChain('recipient', accountPattern, 'CAIP-10 account id')
  const amount = field('amount')
  if (typeof amount !== 'string' || !digits.test(amount))
    fail('amount', 'must be base units in decimal digits')
  const maxFee = field('maxFee')
  if (maxFee !== undefined && (typeof maxFee !== 'string' || !digits.test(maxFee)))
    fail('maxFee', 'must be base units in decimal digits')
  const paid = field('paid')
  if (paid !== undefined && (typeof paid !== 'string' || !digits.test(paid)))
    fail('paid', 'must be base units in decimal digits')
  const spenders = readSpenders(field('spenders'), fail)
  const decimals = field('decimals')
  if (
    decimals !== undefined &&
    !(Number.isSafeInteger(decimals) && (decimals as number) >= 0 && (decimals as number) <= 36)
  )
    fail('decimals', 'must be a whole number from 0 to 36')
  const symbol = field('symbol')
  if (symbol !== undefined && typeof symbol !== 'string') fail('symbol', 'must be a string')
  return {
    source: printableLine(source as string, 64),
    chainId: chainId as string,
    account: { chainId: account[1]!, address: account[2]! },
    asset: { native: asset[2] === 'slip44', reference: asset[3]!, id: asset[0] },
    amount: BigInt(amount as string),
    maxFee: maxFee === undefined ? 0n : BigInt(maxFee as string),
    paid: paid === undefined ? 0n : BigInt(paid as string),
    spenders,
    recipient: recipient === undefined ? undefined : { chainId: recipient[1]!, address: recipient[2]! },
    decimals: decimals as number | undefined,
    symbol: symbol === undefined ? undefined : printableLine(symbol as string, 16),
  }
}

function readSpenders(value: unknown, fail: (field: string, reason: string) => never): Spender[] {
  if (value === undefined) return []
  if (!Array.isArray(value) || value.length > maxSpenders)
    fail('spenders', `must be a list of at most ${maxSpenders} spenders`)
  return (value as unknown[]).map((entry, index) => {
    const at = `spenders.${index}`
    if (!isRecord(entry)) return fail(at, 'must be { spender, granted, drawn }')
    const own = (name: string) => (Object.hasOwn(entry, name) ? entry[name] : undefined)
    const [spender, granted, drawn] = [own('spender'), own('granted'), own('drawn')]
    if (typeof spender !== 'string' || !addressPattern.test(spender))
      fail(`${at}.spender`, 'must be an address')
    if (typeof granted !== 'string' || !digits.test(granted))
      fail(`${at}.granted`, 'must be base units in decimal digits')
    if (typeof drawn !== 'string' || !digits.test(drawn))
      fail(`${at}.drawn`, 'must be base units in decimal digits')
    return { spender: spender as string, granted: BigInt(granted as string), drawn: BigInt(drawn as string) }
  })
}

/**
 * The review with the differences between the expected payment and what the request moves added as warnings
 * (`expectationWarnings`; after the caller's own warnings, so a caller can never replace one). Unchanged without an
 * expectation or without a review (a read signs nothing).
 */
export function withExpectation(
  review: ReviewDraft | null,
  effects: readonly AssetEffect[] | undefined,
  expected: Expectation | undefined,
  requestChainId: string,
  addressKey?: AddressKey,
): ReviewDraft | null {
  if (review === null || expected === undefined) return review
  const warnings = expectationWarnings(expected, requestChainId, effects, addressKey)
  return warnings.length === 0 ? review : { ...review, warnings: [...review.warnings, ...warnings] }
}

/**
 * Every difference between `expected` and `effects`, one warning per kind (its message lists up to three): the
 * request's or an effect's chain, the paying account, the asset, the recipient, effects the method could not
 * decode, and a payment exposure (`exposureOf`) raised above the expected amount plus its fee, each a `danger`;
 * without a recipient to compare, the `caution` `pay.recipient_unverified` names whom the request pays. Effects of
 * zero move nothing and are not compared.
 */
export function expectationWarnings(
  expected: Expectation,
  requestChainId: string,
  effects: readonly AssetEffect[] | undefined,
  addressKey: AddressKey = defaultAddressKey(expected.chainId),
): ReviewWarning[] {
  const sameAddress = (a: string, b: string) => addressKey(a) === addressKey(b)
  const sameAsset = (effect: AssetEffect) => isExpectedAsset(expected, effect, addressKey)
  const found = new Map<string, { severity: ReviewWarning['severity']; messages: string[] }>()
  const add = (code: string, message: string, severity: ReviewWarning['severity'] = 'danger') => {
    const entry = found.get(code) ?? { severity, messages: [] }
    entry.messages.push(message)
    found.set(code, entry)
  }
  const shows = `${expected.source} shows ${describeExpected(expected)}`
  if (requestChainId !== expected.chainId) {
    add('pay.chain_mismatch', `${shows} on ${expected.chainId}; this request signs on ${requestChainId}.`)
  }
  if (effects === undefined) {
    add(
      'pay.action_unverified',
      `${shows}, but the wallet cannot decode what this request moves, so it cannot check that it pays only that.`,
    )
  }
  const ledger = ledgerOf(expected, addressKey)
  const before = exposureOf(ledger)
  // This request's effects of the expected asset: what it adds to the payment's exposure.
  const moving: AssetEffect[] = []
  for (const effect of effects ?? []) {
    if (effect.amount === 0n) continue
    const moves = describeEffect(expected, effect, sameAsset(effect))
    if (effect.chainId !== expected.chainId) {
      add(
        'pay.chain_mismatch',
        `${shows} on ${expected.chainId}; this request ${moves} on ${effect.chainId}.`,
      )
    }
    if (!sameAddress(effect.account, expected.account.address)) {
      add(
        'pay.account_mismatch',
        `${shows} paid from ${expected.account.address}; this request ${moves} from ${effect.account}.`,
      )
    }
    if (!sameAsset(effect)) {
      add('pay.asset_mismatch', `${shows}; this request ${moves}.`)
      continue
    }
    const recipient = expected.recipient
    if (
      recipient !== undefined &&
      !sameAddress(effect.recipient, recipient.address) &&
      (effect.recipientOwner === undefined || !sameAddress(effect.recipientOwner, recipient.address))
    ) {
      add('pay.recipient_mismatch', `${shows} to ${recipient.address}; this request ${moves}.`)
    }
    moving.push(effect)
    ledger.add(effect)
  }
  const after = exposureOf(ledger)
  // Raised above the limit by this request: an earlier request over it was flagged (or allowed) in its own review.
  if (after > expected.amount + expected.maxFee && after > before) {
    const alone = moving.length === 1 && before === 0n && after === moving[0]!.amount
    const total = alone
      ? ''
      : before === 0n
        ? `, so the payment can take ${upTo(expected, after)}`
        : `, so with the payment's earlier requests (${upTo(expected, before)}) it can take ${upTo(expected, after)}`
    add('pay.amount_mismatch', `${shows}; this request ${listEffects(expected, moving)}${total}.`)
  }
  if (expected.recipient === undefined && moving.length > 0) {
    add(
      'pay.recipient_unverified',
      `${expected.source} does not name who is paid; this request ${listEffects(expected, moving)}.`,
      'caution',
    )
  }
  return [...found].map(([code, { severity, messages }]) => ({
    code,
    severity,
    message:
      messages.length <= 3
        ? messages.join(' ')
        : `${messages.slice(0, 3).join(' ')} (and ${messages.length - 3} more)`,
  }))
}

/**
 * What the payment can take of its asset once these effects are added to what its earlier requests could
 * (`expected.paid` and `.spenders`), as the next request carries it: `handle`'s `onEffects` tells the caller.
 * Beyond 64 spenders the rest count in `paid` (their exposure, added to again by any later approval: never less).
 */
export function exposureAfter(
  expected: Expectation,
  effects: readonly AssetEffect[] | undefined,
  addressKey: AddressKey = defaultAddressKey(expected.chainId),
): PaymentExposure {
  const ledger = ledgerOf(expected, addressKey)
  for (const effect of effects ?? []) {
    if (effect.amount !== 0n && isExpectedAsset(expected, effect, addressKey)) ledger.add(effect)
  }
  const spenders = [...ledger.spenders.values()]
  const folded = spenders.slice(maxSpenders).reduce((sum, entry) => sum + spenderExposure(entry), 0n)
  return {
    paid: (ledger.paid + folded).toString(),
    spenders: spenders.slice(0, maxSpenders).map(({ spender, granted, drawn }) => ({
      spender,
      granted: granted.toString(),
      drawn: drawn.toString(),
    })),
  }
}

/**
 * Base units of the expected asset a request's effects transfer (allowances aside, those drawn on one included):
 * `handle`'s `onEffects` tells it beside the exposure.
 */
export function transferredBy(
  expected: Expectation,
  effects: readonly AssetEffect[] | undefined,
  addressKey: AddressKey = defaultAddressKey(expected.chainId),
): bigint {
  return (effects ?? [])
    .filter((effect) => effect.kind === 'transfer' && isExpectedAsset(expected, effect, addressKey))
    .reduce((sum, effect) => sum + effect.amount, 0n)
}

/**
 * A payment's movements of its asset so far: transfers that draw on no allowance (`paid`), and per spender (by
 * `addressKey`) the largest allowance granted to it and what is drawn through its allowance.
 */
type Ledger = { paid: bigint; spenders: Map<string, Spender>; add(effect: AssetEffect): void }

function ledgerOf(expected: Expectation, addressKey: AddressKey): Ledger {
  const spenders = new Map<string, Spender>()
  const spenderOf = (address: string): Spender => {
    const key = addressKey(address)
    let entry = spenders.get(key)
    if (entry === undefined) {
      entry = { spender: address, granted: 0n, drawn: 0n }
      spenders.set(key, entry)
    }
    return entry
  }
  // A list that names one spender twice (in two forms of its address) counts as its larger grant and both draws.
  for (const { spender, granted, drawn } of expected.spenders) {
    const entry = spenderOf(spender)
    entry.granted = max(entry.granted, granted)
    entry.drawn += drawn
  }
  const ledger: Ledger = {
    paid: expected.paid,
    spenders,
    add(effect) {
      if (effect.via !== undefined) spenderOf(effect.via).drawn += effect.amount
      else if (effect.kind === 'allowance') {
        const entry = spenderOf(effect.recipient)
        entry.granted = max(entry.granted, effect.amount)
      } else ledger.paid += effect.amount
    },
  }
  return ledger
}

/**
 * What the payment can take: its transfers that draw on no allowance, and per spender the larger of the allowance
 * granted to it and what is drawn through that allowance (all of it when the payment grants it none: the
 * account may have before).
 */
function exposureOf(ledger: Ledger): bigint {
  let total = ledger.paid
  for (const entry of ledger.spenders.values()) total += spenderExposure(entry)
  return total
}

const spenderExposure = ({ granted, drawn }: Spender) => max(granted, drawn)
const max = (a: bigint, b: bigint) => (a > b ? a : b)

function isExpectedAsset(expected: Expectation, effect: AssetEffect, addressKey: AddressKey): boolean {
  if (expected.asset.native) return effect.asset === 'native'
  return effect.asset !== 'native' && addressKey(effect.asset) === addressKey(expected.asset.reference)
}

function describeExpected(expected: Expectation): string {
  const amount = formatAmount(expected, expected.amount)
  return expected.maxFee === 0n
    ? amount
    : `${amount} (at most ${formatAmount(expected, expected.amount + expected.maxFee)} with its fee)`
}

/** Up to three effects in words, and how many more. */
function listEffects(expected: Expectation, effects: readonly AssetEffect[]): string {
  const shown = effects.slice(0, 3).map((effect) => describeEffect(expected, effect, true))
  if (effects.length > 3) return `${shown.join(', ')} and ${effects.length - 3} more`
  return shown.length === 1 ? shown[0]! : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`
}

/** `up to 25 USDC`, or `an unlimited amount`. */
function upTo(expected: Expectation, units: bigint): string {
  return units >= unlimitedAllowance ? 'an unlimited amount' : `up to ${formatAmount(expected, units)}`
}

/** The effect in words: `transfers 1000 USDC to 0x… (EIP-3009 TransferWithAuthorization)`. */
function describeEffect(expected: Expectation, effect: AssetEffect, ofExpectedAsset: boolean): string {
  const amount = ofExpectedAsset
    ? formatAmount(expected, effect.amount, effect.kind === 'allowance')
    : `${effect.amount >= unlimitedAllowance && effect.kind === 'allowance' ? 'an unlimited amount' : `${effect.amount} base units`} of ${effect.asset === 'native' ? 'the native coin' : `token ${effect.asset}`}`
  const recipient =
    effect.recipientOwner === undefined
      ? effect.recipient
      : `${effect.recipient} (owned by ${effect.recipientOwner})`
  return effect.kind === 'allowance'
    ? `lets ${recipient} spend ${amount} (${effect.form})`
    : `transfers ${amount} to ${recipient} (${effect.form})`
}

/** Base units in the expected asset's decimals and symbol when the description gave them. */
function formatAmount(expected: Expectation, units: bigint, allowance = false): string {
  if (allowance && units >= unlimitedAllowance) return 'an unlimited amount'
  const { decimals, symbol } = expected
  if (decimals === undefined) return `${units} base units${symbol === undefined ? '' : ` of ${symbol}`}`
  const text = units.toString().padStart(decimals + 1, '0')
  const whole = text.slice(0, text.length - decimals)
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '')
  return `${whole}${fraction === '' ? '' : `.${fraction}`}${symbol === undefined ? '' : ` ${symbol}`}`
}
