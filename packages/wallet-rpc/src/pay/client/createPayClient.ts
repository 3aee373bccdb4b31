import { type Clock, systemClock } from '../../core/clock.js'
import type { KeyValueStorage } from '../../core/journal.js'
import type { WalletRpc } from '../../core/router.js'
import { printableLine } from '../../core/text.js'
import {
  CollectDataError,
  InvalidPaymentLinkError,
  OptionUnavailableError,
  PayAbortedError,
  PaymentExpiredError,
  PayProtocolError,
  PayTimeoutError,
  RouteExpiredError,
} from '../errors.js'
import { gatewayPathId, type PaymentLinkOptions, parsePaymentLink } from '../links.js'
import {
  accountKey,
  capabilitiesOf,
  chainOfAccount,
  executeActions,
  expectedPaymentOf,
  formatAmount,
  unavailableReason,
} from './actions.js'
import {
  type CollectDataRequirement,
  type CollectedData,
  collectDataRequirement,
  type JsonSchema,
  toCollectedData,
} from './collectData.js'
import { defaultRetry, type RetryOptions } from './retry.js'
import {
  type CollectData,
  type CollectDataField,
  type ConfirmResponse,
  confirmResponseSchema,
  fetchResponseSchema,
  optionsResponseSchema,
  type PaymentInfo,
  type PaymentStatus,
  type RawOption,
  type WalletRpcAction,
} from './shapes.js'
import { createTransport, type FetchLike, type GatewayAuth } from './transport.js'

export type CreatePayClientOptions = {
  /** Gateway base URL, e.g. `https://api.pay.walletconnect.com` or the local sandbox's `http://127.0.0.1:PORT`. */
  baseUrl: string
  /** The wallet's router: actions run through `wallet.handle`, accounts come from `supported()`/`accounts()`. */
  wallet: WalletRpc
  fetch?: FetchLike
  clock?: Clock
  /**
   * API version to request (sent as `WCP-Version` and `Api-Version`, as `@walletconnect/pay` does). Default
   * `2026-02-19.preview`: the wire this client reads, the one the official client speaks.
   */
  version?: string
  /** Waits between retries and polls. Default: a real timer. */
  sleep?: (ms: number) => Promise<void>
  /** Jitter source in [0, 1). Default `Math.random`. */
  random?: () => number
  retry?: Partial<RetryOptions>
  /**
   * Server-side long polling (`maxPollMs`) on confirm and on the status polls after it. Default 30 000 ms; 0 turns
   * it off (then the wire is exactly the official client's: status polled every `pollInMs`).
   */
  maxPollMs?: number
  /** Give up polling a non-final payment after this long (then `PayTimeoutError`). Default 10 minutes. */
  pollTimeoutMs?: number
  /** Per-attempt HTTP timeout on top of `maxPollMs`. Default 30 000 ms. */
  requestTimeoutMs?: number
  /** Trusted checkout hosts for links passed to `getOptions`/`pay`. Default the production host. */
  trustedHosts?: PaymentLinkOptions['trustedHosts']
  /**
   * Where the request journal keeps each action (keyed by gateway, payment, option and action), so a `pay` run
   * again after a crash or a lost confirm replays what an action did instead of paying twice. Default: the
   * wallet's own (`createWalletRpc({ journal })`, memory unless the wallet gave a durable store).
   */
  journal?: KeyValueStorage
} & (
  | { apiKey: string; appId?: never; clientId?: never }
  | { appId: string; clientId: string; apiKey?: never }
)

export type PaymentOption = RawOption & {
  /** False when an action needs a namespace, chain or method this wallet lacks (decided before signing). */
  available: boolean
  unavailableReason: string | undefined
  /** Rule 7 applied to this option (response-level and option-level collectData). */
  dataCollection: CollectDataRequirement
}

