import type { ActiveBackends, CryptoBackends } from '../crypto/backends.js'
import { type Clock, systemClock } from './clock.js'
import {
  chainIdPattern,
  type Envelope,
  type HandleInput,
  readEnvelope,
  type SessionRequestEvent,
  safeIdOfInput,
} from './envelope.js'
import {
  ChainNotConfiguredError,
  InternalError,
  isOutcomeUnknown,
  type JsonRpcErrorObject,
  MethodNotFoundError,
  PolicyRefusedError,
  ProviderError,
  RequestExpiredError,
  serializeError,
  UserRejectedError,
  WalletRpcError,
} from './errors.js'
import { createEventHub, type WalletEventListener } from './events.js'
import {
  type AddressKey,
  type AssetEffect,
  exposureAfter,
  type PaymentExposure,
  transferredBy,
  withExpectation,
} from './expectation.js'
import { refuseIfExpired, untilExpiry } from './expiry.js'
import {
  type JournalRecord,
  type JournalSteps,
  JournalUnavailableError,
  type JsonValue,
  type KeyValueStorage,
  memoryStorage,
  paramsHashOf,
  RequestJournal,
  RequestKeyReusedError,
  unrecorded,
} from './journal.js'
import { failure, type JsonRpcResponse, success, toJsonSafe } from './jsonrpc.js'
import type { AnyMethod, Namespace, RequestContext } from './namespace.js'
import {
  type ApprovalPolicy,
  type Approve,
  boundedItems,
  forbiddenWarning,
  type ReviewDraft,
  type ReviewWarning,
} from './review.js'
import { assertSafeParams, defaultSafetyLimits, parseParams, type SafetyLimits } from './schema.js'

export type CreateWalletRpcOptions = {
  namespaces: readonly Namespace[]
  /** Asked before every signature or broadcast. Resolve `true` to proceed. */
  approve: Approve
  /** Receives every unexpected error (and every error a namespace reports). Never sent to the dapp. */
  onError?: (error: unknown) => void
  clock?: Clock
  policy?: ApprovalPolicy
  limits?: Partial<SafetyLimits>
  /**
   * Crypto backends to use instead of the built-in choice (a React Native native module, WASM an extension
   * loads its own way). Process-wide, like `useCrypto`; each must reproduce its known answers or this throws.
   */
  crypto?: CryptoBackends
  /**
   * Where the request journal is kept (core/journal.ts): a request given again under its key (`topic` + id,
   * or `requestKey`) replays what it did instead of signing or sending twice. Default: memory, which does not
   * survive a restart; pass a durable store (WalletKit's `core.storage`, which `attachWalletKit` passes for
   * its requests, or any `KeyValueStorage`).
   */
  journal?: KeyValueStorage
}

/** Per call, from a transport that knows more than the request says (`attachWalletKit`). */
export type HandleOptions = {
  /** The journal store for this request instead of the wallet's (`attachWalletKit` passes WalletKit's). */
  journal?: KeyValueStorage
  /**
   * The caller's clock says the request expired: it is answered from the journal when it already signed or
   * answered, else 8000, never planned or reviewed.
   */
  expired?: boolean
  /**
   * Told what the request moves (`Planned.effects`: decoded from the bytes it signs), before the user is asked or,
   * for a replay, from the journal. With `expected`: `transferred` is what it transfers of the expected asset (0
   * otherwise), and `exposure` what the payment can take of it with this request (`expected.paid` and `.spenders`
   * for the next one: the pay client counts one payment's actions together with it).
   */
  onEffects?: (
    effects: readonly AssetEffect[] | undefined,
    transferred: bigint,
    exposure: PaymentExposure | undefined,
  ) => void
  /**
   * A keyed request's record is kept at least this long from now (milliseconds), beyond its expiry and the
   * journal's usual margin: connect-time walletPay keeps an order's payment a year, so its `orderId` is not paid
   * again when a site offers the same order later.
   */
  keepMs?: number
}

