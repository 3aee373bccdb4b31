import { type Clock, systemClock } from './core/clock.js'
import {
  ChainNotConfiguredError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  MethodNotFoundError,
  PolicyRefusedError,
  RequestExpiredError,
  UserRejectedError,
  WalletRpcError,
} from './core/errors.js'
import { createEventHub, type WalletEventListener } from './core/events.js'
import { failure, idOf, type JsonRpcResponse, success, toJsonSafe } from './core/jsonrpc.js'
import type { Namespace, RequestContext } from './core/namespace.js'
import {
  type ApprovalPolicy,
  type Approve,
  boundedItems,
  forbiddenWarning,
  type OriginValidation,
} from './core/review.js'
import { assertSafeParams, defaultSafetyLimits, parseParams, type SafetyLimits } from './core/schema.js'
import { type ActiveBackends, activeBackends, type CryptoBackends, useCrypto } from './crypto/backends.js'

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
}

/** The plain shape. */
export type HandleInput = {
  chainId: string
  request: { id: string | number; jsonrpc?: '2.0'; method: string; params?: unknown }
  origin?: string
  /** The transport's verdict on `origin` (WalletConnect Verify), when the caller has one. */
  originValidation?: OriginValidation
  /** Extra lines for the review, e.g. which payment an action belongs to. */
  context?: Record<string, string>
  /** When the dapp stops waiting (Unix seconds, as WalletKit's `expiryTimestamp`): 8000 after that. */
  expiryTimestamp?: number
}

/** WalletKit's `session_request` event. */
export type SessionRequestEvent = {
  id: number
  topic: string
  params: { request: { method: string; params?: unknown; expiryTimestamp?: number }; chainId: string }
  verifyContext?: { verified?: { origin?: string; validation?: OriginValidation; isScam?: boolean } }
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
  handle(input: HandleInput | SessionRequestEvent | unknown): Promise<JsonRpcResponse>
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

const chainIdPattern = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32})$/

type Envelope = {
  id: string | number
  chainId: string
  method: string
  params: unknown
  origin: string | undefined
  originValidation: OriginValidation | undefined
  expiresAtMs: number | undefined
  context: Record<string, string> | undefined
}

export function createWalletRpc(options: CreateWalletRpcOptions): WalletRpc {
  if (options.crypto !== undefined) useCrypto(options.crypto)
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

  async function dispatch(envelope: Envelope): Promise<unknown> {
    refuseIfExpired(envelope, clock)
    const namespace = namespaceOf(envelope.chainId)
    if (!Object.hasOwn(namespace.methods, envelope.method)) throw new MethodNotFoundError(envelope.method)
    const method = namespace.methods[envelope.method]!
    assertSafeParams(envelope.params, limits)
    const params = parseParams(method.params, envelope.params)
    const context: RequestContext = {
      id: envelope.id,
      chainId: envelope.chainId,
      reference: envelope.chainId.slice(namespace.name.length + 1),
      method: envelope.method,
      origin: envelope.origin,
      originValidation: envelope.originValidation,
      clock,
    }
    const { review, plan } = await method.plan(context, params)
    if (review !== null) {
      try {
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
        if ((answer === true ? answer : await answer) !== true) throw new UserRejectedError()
        // The user may have taken longer than the request lived.
        refuseIfExpired(envelope, clock)
      } catch (error) {
        try {
          method.abandon?.(context, plan)
        } catch (abandonError) {
          reportError(abandonError)
        }
        throw error
      }
    }
    return method.execute(context, plan)
  }

  return {
    backends: activeBackends,

    async handle(input) {
      let id = null as JsonRpcResponse['id']
      let chainId: string | undefined
      try {
        const envelope = readEnvelope(input)
        id = envelope.id
        chainId = envelope.chainId
        return success(id, toJsonSafe(await dispatch(envelope)))
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

/** setTimeout's largest delay; a later expiry is as good as none for a pending approval. */
const maxTimerMs = 2 ** 31 - 1

/**
 * The approval, or 8000 once the request's expiry (WalletKit's `expiryTimestamp`) passes while the wallet is
 * still asking: a dapp stops waiting then, so the wallet must too. An approval that arrives later is ignored,
 * and the check after approval refuses one that raced the timer.
 */
function untilExpiry<T>(envelope: Envelope, clock: Clock, ask: () => T | Promise<T>): T | Promise<T> {
  const remaining =
    envelope.expiresAtMs === undefined ? Number.POSITIVE_INFINITY : envelope.expiresAtMs - clock()
  if (remaining > maxTimerMs) return ask()
  return raceExpiry(remaining, ask)
}

async function raceExpiry<T>(remaining: number, ask: () => T | Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new RequestExpiredError()), Math.max(0, remaining))
  })
  try {
    return await Promise.race([Promise.resolve().then(ask), expired])
  } finally {
    clearTimeout(timer)
  }
}