export type PaymentOptions = {
  paymentId: string
  info: PaymentInfo | undefined
  /** The response-level collectData (rule 7). */
  collectData: CollectData | undefined
  options: PaymentOption[]
  /** When submissions stop: `info.expiresAt` in ms since the epoch, when the gateway sent it. */
  expiresAtMs: number | undefined
  /** The API version the gateway resolved (its `WCP-Version`/`Api-Version`/`Pay-Version` reply header). */
  version: string | undefined
}

export type WebViewOutcome =
  | 'IC_COMPLETE'
  | { type: 'IC_COMPLETE'; success?: boolean }
  | { type: 'IC_ERROR'; error?: string }

export type PayHooks = {
  /** Options from an earlier `getOptions` (saves a call). Without them `pay` fetches them. */
  options?: PaymentOptions
  /** Shows `url` in a web view; resolve with the page's `IC_COMPLETE` (confirm then goes without `collectedData`) or `IC_ERROR`. */
  webView?: (request: { paymentId: string; optionId: string; url: string }) => Promise<WebViewOutcome>
  /** Native form built from the schema: resolve with field id → value; they are sent as `collectedData`. */
  collectData?: (request: {
    paymentId: string
    optionId: string
    schema: JsonSchema | undefined
    fields: CollectDataField[]
  }) => Promise<Record<string, string>>
  /** Called before each action is handed to the wallet. */
  onAction?: (event: { index: number; total: number; chainId: string; method: string }) => void
  /** Every status `confirm` reports, final or not. */
  onStatus?: (status: PaymentStatus) => void
  /**
   * Cancels the flow: checked before every step (each action, each poll) and passed to every request, so a
   * long poll ends at once. Results the gateway already accepted stay accepted.
   */
  signal?: AbortSignal
}

export type PayResult = {
  paymentId: string
  optionId: string
  status: PaymentStatus
  /** One result per action, in order: what was confirmed. */
  results: string[]
  txId: string | undefined
  /** The API version the gateway resolved on the last call (its `WCP-Version`/`Api-Version`/`Pay-Version` reply). */
  version: string | undefined
}

export type PayClient = {
  /** Options for every account of every configured chain (CAIP-10), each marked available or not. */
  getOptions(paymentIdOrLink: string, options?: { includePaymentInfo?: boolean }): Promise<PaymentOptions>
  /** Runs the whole flow for one option and returns the final status. */
  pay(paymentIdOrLink: string, optionId: string, hooks?: PayHooks): Promise<PayResult>
  /**
   * Milliseconds left before submissions stop (for a countdown): the payment's `expiresAt`, or the earlier of
   * it and the option's own when `optionId` is given; 0 once passed; undefined when no expiry is known.
   */
  remainingMs(options: PaymentOptions, optionId?: string): number | undefined
  /** The API version the gateway resolved on its last success (its `WCP-Version`/`Api-Version`/`Pay-Version` reply). */
  resolvedVersion(): string | undefined
}

const defaultPollMs = 1_000
/** The version `@walletconnect/pay` 1.1.0 sends, whose wire this client reads. */
const walletClientApiVersion = '2026-02-19.preview'

/** A payment as the client addresses it: its id, and what stands for it in gateway paths. */
type PaymentRef = { id: string; pathId: string }

