import type { EngineTypes, SessionTypes } from '@walletconnect/types'
import type { ConnectPayments } from '../../core/connectPayment.js'
import type { ExpectedPayment } from '../../core/expectation.js'
import { printableLine } from '../../core/text.js'
import type { WalletRpcLike } from '../walletRpcLike.js'

/** A token's symbol and decimals, as the wallet reads them from its chain (display only). */
export type AssetInfo = { symbol: string; decimals: number }

/** Where the review's token facts and the non-eip155 payments come from (the adapter's options). */
export type PaymentSources = {
  assetInfo?: ((asset: string) => Promise<AssetInfo | undefined>) | undefined
  payments?: readonly ConnectPayments[] | undefined
}

/** One accepted payment of a `walletPay` request, decoded for the connect review. */
export type PaymentOptionReview = {
  index: number
  /** CAIP-19 asset id, as the dapp sent it. */
  asset: string
  /** CAIP-10 recipient, as the dapp sent it. */
  recipient: string
  /** Minor units, decimal. */
  amount: string | undefined
  /** `1.5 USDC`, when the asset's decimals are known; else the minor units. */
  display: string | undefined
  symbol: string | undefined
  decimals: number | undefined
  /** Why the wallet cannot pay this option (malformed, another chain, no account, unsupported asset). */
  unpayable: string | undefined
}

/** `requests.walletPay` as the connect review shows it: the payment approval would make. */
export type WalletPayReview = {
  orderId: string | undefined
  /** Unix seconds. */
  expiry: number | undefined
  options: PaymentOptionReview[]
  /** The option approval pays (the first payable one), when there is one. */
  pays: number | undefined
  /** Why nothing is paid at all (malformed, expired, no payable option). */
  refused: string | undefined
}

/** A planned payment: the request the wallet's own method path answers. */
export type PaymentStep = {
  option: PaymentOptionReview
  chainId: string
  method: string
  /** The method's params, built when paying (a Solana transfer needs a fresh blockhash). */
  params: () => Promise<unknown>
  /** The transaction id in the method's answer. */
  txid: (result: unknown) => string | undefined
  /**
   * What the request must pay (`HandleInput.expected`): the router compares it with what the transaction the
   * method builds moves, and refuses any difference.
   */
  expected: ExpectedPayment
  /** Undefined once the chain shows the payment made (a `ConnectPayments.settled`), else why it is not reported. */
  settled: (txid: string) => Promise<string | undefined>
  /** The dapp's order id: with the site's origin, the request journal's key of the payment (paid once). */
  orderId: string | undefined
  result: (txid: string) => EngineTypes.WalletPayResult
}

const maxOptions = 16
const assetPattern = /^([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32})\/([-a-z0-9]{3,8}):([-.%a-zA-Z0-9]{1,128})$/
const accountPattern = /^([-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}):([-.%a-zA-Z0-9]{1,128})$/
const hexAmountPattern = /^0x[0-9a-fA-F]{1,64}$/
const evmAddressPattern = /^0x[0-9a-fA-F]{40}$/

const own = (record: Record<string, unknown>, field: string): unknown =>
  Object.hasOwn(record, field) ? record[field] : undefined

/**
 * The review and the payment plan of a proposal's `walletPay`. Payable: the options of a namespace the wallet
 * passed a `ConnectPayments` for (eip155: native and ERC-20 tokens checked on the chain, through
 * `eth_sendTransaction`; solana: SOL and SPL through `solana_signAndSendTransaction`), and without one eip155
 * native (`slip44:60`) only: an ERC-20 is paid only once the chain showed it is one. An option on another
 * chain, of another asset, or for an account the session does not include is listed with why it is not paid.
 * Never throws.
 */
