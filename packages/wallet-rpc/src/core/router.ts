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
  MethodNotFoundError,
  PolicyRefusedError,
  UserRejectedError,
  WalletRpcError,
} from './errors.js'
import { createEventHub, type WalletEventListener } from './events.js'
import { refuseIfExpired, untilExpiry } from './expiry.js'
import { failure, type JsonRpcResponse, success, toJsonSafe } from './jsonrpc.js'
import type { Namespace, RequestContext } from './namespace.js'
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

/**
 * The router behind `createWalletRpc`: the namespaces by name, and per request the fixed order envelope →
 * expiry → namespace and method → params → plan (review) → policy → approve → execute, every failure an answer.
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
    const planned = await method.plan(context, params)
    const { plan } = planned
    const review = withCallerWarnings(planned.review, envelope.warnings)
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
        if ((answer === true ? answer : await answer) !== true)
          throw method.rejection?.(context, plan) ?? new UserRejectedError()
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