export type SupportedNamespace = {
  name: string
  chains: readonly string[]
  methods: readonly string[]
  events: readonly string[]
}

export type WalletRpc = {
  /** The crypto backend each primitive uses (secp256k1, Ed25519, SHA-256); `'unused'` for one not chosen yet. */
  backends(): ActiveBackends
  /** Answers one request. Never throws; always echoes the request's id. */
  handle(
    input: HandleInput | SessionRequestEvent | unknown,
    options?: HandleOptions,
  ): Promise<JsonRpcResponse>
  /**
   * What each namespace contributes to a session's `sessionProperties`. With `chainIds` (the session's
   * approved chains) only namespaces with an approved chain contribute, each for those chains.
   */
  sessionProperties(chainIds?: readonly string[]): Promise<Record<string, string>>
  on(type: 'event', listener: WalletEventListener): () => void
  /** Chains, methods and events per namespace, for building a session's approved namespaces. */
  supported(): SupportedNamespace[]
  /** The account part of the CAIP-10 accounts this wallet offers on `chainId`. */
  accounts(chainId: string): Promise<string[]>
  /** Tells the namespaces that a session was approved on these chains (bip122 emits addressesChanged). */
  announceSession(chainIds: readonly string[]): Promise<void>
  /** Stops watchers and drops listeners. */
  close(): Promise<void>
}

/**
 * The router behind `createWalletRpc`: the namespaces by name, and per request the fixed order envelope →
 * journal (a keyed repeat replays) → expiry → namespace and method → params → plan (review) → policy → approve
 * → journal: approved → execute (which records what it signed before it sends) → journal: answered, every
 * failure an answer.
 */