export function createPayClient(options: CreatePayClientOptions): PayClient {
  const auth = authOf(options)
  const clock = options.clock ?? systemClock
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)))
  const maxPollMs = options.maxPollMs ?? 30_000
  const pollTimeoutMs = options.pollTimeoutMs ?? 10 * 60_000
  const wallet = options.wallet
  const transport = createTransport({
    baseUrl: options.baseUrl,
    auth,
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    sleep,
    random: options.random ?? Math.random,
    retry: { ...defaultRetry, ...options.retry },
    version: options.version ?? walletClientApiVersion,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
  })
  const origin = new URL(options.baseUrl).origin
  const linkOptions: PaymentLinkOptions =
    options.trustedHosts === undefined ? {} : { trustedHosts: options.trustedHosts }

  /** The payment a link or id names: its id, and what stands for it in gateway paths (`gatewayPathId`). */
  const paymentOf = (input: string): PaymentRef => {
    const id = parsePaymentLink(input, linkOptions)
    if (id === null) throw new InvalidPaymentLinkError()
    return { id, pathId: gatewayPathId(input, id) }
  }
  const path = (ref: PaymentRef, endpoint: string) =>
    `/v1/gateway/payment/${encodeURIComponent(ref.pathId)}/${endpoint}`

  async function accounts(): Promise<string[]> {
    const all: string[] = []
    for (const namespace of wallet.supported()) {
      for (const chainId of namespace.chains) {
        for (const account of await wallet.accounts(chainId)) all.push(`${chainId}:${account}`)
      }
    }
    return [...new Set(all)]
  }

  async function getOptions(ref: PaymentRef, includePaymentInfo: boolean): Promise<PaymentOptions> {
    const offered = await accounts()
    const body = { accounts: offered }
    const owned = new Set(offered.map(accountKey))
    const { body: response, version } = await transport.post(
      path(ref, 'options'),
      { includePaymentInfo: String(includePaymentInfo) },
      body,
      optionsResponseSchema,
    )
    const capabilities = capabilitiesOf(wallet.supported())
    const responseCollect = response.collectData ?? undefined
    return {
      paymentId: ref.id,
      info: response.info ?? undefined,
      collectData: responseCollect,
      options: response.options.map((option) => {
        const reason = unavailableReason(option, option.actions, capabilities, owned)
        return {
          ...option,
          available: reason === undefined,
          unavailableReason: reason,
          dataCollection: collectDataRequirement(responseCollect, option.collectData),
        }
      }),
      expiresAtMs: expiresAtMsOf(response.info ?? undefined),
      version,
    }
  }

  const remainingMs = (payment: PaymentOptions, option?: RawOption): number | undefined => {
    const deadline = deadlineMs(payment, option)
    return deadline === undefined ? undefined : Math.max(0, deadline - clock())
  }

  /** Rule 10: nothing is signed or submitted once `expiresAt` has passed on the injected clock. */
  const assertOpen = (payment: PaymentOptions, option: RawOption) => {
    if (remainingMs(payment, option) === 0) {
      throw new PaymentExpiredError('The payment expired; nothing was submitted.')
    }
  }

  async function collect(
    paymentId: string,
    option: PaymentOption,
    hooks: PayHooks,
  ): Promise<CollectedData | undefined> {
    const requirement = option.dataCollection
    if (!requirement.required) return undefined
    if (requirement.url !== undefined && hooks.webView !== undefined) {
      const outcome = await hooks.webView({ paymentId, optionId: option.id, url: requirement.url })
      if (outcome === 'IC_COMPLETE') return undefined
      if (outcome?.type === 'IC_COMPLETE' && outcome.success !== false) return undefined
      const reason = outcome?.type === 'IC_ERROR' ? outcome.error : undefined
      throw new CollectDataError(
        'collect_data_failed',
        `The data collection page did not complete${reason ? `: ${reason}` : ''}.`,
      )
    }
    if (
      hooks.collectData !== undefined &&
      (requirement.schema !== undefined || requirement.fields.length > 0)
    ) {
      const values = await hooks.collectData({
        paymentId,
        optionId: option.id,
        schema: requirement.schema,
        fields: requirement.fields,
      })
      return toCollectedData(requirement, values)
    }
    throw new CollectDataError(
      'collect_data_required',
      requirement.url !== undefined
        ? 'This option requires data collection: provide a webView hook (or a collectData hook for its schema).'
        : 'This option requires data collection: provide a collectData hook.',
    )
  }

  /** Build actions become one or more walletRpc actions (rule 2); a build never resolves into another build. */
  async function resolveActions(
    ref: PaymentRef,
    option: RawOption,
    signal: AbortSignal | undefined,
  ): Promise<WalletRpcAction[]> {
    const resolved: WalletRpcAction[] = []
    for (const action of option.actions) {
      if (action.type === 'walletRpc') {
        resolved.push(action)
        continue
      }
      const { body } = await transport.post(
        path(ref, 'fetch'),
        {},
        { optionId: option.id, data: action.data.data },
        fetchResponseSchema,
        { signal },
      )
      for (const built of body.actions) {
        if (built.type !== 'walletRpc') throw new PayProtocolError('fetch returned a build action again.')
        resolved.push(built)
      }
    }
    return resolved
  }

  /** Rule 6 as the official client does it: one confirm, then the status is polled until it is final. */
  async function confirmUntilFinal(
    ref: PaymentRef,
    optionId: string,
    results: string[],
    collectedData: CollectedData | undefined,
    hooks: PayHooks,
    progress: { confirmed: boolean },
  ): Promise<ConfirmResponse> {
    const body = {
      optionId,
      results: results.map((result) => ({ type: 'walletRpc', data: [result] })),
      ...(collectedData === undefined ? {} : { collectedData }),
    }
    const query: Record<string, string> = maxPollMs > 0 ? { maxPollMs: String(maxPollMs) } : {}
    const deadline = clock() + pollTimeoutMs
    const extras = { extraTimeoutMs: maxPollMs, signal: hooks.signal }
    let status = (await transport.post(path(ref, 'confirm'), query, body, confirmResponseSchema, extras)).body
    progress.confirmed = true
    for (;;) {
      hooks.onStatus?.(status.status)
      if (status.isFinal) return status
      if (clock() >= deadline) throw new PayTimeoutError(status.status)
      await sleep(status.pollInMs ?? defaultPollMs)
      throwIfAborted(hooks.signal)
      status = (await transport.get(path(ref, 'status'), query, confirmResponseSchema, extras)).body
    }
  }

  async function attemptOption(
    ref: PaymentRef,
    payment: PaymentOptions,
    option: PaymentOption,
    collectedData: CollectedData | undefined,
    hooks: PayHooks,
    progress: { confirmed: boolean },
  ): Promise<PayResult> {
    assertOpen(payment, option)
    const actions = await resolveActions(ref, option, hooks.signal)
    const reason = unavailableReason(option, actions, capabilitiesOf(wallet.supported()))
    const expected = expectedPaymentOf(option, payment.info?.amount)
    if (reason !== undefined || typeof expected === 'string')
      throw new OptionUnavailableError(
        `Option ${printableLine(option.id, 128)} is unavailable: ${reason ?? expected}.`,
      )
    const results = await executeActions(
      wallet,
      actions,
      {
        paymentId: ref.id,
        optionId: option.id,
        merchant: payment.info?.merchant?.name ?? undefined,
        amount: formatAmount(payment.info?.amount),
        option: describeOption(option),
        origin,
        expected,
        // The wallet's own clock decides too: an approval given after the deadline signs nothing.
        expiresAtMs: deadlineMs(payment, option),
        journal: options.journal,
      },
      () => {
        throwIfAborted(hooks.signal)
        assertOpen(payment, option)
      },
      hooks.onAction,
    )
    throwIfAborted(hooks.signal)
    assertOpen(payment, option)
    const final = await confirmUntilFinal(ref, option.id, results, collectedData, hooks, progress)
    return {
      paymentId: ref.id,
      optionId: option.id,
      status: final.status,
      results,
      txId: final.info?.txId ?? undefined,
      version: transport.resolvedVersion(),
    }
  }

  return {
    async getOptions(paymentIdOrLink, { includePaymentInfo = false } = {}) {
      return getOptions(paymentOf(paymentIdOrLink), includePaymentInfo)
    },

    async pay(paymentIdOrLink, optionId, hooks = {}) {
      const ref = paymentOf(paymentIdOrLink)
      throwIfAborted(hooks.signal)
      // Options from getOptions are reused only when they carry the payment info (expiry, merchant, amount).
      const given = hooks.options
      let payment =
        given?.paymentId === ref.id && given.info !== undefined ? given : await getOptions(ref, true)
      let option = pickOption(payment, optionId)
      assertOpen(payment, option)
      // Data is collected before anything is signed: abandoning the form leaves nothing signed.
      const collectedData = await collect(ref.id, option, hooks)
      throwIfAborted(hooks.signal)
      const progress = { confirmed: false }
      try {
        return await attemptOption(ref, payment, option, collectedData, hooks, progress)
      } catch (error) {
        // Once the gateway accepted a confirm, the results are submitted: a later 409 is reported, never re-signed.
        if (!(error instanceof RouteExpiredError) || progress.confirmed) throw error
        // 409: the route expired. Options are fetched again once (an expired route is never offered again, so
        // no `refresh` hint is needed); the same option, or its equivalent for the same account and asset, is
        // run again from the start with fresh actions.
        payment = await getOptions(ref, true)
        const renewed = equivalentOption(payment, option)
        if (renewed === undefined) throw error
        option = renewed
        return attemptOption(ref, payment, option, collectedData, hooks, progress)
      }
    },

    remainingMs: (payment, optionId) =>
      remainingMs(
        payment,
        optionId === undefined ? undefined : payment.options.find((option) => option.id === optionId),
      ),
    resolvedVersion: () => transport.resolvedVersion(),
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new PayAbortedError()
}

