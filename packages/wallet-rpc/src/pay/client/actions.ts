import { base58, base64 } from '@scure/base'
import type { ExpectedPayment, PaymentExposure } from '../../core/expectation.js'
import type { KeyValueStorage } from '../../core/journal.js'
import type { SupportedNamespace, WalletRpc } from '../../core/router.js'
import { printableLine } from '../../core/text.js'
import { OptionUnavailableError, PayActionError, PayProtocolError } from '../errors.js'
import type { Action, Amount, WalletRpcAction } from './shapes.js'

/** chainId → methods the wallet serves there. */
type Capabilities = Map<string, ReadonlySet<string>>

export function capabilitiesOf(supported: readonly SupportedNamespace[]): Capabilities {
  const capabilities: Capabilities = new Map()
  for (const namespace of supported) {
    const methods = new Set(namespace.methods)
    for (const chain of namespace.chains) capabilities.set(chain, methods)
  }
  return capabilities
}

/** Why the wallet cannot run these actions, or undefined when it can (decided before anything is signed). */
export function unavailableReason(
  option: PayOptionLike,
  actions: readonly Action[],
  capabilities: Capabilities,
  ownedAccounts?: ReadonlySet<string>,
): string | undefined {
  const expected = expectedPaymentOf(option)
  if (typeof expected === 'string') return expected
  if (!capabilities.has(expected.chainId)) return `the wallet has no ${expected.chainId} chain`
  // An option for an account the wallet did not offer would fail at the router halfway through its actions.
  if (ownedAccounts !== undefined && !ownedAccounts.has(accountKey(expected.account))) {
    return `option account ${printableLine(expected.account, 140)} is not one of this wallet's accounts`
  }
  for (const action of actions) {
    if (action.type === 'build') continue // resolved by fetch; checked again once resolved
    const { chain_id: chainId, method } = action.data
    const methods = capabilities.get(chainId)
    if (methods === undefined)
      return `the wallet has no ${chainId} chain (namespace ${chainId.split(':')[0]})`
    if (!methods.has(method)) return `the wallet does not serve ${printableLine(method, 128)} on ${chainId}`
  }
  return undefined
}

/** What the client reads of an option to check its actions (a gateway option, or `@walletconnect/pay`'s). */
export type PayOptionLike = {
  account?: string | undefined
  amount?:
    | {
        unit: string
        value: string
        display?: { assetSymbol?: string | undefined; decimals?: number | undefined } | null | undefined
      }
    | undefined
}

const baseUnits = /^[0-9]{1,78}$/
const caip19Unit = /^caip19\/(([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32})\/[-a-z0-9]{3,8}:[-.%a-zA-Z0-9]{1,128})$/

/**
 * The payment an option describes, as every one of its actions must make it (`HandleInput.expected`: the
 * router compares it with what each signature or transaction moves): the option's account pays `amount`
 * base units of its CAIP-19 asset on the account's chain. Or why an option cannot be checked, and so is not
 * paid: it names no account or no token amount (an amount in a currency says nothing about what is signed).
 * `shown` is the payment's amount as the gateway's payment info shows it: in the option's unit, the lesser of
 * the two is what the actions may pay, so an option asking more than the payment shows is `pay.amount_mismatch`
 * at the action that pays it (in another unit, a currency, there is nothing to compare).
 */
export function expectedPaymentOf(
  option: PayOptionLike,
  shown?: { unit: string; value: string },
): ExpectedPayment | string {
  const { account, amount } = option
  if (account === undefined) return 'the option names no paying account, so its actions cannot be checked'
  const chainId = chainOfAccount(account)
  if (chainId === undefined)
    return `option account ${printableLine(account, 140)} is not a CAIP-10 account id`
  const unit = amount === undefined ? null : caip19Unit.exec(amount.unit)
  if (amount === undefined || unit === null || !baseUnits.test(amount.value)) {
    return 'the option names no token amount (a caip19 unit and base units), so its actions cannot be checked'
  }
  if (unit[2] !== chainId) {
    return `the option pays ${printableLine(unit[1]!, 140)} from an account on ${chainId}`
  }
  const decimals = amount.display?.decimals
  const symbol = amount.display?.assetSymbol
  const lesserShown =
    shown !== undefined &&
    unitKey(shown.unit) === unitKey(amount.unit) &&
    baseUnits.test(shown.value) &&
    BigInt(shown.value) < BigInt(amount.value)
  return {
    source: 'The payment gateway',
    chainId,
    account,
    asset: unit[1]!,
    amount: lesserShown ? shown.value : amount.value,
    ...(typeof decimals === 'number' && Number.isSafeInteger(decimals) && decimals >= 0 && decimals <= 36
      ? { decimals }
      : {}),
    ...(typeof symbol === 'string' ? { symbol: printableLine(symbol, 16) } : {}),
  }
}

