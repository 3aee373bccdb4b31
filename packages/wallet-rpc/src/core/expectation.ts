import { InvalidParamsError } from './errors.js'
import type { ReviewDraft, ReviewWarning } from './review.js'
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
   * Base units of `asset` the payment's earlier requests already transfer (a gateway's earlier actions), decimal
   * digits: counted with this request's transfers against `amount` + `maxFee`, so N actions cannot each pay it
   * all. Default 0. `handle`'s `onEffects` tells the caller what each request transfers of it, for the next one.
   */
  paid?: string
  /** The asset's decimals and symbol as the description shows them, for the warnings' amounts. */
  decimals?: number
  symbol?: string
}

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
  recipient: AccountRef | undefined
  decimals: number | undefined
  symbol: string | undefined
}

const chainPattern = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/
// CAIP-10/19, with `_` allowed in an address: TON's user-friendly form is URL-safe base64.
const accountPattern = /^([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}):([-_.%a-zA-Z0-9]{1,128})$/
const assetPattern = /^([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32})\/([-a-z0-9]{3,8}):([-_.%a-zA-Z0-9]{1,128})$/
const digits = /^[0-9]{1,78}$/

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
    recipient: recipient === undefined ? undefined : { chainId: recipient[1]!, address: recipient[2]! },
    decimals: decimals as number | undefined,
    symbol: symbol === undefined ? undefined : printableLine(symbol as string, 16),
  }
}

/**
 * The review with the differences between the expected payment and what the request moves added as `danger`
 * warnings (after the caller's own warnings, so a caller can never replace one). Unchanged without an
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

/** Amounts at or above 2^128 exceed any real token supply: an allowance that large is unlimited in effect. */
const unlimited = 2n ** 128n

/**
 * Every difference between `expected` and `effects`, one `danger` per kind (its message lists up to three):
 * the request's or an effect's chain, the paying account, the asset, the recipient, an amount above the
 * expected one plus its fee (transfers of the expected asset summed; each allowance on its own), or effects
 * the method could not decode. Effects of zero move nothing and are not compared.
 */
export function expectationWarnings(
  expected: Expectation,
  requestChainId: string,
  effects: readonly AssetEffect[] | undefined,
  addressKey: AddressKey = defaultAddressKey(expected.chainId),
): ReviewWarning[] {
  const sameAddress = (a: string, b: string) => addressKey(a) === addressKey(b)
  const sameAsset = (effect: AssetEffect) => isExpectedAsset(expected, effect, addressKey)
  const found = new Map<string, string[]>()
  const add = (code: string, message: string) => {
    const list = found.get(code) ?? []
    list.push(message)
    found.set(code, list)
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
  const allowed = expected.amount + expected.maxFee
  let transferred = expected.paid
  const transfers: AssetEffect[] = []
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
    if (effect.kind === 'allowance') {
      if (effect.amount > allowed) add('pay.amount_mismatch', `${shows}; this request ${moves}.`)
    } else {
      transferred += effect.amount
      transfers.push(effect)
    }
  }
  if (transferred > allowed) {
    const moves =
      transfers.length === 1
        ? describeEffect(expected, transfers[0]!, true)
        : `transfers ${formatAmount(expected, transferred - expected.paid)} in ${transfers.length} transfers`
    const earlier =
      expected.paid === 0n
        ? ''
        : `, after the payment's earlier requests transferred ${formatAmount(expected, expected.paid)}`
    add('pay.amount_mismatch', `${shows}; this request ${moves}${earlier}.`)
  }
  return [...found].map(([code, messages]) => ({
    code,
    severity: 'danger',
    message:
      messages.length <= 3
        ? messages.join(' ')
        : `${messages.slice(0, 3).join(' ')} (and ${messages.length - 3} more)`,
  }))
}

/**
 * Base units of the expected asset a request's effects transfer (allowances aside): what the next request of the
 * same payment passes as `paid`.
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

/** The effect in words: `transfers 1000 USDC to 0x… (EIP-3009 TransferWithAuthorization)`. */
function describeEffect(expected: Expectation, effect: AssetEffect, ofExpectedAsset: boolean): string {
  const amount = ofExpectedAsset
    ? formatAmount(expected, effect.amount, effect.kind === 'allowance')
    : `${effect.amount >= unlimited && effect.kind === 'allowance' ? 'an unlimited amount' : `${effect.amount} base units`} of ${effect.asset === 'native' ? 'the native coin' : `token ${effect.asset}`}`
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
  if (allowance && units >= unlimited) return 'an unlimited amount'
  const { decimals, symbol } = expected
  if (decimals === undefined) return `${units} base units${symbol === undefined ? '' : ` of ${symbol}`}`
  const text = units.toString().padStart(decimals + 1, '0')
  const whole = text.slice(0, text.length - decimals)
  const fraction = text.slice(text.length - decimals).replace(/0+$/, '')
  return `${whole}${fraction === '' ? '' : `.${fraction}`}${symbol === undefined ? '' : ` ${symbol}`}`
}