export function createRouter(options: CreateWalletRpcOptions): Omit<WalletRpc, 'backends'> {
  const clock = options.clock ?? systemClock
  const limits = { ...defaultSafetyLimits, ...options.limits }
  const policy = options.policy ?? {}
  const reportError = (error: unknown) => {
    try {
      options.onError?.(error)
    } catch {
      // A broken onError hook must not break the answer.
    }
  }
  const hub = createEventHub(reportError)
  const journals = new WeakMap<KeyValueStorage, RequestJournal>()
  const journalOf = (storage: KeyValueStorage): RequestJournal => {
    let journal = journals.get(storage)
    if (journal === undefined) {
      journal = new RequestJournal(storage, clock, reportError)
      journals.set(storage, journal)
    }
    return journal
  }
  const defaultStorage = options.journal ?? memoryStorage()
  /** Set by `close()`: a resend waiting to try again stops waiting. */
  let closed = false
  const onClose = new Set<() => void>()
  /** Keyed requests being answered: a concurrent duplicate waits for the first and shares its answer. */
  const running = new Map<string, { paramsHash: string; answer: Promise<unknown> }>()

  const byName = new Map<string, Namespace>()
  for (const namespace of options.namespaces) {
    if (byName.has(namespace.name)) throw new Error(`namespace ${namespace.name} given twice`)
    byName.set(namespace.name, namespace)
    namespace.attach?.({ emit: hub.emit, clock, onError: reportError })
  }

  // Configured chain ids only (a bounded set): a request names one of a handful, so the pattern runs once each.
  const configured = new Map<string, Namespace>()
  const namespaceOf = (chainId: string): Namespace => {
    const known = configured.get(chainId)
    if (known !== undefined) return known
    const name = chainIdPattern.exec(chainId)?.[1]
    const namespace = name === undefined ? undefined : byName.get(name)
    if (!namespace?.chains.includes(chainId)) throw new ChainNotConfiguredError(chainId)
    configured.set(chainId, namespace)
    return namespace
  }

  function methodOf(envelope: Envelope): {
    namespace: Namespace
    method: AnyMethod
    context: RequestContext
  } {
    const namespace = namespaceOf(envelope.chainId)
    if (!Object.hasOwn(namespace.methods, envelope.method)) throw new MethodNotFoundError(envelope.method)
    const context: RequestContext = {
      id: envelope.id,
      chainId: envelope.chainId,
      reference: envelope.chainId.slice(namespace.name.length + 1),
      method: envelope.method,
      origin: envelope.origin,
      originValidation: envelope.originValidation,
      clock,
    }
    return { namespace, method: namespace.methods[envelope.method]!, context }
  }

  /**
   * A keyed request: the first of its key runs (`dispatch`, recording each step); a concurrent duplicate shares
   * that run's answer; a later repeat replays from the journal (`replayOrDispatch`).
   */
  function journaled(
    envelope: Envelope,
    key: string,
    storage: KeyValueStorage,
    handleOptions: HandleOptions | undefined,
  ): Promise<unknown> {
    assertSafeParams(envelope.params, limits)
    // The caller's own identity of the request when it rebuilds its params each time (a fresh blockhash).
    const paramsHash = paramsHashOf(envelope.method, envelope.chainId, envelope.identity ?? envelope.params)
    const first = running.get(key)
    if (first !== undefined) {
      if (first.paramsHash !== paramsHash) throw new RequestKeyReusedError()
      return first.answer
    }
    const answer = replayOrDispatch(envelope, { key, paramsHash, journal: journalOf(storage) }, handleOptions)
    running.set(key, { paramsHash, answer })
    const forget = () => running.delete(key)
    answer.then(forget, forget)
    return answer
  }

  async function replayOrDispatch(
    envelope: Envelope,
    run: JournalRun,
    handleOptions: HandleOptions | undefined,
  ): Promise<unknown> {
    let record: JournalRecord | undefined
    try {
      record = await run.journal.read(run.key)
    } catch (error) {
      // Unknown whether this is a repeat: reads still answer, anything that signs is refused (dispatch).
      run.unreadable = error
    }
    // Only a record that did something binds the key; one merely approved (nothing signed) is run afresh.
    if (record === undefined || record.state === 'approved') return dispatch(envelope, run, handleOptions)
    if (record.paramsHash !== run.paramsHash) throw new RequestKeyReusedError()
    // The caller counts what the request moves (a payment's actions) whether it runs or replays.
    const { namespace, method, context } = methodOf(envelope)
    if (record.effects !== undefined)
      tellEffects(envelope, handleOptions, effectsOf(record.effects), namespace.addressKey)
    if (record.state === 'answered' && record.error !== undefined) throw new ReplayedError(record.error)
    if (record.state === 'answered') return record.result
    const signed = record.signed
    // Signed bytes that nothing can send again (another version's record, a method that lost its `sends`): refused,
    // never signed anew.
    if (method.sends === undefined || signed === undefined)
      throw new JournalUnavailableError('the journal holds signed bytes this wallet cannot send again')
    const sends = method.sends
    let result: unknown
    if (record.state === 'signed' && envelope.expiresAtMs !== undefined && envelope.expiresAtMs <= clock()) {
      // Expired before anything was sent: never sent now (the dapp may have asked again meanwhile). Answered only
      // if the chain has them anyway (a crash between the broadcast and its record).
      result = await sends.known(context, signed).catch(() => undefined)
      if (result === undefined) throw new RequestExpiredError()
    } else {
      result = await untilSent(envelope, record, () => sends.resend(context, signed))
    }
    const answer = toJsonSafe(result) as JsonValue
    await recordAnswer(run, { ...record, state: 'answered', result: answer })
    return answer
  }

  /**
   * The recorded bytes sent again. A chain that cannot be reached is tried again while the dapp still waits (until
   * the request's expiry, and at most two minutes: WalletKit holds the session's next requests meanwhile), backing
   * off to 15 s; a request without an expiry is tried once. The final error names what was signed.
   */
  async function untilSent(envelope: Envelope, record: JournalRecord, resend: () => Promise<unknown>) {
    const deadline = Math.min(envelope.expiresAtMs ?? clock(), clock() + maxResendMs)
    for (let wait = 1000; ; wait = Math.min(wait * 2, 15_000)) {
      try {
        return await resend()
      } catch (error) {
        if (closed || clock() + wait >= deadline) {
          const signed = record.ids ?? []
          throw new ProviderError(
            `the approved request was signed and may already be on chain (${signed.join(', ')}); it could not be sent again: ${reasonOf(error)}`,
            { data: { reason: reasonOf(error), signed }, cause: error },
          )
        }
        reportError(error)
        await sleepUnlessClosed(wait)
      }
    }
  }

  /** Waits `ms`, or less when the wallet closes meanwhile. */
  function sleepUnlessClosed(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        onClose.delete(done)
        resolve()
      }
      onClose.add(done)
    })
  }

  /** The answer is kept for repeats; failing to keep it is reported, the request still answered. */
  async function recordAnswer(run: JournalRun, record: JournalRecord): Promise<void> {
    try {
      await run.journal.write(record)
    } catch (error) {
      reportError(error)
    }
  }

  async function dispatch(
    envelope: Envelope,
    run: JournalRun | undefined,
    handleOptions: HandleOptions | undefined,
  ): Promise<unknown> {
    refuseIfExpired(envelope, clock)
    const { namespace, method, context } = methodOf(envelope)
    // A keyed request's params were checked before they were hashed.
    if (run === undefined) assertSafeParams(envelope.params, limits)
    const params = parseParams(method.params, envelope.params)
    const planned = await method.plan(context, params)
    const { plan } = planned
    // A third party's description of the payment (`HandleInput.expected`) against what the bytes move.
    const review = withExpectation(
      withCallerWarnings(planned.review, envelope.warnings),
      planned.effects,
      envelope.expected,
      envelope.chainId,
      namespace.addressKey,
    )
    tellEffects(envelope, handleOptions, planned.effects, namespace.addressKey)
    // Whatever sends is reviewed (and so approved and recorded): never sent unasked, never without a record.
    if (review === null && method.sends !== undefined)
      throw new Error(`${envelope.method} planned a send without a review`)
    let steps = unrecorded
    let record: JournalRecord | undefined
    if (review !== null) {
      try {
        // Nothing is signed without a record: a journal that cannot be read is refused before the user is asked.
        if (run?.unreadable !== undefined) throw run.unreadable
        const forbidden = forbiddenWarning(review, policy)
        if (forbidden) throw new PolicyRefusedError(forbidden.message, { rule: forbidden.code })
        // Not `{ ...review, namespace, … }`: in Node 20's V8 every property written after a spread takes a slow
        // runtime path (~2 µs each here), which made that one literal most of the router's cost. Same result:
        // the review's fields first, then the router's, which win over any the namespace's review carries.
        const answer = untilExpiry(envelope, clock, () =>
          options.approve(
            Object.assign({}, review, {
              items: boundedItems(review.items),
              namespace: namespace.name,
              chainId: envelope.chainId,
              method: envelope.method,
              origin: envelope.origin,
              originValidation: envelope.originValidation,
              context: envelope.context,
            }),
          ),
        )
        // A synchronous `true` goes on without waiting a turn; anything else is awaited (a promise, a thenable).
        if ((answer === true ? answer : await answer) !== true)
          throw method.rejection?.(context, plan) ?? new UserRejectedError()
        // The user may have taken longer than the request lived.
        refuseIfExpired(envelope, clock)
        if (run !== undefined) {
          const fixed = method.sends?.fixed?.(plan)
          record = {
            v: 1,
            key: run.key,
            method: envelope.method,
            chainId: envelope.chainId,
            paramsHash: run.paramsHash,
            state: 'approved',
            keepUntil: Math.max(
              run.journal.keepUntil(envelope.expiresAtMs),
              clock() + (handleOptions?.keepMs ?? 0),
            ),
            ...(fixed === undefined ? {} : { fixed: toJsonSafe(fixed) as JsonValue }),
            ...(planned.effects === undefined ? {} : { effects: toJsonSafe(planned.effects) as JsonValue }),
          }
          await run.journal.write(record)
          steps = journalStepsOf(run, record)
        }
      } catch (error) {
        try {
          method.abandon?.(context, plan)
        } catch (abandonError) {
          reportError(abandonError)
        }
        throw error
      }
    }
    steps = refusingOnceExpired(envelope, steps)
    if (run === undefined || record === undefined) return method.execute(context, plan, steps)
    let result: unknown
    try {
      result = await method.execute(context, plan, steps)
    } catch (error) {
      const signed = run.written?.signed
      if (signed === undefined || method.sends === undefined) throw error
      // It failed after its bytes were signed (a broadcast that timed out, a provider that answered wrong): the
      // chain says what happened. It has them: sent, answered as sent. It has not: the failure is final, and
      // recorded, so a repeat never sends bytes whose nonce or coins the next request may take. It cannot tell,
      // or has not after a broadcast whose outcome is unknown (a node behind a load balancer may not see them
      // yet while they mine): the signed record stays, and a repeat sends them again.
      const known = await method.sends.known(context, signed).then(
        (value) => ({ value }),
        () => undefined,
      )
      if (known === undefined || (known.value === undefined && isOutcomeUnknown(error))) throw error
      if (known.value === undefined) {
        await recordAnswer(run, {
          ...record,
          ...run.written,
          state: 'answered',
          error: serializeError(error),
        })
        throw error
      }
      reportError(error)
      result = known.value
    }
    const answer = toJsonSafe(result) as JsonValue
    await recordAnswer(run, { ...record, ...run.written, state: 'answered', result: answer })
    return answer
  }

  /**
   * `steps` whose `signed` answers 8000 once the request expired, before anything is recorded or sent: a signer
   * that asks its user on a device (a hardware wallet, MPC) confirms inside `execute`, after the last check.
   */
  function refusingOnceExpired(envelope: Envelope, steps: JournalSteps): JournalSteps {
    if (envelope.expiresAtMs === undefined) return steps
    return {
      ...steps,
      async signed(signed, ids) {
        refuseIfExpired(envelope, clock)
        await steps.signed(signed, ids)
      },
    }
  }

  /** The journal steps `execute` reports, each under its own key, before the method goes on. */
  function journalStepsOf(run: JournalRun, record: JournalRecord): JournalSteps {
    return {
      async signed(signed, ids) {
        const written = { signed: toJsonSafe(signed) as JsonValue, ids: [...ids] }
        await run.journal.write({ ...record, ...written, state: 'signed' })
        // Only once kept: a failure after this point is one after the bytes were signed and recorded.
        run.written = written
      },
      async broadcast(answer) {
        run.written = { ...run.written, broadcast: toJsonSafe(answer) as JsonValue }
        await recordAnswer(run, { ...record, ...run.written, state: 'broadcast' })
      },
    }
  }

  return {
    async handle(input, handleOptions) {
      let id = null as JsonRpcResponse['id']
      let chainId: string | undefined
      try {
        const envelope = readEnvelope(input)
        id = envelope.id
        chainId = envelope.chainId
        if (handleOptions?.expired === true) envelope.expiresAtMs = Number.NEGATIVE_INFINITY
        const result =
          envelope.key === undefined
            ? await dispatch(envelope, undefined, handleOptions)
            : await journaled(envelope, envelope.key, handleOptions?.journal ?? defaultStorage, handleOptions)
        return success(id, toJsonSafe(result))
      } catch (error) {
        // Failures of the wallet's side (unexpected errors, providers) go to the wallet's logs too.
        if (!(error instanceof WalletRpcError) || error.code === InternalError.code) reportError(error)
        const answer = failure(id ?? safeIdOfInput(input), error)
        const describe = chainId === undefined ? undefined : byName.get(chainId.split(':')[0]!)?.describeError
        if (describe === undefined) return answer
        try {
          return { ...answer, error: describe(answer.error) }
        } catch (describeError) {
          reportError(describeError)
          return answer
        }
      }
    },

    async sessionProperties(chainIds) {
      const merged: Record<string, string> = {}
      for (const namespace of byName.values()) {
        const chains = chainIds
          ? namespace.chains.filter((chainId) => chainIds.includes(chainId))
          : namespace.chains
        if (chains.length === 0) continue
        try {
          const properties = (await namespace.sessionProperties?.(chains)) ?? {}
          for (const [key, value] of Object.entries(properties)) {
            if (typeof value === 'string') merged[key] = value
          }
        } catch (error) {
          reportError(error)
        }
      }
      return merged
    },

    on(type, listener) {
      if (type !== 'event') throw new TypeError(`unknown event type ${String(type)}`)
      return hub.on(listener)
    },

    supported() {
      return [...byName.values()].map((namespace) => ({
        name: namespace.name,
        chains: namespace.chains,
        methods: Object.keys(namespace.methods),
        events: namespace.events ?? [],
      }))
    },

    async accounts(chainId) {
      const namespace = namespaceOf(chainId)
      return (await namespace.accounts?.(chainId)) ?? []
    },

    async announceSession(chainIds) {
      for (const chainId of chainIds) {
        try {
          await namespaceOf(chainId).announceSession?.(chainId)
        } catch (error) {
          reportError(error)
        }
      }
    },

    async close() {
      closed = true
      for (const wake of [...onClose]) wake()
      hub.clear()
      for (const namespace of byName.values()) {
        try {
          await namespace.close?.()
        } catch (error) {
          reportError(error)
        }
      }
    },
  }
}