function refuseIfExpired(envelope: Envelope, clock: Clock): void {
  if (envelope.expiresAtMs !== undefined && envelope.expiresAtMs <= clock()) throw new RequestExpiredError()
}

/**
 * The envelope, or -32600 when the input cannot even be read: a Proxy whose traps throw or a getter that
 * throws is malformed input, not a wallet failure.
 */
function readEnvelope(input: unknown): Envelope {
  try {
    return toEnvelope(input)
  } catch (error) {
    if (error instanceof WalletRpcError) throw error
    throw new InvalidRequestError('the request could not be read', { cause: error })
  }
}

/** The request's id for an error answer, or null when even reading it fails. */
function safeIdOfInput(input: unknown): JsonRpcResponse['id'] {
  try {
    return idOfInput(input)
  } catch {
    return null
  }
}

function idOfInput(input: unknown): JsonRpcResponse['id'] {
  if (typeof input !== 'object' || input === null) return null
  const record = input as Record<string, unknown>
  return 'topic' in record ? idOf(record) : idOf(record.request)
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Accepts the plain `{chainId, request, origin?}` shape and WalletKit's `session_request` event. */
function toEnvelope(input: unknown): Envelope {
  if (!isRecord(input)) throw new InvalidRequestError('expected an object')
  if ('topic' in input) return fromSessionRequest(input)
  const request = input.request
  if (!isRecord(request)) throw new InvalidRequestError('request must be an object')
  const id = idOf(request)
  if (id === null) throw new InvalidRequestError('request.id must be a string or a finite number')
  if (request.jsonrpc !== undefined && request.jsonrpc !== '2.0') {
    throw new InvalidRequestError('request.jsonrpc must be "2.0"')
  }
  if (input.origin !== undefined && typeof input.origin !== 'string') {
    throw new InvalidRequestError('origin must be a string')
  }
  return {
    id,
    chainId: chainIdOf(input.chainId),
    method: methodOf(request.method),
    params: request.params,
    origin: input.origin,
    originValidation: validationOf(input.originValidation),
    expiresAtMs: expiryOf(input.expiryTimestamp),
    context: contextOf(input.context),
  }
}

function fromSessionRequest(input: Record<string, unknown>): Envelope {
  const id = idOf(input)
  if (id === null) throw new InvalidRequestError('id must be a string or a finite number')
  const params = input.params
  if (!isRecord(params) || !isRecord(params.request))
    throw new InvalidRequestError('params.request is missing')
  const verified = isRecord(input.verifyContext) ? input.verifyContext.verified : undefined
  const origin = isRecord(verified) && typeof verified.origin === 'string' ? verified.origin : undefined
  const validation = isRecord(verified) ? verified.validation : undefined
  const expiry = params.request.expiryTimestamp
  return {
    id,
    chainId: chainIdOf(params.chainId),
    method: methodOf(params.request.method),
    params: params.request.params,
    origin,
    originValidation: validationOf(validation),
    expiresAtMs: expiryOf(expiry),
    context: undefined,
  }
}

function validationOf(value: unknown): OriginValidation | undefined {
  return value === 'VALID' || value === 'INVALID' || value === 'UNKNOWN' ? value : undefined
}

/** WalletConnect expiries are Unix seconds. */
function expiryOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value * 1000 : undefined
}

function chainIdOf(value: unknown): string {
  if (typeof value !== 'string' || !chainIdPattern.test(value)) {
    throw new InvalidRequestError('chainId must be a CAIP-2 chain id')
  }
  return value
}

function methodOf(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 128) {
    throw new InvalidRequestError('method must be a non-empty string')
  }
  return value
}

function contextOf(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined
  if (!isRecord(value) || !Object.values(value).every((entry) => typeof entry === 'string')) {
    throw new InvalidParamsError('context must map strings to strings', { path: 'context' })
  }
  return value as Record<string, string>
}