/** Comparable form of a CAIP-10 account: EVM addresses are case-insensitive (EIP-55 is only a checksum). */
export function accountKey(account: string): string {
  return account.startsWith('eip155:') ? account.toLowerCase() : account
}

/** Comparable form of an amount's unit: a `caip19/` asset's EVM address is case-insensitive too. */
const unitKey = (unit: string) => accountKey(unit.replace(/^caip19\//, ''))

/** `eip155:8453:0xabc…` → `eip155:8453`. */
export function chainOfAccount(account: string): string | undefined {
  const match = /^([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}):[-.%a-zA-Z0-9]{1,128}$/.exec(account)
  return match?.[1]
}

/** Decodes an action's params: an array (OpenAPI) or the JSON text of one (spec, SDK). */
function paramsOf(action: WalletRpcAction, index: number): unknown {
  const raw = action.data.params
  if (typeof raw !== 'string') return raw
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    throw new PayProtocolError(`Action ${index + 1} has params that are not JSON.`)
  }
  if (typeof parsed !== 'object' || parsed === null) {
    throw new PayProtocolError(`Action ${index + 1} has params that are neither an array nor an object.`)
  }
  return parsed
}

/** `{unit, value, display{decimals, assetSymbol}}` → `12.5 USDC`; falls back to the raw minor units. */
export function formatAmount(amount: Amount | undefined): string | undefined {
  if (amount === undefined) return undefined
  const decimals = amount.display?.decimals
  const symbol = amount.display?.assetSymbol ?? amount.unit.replace(/^(iso4217|caip19)\//, '')
  if (decimals === undefined || !/^\d+$/.test(amount.value) || decimals < 0 || decimals > 36) {
    return `${amount.value} ${symbol} (minor units)`
  }
  const digits = amount.value.padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return `${whole}${fraction === '' ? '' : `.${fraction}`} ${symbol}`
}

type ActionContext = {
  paymentId: string
  /** The option paid: with the payment and the action's place, the request journal's key of each action. */
  optionId: string
  merchant: string | undefined
  amount: string | undefined
  option: string
  origin: string
  /** What every action must pay (`expectedPaymentOf` the option). */
  expected: ExpectedPayment
  /** When the payment (or the option) expires, as Unix ms: an action approved after it is refused (8000). */
  expiresAtMs?: number | undefined
  /** The request journal's store, when not the wallet's own (`createWalletRpc({ journal })`). */
  journal?: KeyValueStorage | undefined
}

/**
 * Runs the actions in order through the wallet's router, each with the payment context the wallet's
 * approval shows, and stops at the first failure (nothing after it is asked, nothing is confirmed).
 * Returns one result string per action, in order.
 */
export async function executeActions(
  wallet: WalletRpc,
  actions: readonly WalletRpcAction[],
  context: ActionContext,
  beforeEach: (index: number) => void,
  onAction: ((event: { index: number; total: number; chainId: string; method: string }) => void) | undefined,
): Promise<string[]> {
  const results: string[] = []
  // What the payment's earlier actions can take of the option's asset, counted with each next one (the router
  // adds up transfers and allowances: `onEffects`' exposure).
  let exposure: PaymentExposure | undefined
  for (const [index, action] of actions.entries()) {
    beforeEach(index)
    const params = adaptParams(action.data.method, paramsOf(action, index))
    onAction?.({ index, total: actions.length, chainId: action.data.chain_id, method: action.data.method })
    // The gateway's words, shown beside the review: one bounded line each, every hidden character visible.
    const reviewContext: Record<string, string> = {
      payment: printableLine(context.paymentId, 128),
      option: printableLine(context.option, 256),
      action: `${index + 1} of ${actions.length}`,
    }
    if (context.merchant !== undefined) reviewContext.merchant = printableLine(context.merchant, 128)
    if (context.amount !== undefined) reviewContext.amount = printableLine(context.amount, 128)
    let exposed: PaymentExposure | undefined
    const response = await wallet.handle(
      {
        chainId: action.data.chain_id,
        request: {
          id: `${context.paymentId}#${index + 1}`,
          jsonrpc: '2.0',
          method: action.data.method,
          params,
        },
        origin: context.origin,
        context: reviewContext,
        ...(context.expiresAtMs === undefined ? {} : { expiryTimestamp: context.expiresAtMs / 1000 }),
        expected: { ...context.expected, ...exposure },
        // One payment, one effect: the same action asked again (pay() after a crash or a lost confirm) replays what
        // it did; another action in its place, once this one signed something, is refused (-32600).
        requestKey: JSON.stringify(['pay', context.origin, context.paymentId, context.optionId, index]),
      },
      {
        ...(context.journal === undefined ? {} : { journal: context.journal }),
        onEffects: (_effects, _transferred, told) => {
          exposed = told
        },
      },
    )
    if ('error' in response) throw new PayActionError(index, response.error)
    exposure = exposed
    const result = resultString(action.data.method, response.result)
    if (typeof result !== 'string' || result === '') {
      throw new PayActionError(index, {
        code: -32603,
        message: `${action.data.method} returned no string result to confirm with`,
      })
    }
    results.push(result)
  }
  return results
}

/** An action as `@walletconnect/pay` (and `walletKit.pay`) hands it over: params as the array's JSON text. */
export type SdkPayAction = { walletRpc: { chainId: string; method: string; params: string } }

/**
 * Runs the actions `@walletconnect/pay`'s `getRequiredPaymentActions` returns through the wallet's router, in
 * order, each with the payment context its approval shows, and returns what its `confirmPayment` takes as
 * `signatures` (one string per action; a Solana action's signed transaction in base64). `option` is the
 * chosen option as `getPaymentOptions` gave it: each action must pay what it shows (its account, asset and
 * amount), or the wallet refuses it (`pay.*` dangers). Stops at the first failure (`PayActionError`); an
 * option that names no account or token amount is refused before any action (`OptionUnavailableError`).
 */
export async function executePayActions(
  wallet: WalletRpc,
  actions: readonly SdkPayAction[],
  context: {
    paymentId: string
    optionId: string
    option: PayOptionLike
    origin: string
    merchant?: string
    amount?: string
    /** The payment's amount as its info shows it (`info.amount`): an option asking more is refused. */
    paymentAmount?: { unit: string; value: string }
    /** The payment's `info.expiresAt` (Unix seconds): an action approved after it is refused (8000). */
    expiresAt?: number
  },
): Promise<string[]> {
  const expected = expectedPaymentOf(context.option, context.paymentAmount)
  if (typeof expected === 'string') {
    throw new OptionUnavailableError(
      `Option ${printableLine(context.optionId, 128)} is unavailable: ${expected}.`,
    )
  }
  const walletRpcActions: WalletRpcAction[] = actions.map(({ walletRpc }) => ({
    type: 'walletRpc',
    data: { chain_id: walletRpc.chainId, method: walletRpc.method, params: walletRpc.params },
  }))
  return executeActions(
    wallet,
    walletRpcActions,
    {
      paymentId: context.paymentId,
      optionId: context.optionId,
      merchant: context.merchant,
      amount: context.amount,
      option: context.optionId,
      origin: context.origin,
      expected,
      expiresAtMs: context.expiresAt === undefined ? undefined : context.expiresAt * 1000,
    },
    () => {},
    undefined,
  )
}

/**
 * The OpenAPI gives params as an array; `solana_signTransaction` takes one object (`{ transaction, … }`), so a
 * one-object array is unwrapped for it. Other methods get their params as sent.
 */
function adaptParams(method: string, params: unknown): unknown {
  if (method === 'solana_signTransaction' && Array.isArray(params) && params.length === 1) return params[0]
  return params
}

/**
 * The string an action contributes to `results[]`. Spec rule 4: `solana_signTransaction` yields the base64
 * signed transaction (not the detached signature the method also answers), re-encoded when the request was
 * base58. Other methods answer the string itself (a signature or a transaction hash).
 */
function resultString(method: string, result: unknown): unknown {
  if (method !== 'solana_signTransaction') return result
  const transaction = (result as { transaction?: unknown } | null)?.transaction
  if (typeof transaction !== 'string') return undefined
  if (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(transaction)) {
    try {
      base64.decode(transaction)
      return transaction
    } catch {
      // not base64 after all: read as base58 below
    }
  }
  try {
    return base64.encode(base58.decode(transaction))
  } catch {
    return undefined
  }
}