/** How long a resend keeps trying a chain it cannot reach. */
const maxResendMs = 2 * 60_000

/** A failure the journal recorded, answered again as it was. */
class ReplayedError extends WalletRpcError {
  override name = 'ReplayedError'
  constructor(answered: JsonRpcErrorObject) {
    super(answered.code, answered.message, answered.data === undefined ? {} : { data: answered.data })
  }
}

/**
 * `handle`'s `onEffects`, when the caller gave one: the effects, what they transfer of the expected asset and the
 * payment's exposure with them.
 */
function tellEffects(
  envelope: Envelope,
  handleOptions: HandleOptions | undefined,
  effects: readonly AssetEffect[] | undefined,
  addressKey: AddressKey | undefined,
): void {
  const tell = handleOptions?.onEffects
  if (tell === undefined) return
  const expected = envelope.expected
  if (expected === undefined) tell(effects, 0n, undefined)
  else
    tell(effects, transferredBy(expected, effects, addressKey), exposureAfter(expected, effects, addressKey))
}

/** Recorded effects (amounts as decimal strings) as the plan gave them. */
function effectsOf(recorded: JsonValue): AssetEffect[] {
  return (recorded as unknown as (Omit<AssetEffect, 'amount'> & { amount: string })[]).map((effect) => ({
    ...effect,
    amount: BigInt(effect.amount),
  }))
}