export async function planWalletPay(
  value: unknown,
  namespaces: SessionTypes.Namespaces,
  supported: ReturnType<WalletRpcLike['supported']>,
  sources: PaymentSources,
  now: number,
  report: (error: unknown) => void,
): Promise<{ review: WalletPayReview; step: PaymentStep | undefined }> {
  const review: WalletPayReview = {
    orderId: undefined,
    expiry: undefined,
    options: [],
    pays: undefined,
    refused: undefined,
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    review.refused = 'walletPay is not an object'
    return { review, step: undefined }
  }
  const record = value as Record<string, unknown>
  const version = own(record, 'version')
  const orderId = own(record, 'orderId')
  const expiry = own(record, 'expiry')
  const accepted = own(record, 'acceptedPayments')
  // Shown as one bounded, visible line; answered and keyed as the dapp wrote it.
  if (typeof orderId === 'string') review.orderId = printableLine(orderId, 256)
  if (typeof expiry === 'number' && Number.isSafeInteger(expiry)) review.expiry = expiry
  const refuse = (reason: string) => {
    review.refused = reason
    return { review, step: undefined }
  }
  if (typeof version !== 'string' || version === '') return refuse('version is missing')
  if (orderId !== undefined && typeof orderId !== 'string') return refuse('orderId is not a string')
  if (review.expiry === undefined) return refuse('expiry is not Unix seconds')
  if (!Array.isArray(accepted) || accepted.length === 0) return refuse('acceptedPayments is empty')
  if (accepted.length > maxOptions) return refuse(`acceptedPayments lists more than ${maxOptions} options`)
  for (const [index, option] of accepted.entries()) {
    review.options.push(await decodeOption(index, option, namespaces, supported, sources, report))
  }
  if (review.expiry * 1000 <= now) {
    return refuse(`the offer expired at ${new Date(review.expiry * 1000).toISOString()}`)
  }
  const payable = review.options.find((option) => option.unpayable === undefined)
  if (payable === undefined) return refuse('the wallet can pay none of the accepted payments')
  review.pays = payable.index
  return {
    review,
    step: stepFor(payable, namespaces, sources, version, typeof orderId === 'string' ? orderId : undefined),
  }
}

async function decodeOption(
  index: number,
  option: unknown,
  namespaces: SessionTypes.Namespaces,
  supported: ReturnType<WalletRpcLike['supported']>,
  sources: PaymentSources,
  report: (error: unknown) => void,
): Promise<PaymentOptionReview> {
  const record = typeof option === 'object' && option !== null ? (option as Record<string, unknown>) : {}
  const text = (field: string) => {
    const value = own(record, field)
    return typeof value === 'string' ? value.slice(0, 256) : ''
  }
  const review: PaymentOptionReview = {
    index,
    asset: text('asset'),
    recipient: text('recipient'),
    amount: undefined,
    display: undefined,
    symbol: undefined,
    decimals: undefined,
    unpayable: undefined,
  }
  const unpayable = (reason: string) => {
    review.unpayable = reason
    return review
  }
  const asset = assetPattern.exec(review.asset)
  if (asset === null) return unpayable(`asset ${JSON.stringify(review.asset)} is not a CAIP-19 asset id`)
  const recipient = accountPattern.exec(review.recipient)
  if (recipient === null)
    return unpayable(`recipient ${JSON.stringify(review.recipient)} is not a CAIP-10 account`)
  const amount = own(record, 'amount')
  if (typeof amount !== 'string' || !hexAmountPattern.test(amount)) {
    return unpayable('amount is not a 0x-hex quantity')
  }
  const units = BigInt(amount)
  if (units === 0n) return unpayable('amount is zero')
  review.amount = units.toString()
  const [, chainId, assetNamespace, reference] = asset as unknown as [string, string, string, string]
  if (recipient[1] !== chainId)
    return unpayable(`the recipient is on ${recipient[1]}, the asset on ${chainId}`)
  const chainNamespace = chainId.split(':')[0]!
  const native = chainNamespace === 'eip155' && assetNamespace === 'slip44' && reference === '60'
  if (native) {
    review.symbol = 'native'
    review.decimals = 18
  }
  try {
    const info = await sources.assetInfo?.(review.asset)
    if (
      info !== undefined &&
      Number.isSafeInteger(info.decimals) &&
      info.decimals >= 0 &&
      info.decimals <= 36
    ) {
      review.symbol = info.symbol.slice(0, 16)
      review.decimals = info.decimals
    }
  } catch (error) {
    report(error)
  }
  const payments = payerFor(chainNamespace, sources)
  // The namespace's own chain read wins over the wallet's table for decimals: it is what the transfer uses.
  const described = await payments
    ?.describe({ chainId, asset: review.asset, recipient: review.recipient, amount: units })
    .catch((error: unknown) => {
      report(error)
      return { unpayable: 'reading the asset failed' }
    })
  if (described !== undefined && !('unpayable' in described)) {
    review.decimals = described.decimals
    review.symbol = described.symbol ?? review.symbol
  }
  review.display =
    review.decimals === undefined
      ? `${review.amount} (minor units)`
      : formatUnits(units, review.decimals, review.symbol)
  if (described !== undefined && 'unpayable' in described) return unpayable(described.unpayable)
  if (payments === undefined) {
    if (chainNamespace !== 'eip155') return unpayable(`paying on ${chainNamespace} at connect is not offered`)
    if (assetNamespace === 'erc20') {
      // A transfer() to an address without code succeeds and moves nothing: the token is checked on the chain.
      return unpayable(
        'an ERC-20 is paid at connect only after the wallet checked the token on its chain (eip155ConnectPayments in the adapter’s payments)',
      )
    }
    if (!native) return unpayable(`asset type ${assetNamespace} is not native or erc20`)
    if (!evmAddressPattern.test(recipient[2]!)) return unpayable('the recipient is not a 0x address')
  }
  const method = payments?.method ?? 'eth_sendTransaction'
  if (!supported.some((entry) => entry.name === chainNamespace && entry.methods.includes(method))) {
    return unpayable(`the wallet does not serve ${method}`)
  }
  if (!namespaces[chainNamespace]?.accounts.some((account) => account.startsWith(`${chainId}:`))) {
    return unpayable(`the session does not include ${chainId}`)
  }
  return review
}