function authOf(options: CreatePayClientOptions): GatewayAuth {
  if (typeof options.apiKey === 'string' && options.apiKey !== '') {
    if (options.appId !== undefined) throw new TypeError('give apiKey or appId + clientId, not both')
    return { apiKey: options.apiKey }
  }
  if (typeof options.appId === 'string' && options.appId !== '') {
    if (typeof options.clientId !== 'string' || options.clientId === '') {
      throw new TypeError('appId needs clientId (the gateway requires both App-Id and Client-Id)')
    }
    return { appId: options.appId, clientId: options.clientId }
  }
  throw new TypeError('createPayClient needs apiKey, or appId and clientId')
}

/** The payment's `expiresAt`, or the earlier of it and the option's own, as Unix ms; undefined when neither is known. */
function deadlineMs(payment: PaymentOptions, option: RawOption | undefined): number | undefined {
  const optionExpiry = typeof option?.expiresAt === 'number' ? option.expiresAt * 1000 : undefined
  const deadlines = [payment.expiresAtMs, optionExpiry].filter((value) => value !== undefined)
  return deadlines.length === 0 ? undefined : Math.min(...deadlines)
}

function expiresAtMsOf(info: PaymentInfo | undefined): number | undefined {
  const seconds = info?.expiresAt
  return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds * 1000 : undefined
}