/** A failure's reason as a dapp may read it: ours as we wrote it, anything else generic (it may hold a URL). */
function reasonOf(error: unknown): string {
  if (!(error instanceof WalletRpcError)) return 'provider request failed'
  const reason = (error.data as { reason?: unknown } | undefined)?.reason
  return typeof reason === 'string' ? reason : error.shortMessage
}

/** One keyed request's journal, as the router goes through it. */
type JournalRun = {
  key: string
  paramsHash: string
  journal: RequestJournal
  /** Why the journal could not be read, when it could not: anything that signs is then refused. */
  unreadable?: unknown
  /** What `execute` recorded so far (signed bytes, the broadcast's answer), kept in the answered record. */
  written?: Pick<JournalRecord, 'signed' | 'ids' | 'broadcast'>
}

/** The method's review with the caller's warnings (HandleInput `warnings`), each replacing one of its code. */
function withCallerWarnings(
  review: ReviewDraft | null,
  warnings: readonly ReviewWarning[] | undefined,
): ReviewDraft | null {
  if (review === null || warnings === undefined || warnings.length === 0) return review
  const codes = new Set(warnings.map((warning) => warning.code))
  return {
    ...review,
    warnings: [...review.warnings.filter((warning) => !codes.has(warning.code)), ...warnings],
  }
}