/** The `ConnectPayments` the wallet passed for a namespace (without one, the adapter pays eip155 native itself). */
const payerFor = (chainNamespace: string, sources: PaymentSources) =>
  sources.payments?.find((payments) => payments.namespace === chainNamespace)

function stepFor(
  option: PaymentOptionReview,
  namespaces: SessionTypes.Namespaces,
  sources: PaymentSources,
  version: string,
  orderId: string | undefined,
): PaymentStep {
  const [chainNamespace, chainReference] = option.asset.split(/[:/]/) as [string, string]
  const chainId = `${chainNamespace}:${chainReference}`
  const from = namespaces[chainNamespace]!.accounts.find((account) =>
    account.startsWith(`${chainId}:`),
  )!.split(':')[2]!
  const to = option.recipient.split(':')[2]!
  const amount = BigInt(option.amount!)
  const payments = payerFor(chainNamespace, sources)
  const payment = { chainId, asset: option.asset, recipient: option.recipient, amount, payer: from }
  const request =
    payments === undefined
      ? {
          // eip155 native only (decodeOption): no reader, so the payment is reported once sent.
          method: 'eth_sendTransaction',
          params: async () => [{ from, to, value: `0x${amount.toString(16)}` }],
          txid: (result: unknown) => (typeof result === 'string' ? result : undefined),
          settled: async () => undefined,
        }
      : {
          method: payments.method,
          params: () => payments.request(payment),
          txid: payments.txid,
          settled: async (txid: string) => payments.settled?.({ ...payment, txid }),
        }
  return {
    option,
    chainId,
    ...request,
    orderId,
    expected: {
      source: 'The dapp’s walletPay',
      chainId,
      account: `${chainId}:${from}`,
      asset: option.asset,
      amount: amount.toString(),
      recipient: option.recipient,
      ...(option.decimals === undefined ? {} : { decimals: option.decimals }),
      ...(option.symbol === undefined ? {} : { symbol: option.symbol }),
    },
    result: (txid) => ({
      version,
      ...(orderId === undefined ? {} : { orderId }),
      txid,
      recipient: option.recipient,
      asset: option.asset,
      amount: `0x${amount.toString(16)}`,
    }),
  }
}

function formatUnits(units: bigint, decimals: number, symbol: string | undefined): string {
  const digits = units.toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return `${whole}${fraction === '' ? '' : `.${fraction}`}${symbol === undefined ? '' : ` ${symbol}`}`
}