function pickOption(payment: PaymentOptions, optionId: string): PaymentOption {
  const option = payment.options.find((candidate) => candidate.id === optionId)
  if (option === undefined)
    throw new OptionUnavailableError(`Option ${optionId} is not offered for this payment.`)
  if (!option.available) {
    throw new OptionUnavailableError(`Option ${optionId} is unavailable: ${option.unavailableReason}.`)
  }
  return option
}

/** After a 409: the same id, else the one option for the same account and asset. */
function equivalentOption(payment: PaymentOptions, previous: RawOption): PaymentOption | undefined {
  const candidates = payment.options.filter((option) => option.available)
  const same = candidates.find((option) => option.id === previous.id)
  if (same !== undefined) return same
  const matching = candidates.filter(
    (option) =>
      option.account === previous.account &&
      option.amount?.unit !== undefined &&
      option.amount.unit === previous.amount?.unit,
  )
  return matching.length === 1 ? matching[0] : undefined
}

function describeOption(option: RawOption): string {
  const amount = formatAmount(option.amount)
  const network =
    option.amount?.display?.networkName ?? (option.account ? chainOfAccount(option.account) : undefined)
  return [amount, network === undefined || network === null ? undefined : `on ${network}`, `(${option.id})`]
    .filter((part) => part !== undefined)
    .join(' ')
}
