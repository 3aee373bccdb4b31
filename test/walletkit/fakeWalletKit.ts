import { EventEmitter } from 'node:events'
import type { IWalletKit, WalletKitTypes } from '@reown/walletkit'
import type { PendingRequestTypes, SessionTypes } from '@walletconnect/types'
import type { WalletKitLike } from '../../src/walletkit/index.js'

type Params<M extends keyof IWalletKit> = IWalletKit[M] extends (params: infer P) => unknown ? P : never

/** One recorded SDK call, in order. */
export type SdkCall =
  | { method: 'approveSession'; params: Params<'approveSession'> }
  | { method: 'rejectSession'; params: Params<'rejectSession'> }
  | { method: 'respondSessionRequest'; params: Params<'respondSessionRequest'> }
  | { method: 'emitSessionEvent'; params: Params<'emitSessionEvent'> }

type FailingMethod = SdkCall['method'] | 'getActiveSessions' | 'getPendingSessionRequests'

/**
 * A WalletKit stand-in with the SDK's own signatures (no relay is reachable here). It records every call
 * the adapter makes, keeps the sessions `approveSession` creates, validates `emitSessionEvent` the way the
 * sign client does, and can be told to fail any method, as the real SDK does when the relay is down or a
 * topic is gone. `deliver` plays an event and waits for the adapter's listeners to finish.
 */
export class FakeWalletKit implements WalletKitLike {
  readonly calls: SdkCall[] = []
  sessions: Record<string, SessionTypes.Struct> = {}
  pending: PendingRequestTypes.Struct[] = []
  readonly failing = new Map<FailingMethod, Error>()
  private readonly listeners = new Map<string, Set<(args: never) => unknown>>()
  private readonly emitter = new EventEmitter()
  private sessionCount = 0

  on: WalletKitLike['on'] = (event, listener) => {
    const set = this.listeners.get(event) ?? new Set()
    set.add(listener)
    this.listeners.set(event, set)
    return this.emitter
  }

  off: WalletKitLike['off'] = (event, listener) => {
    this.listeners.get(event)?.delete(listener)
    return this.emitter
  }

  listenerCount(event?: WalletKitTypes.Event): number {
    if (event) return this.listeners.get(event)?.size ?? 0
    return [...this.listeners.values()].reduce((sum, set) => sum + set.size, 0)
  }

  /** Emits `event` to the adapter and waits until every listener's work has settled. */
  async deliver<E extends WalletKitTypes.Event>(
    event: E,
    args: WalletKitTypes.EventArguments[E],
  ): Promise<void> {
    const listeners = [...(this.listeners.get(event) ?? [])] as Array<
      (args: WalletKitTypes.EventArguments[E]) => unknown
    >
    await Promise.all(listeners.map((listener) => listener(args)))
  }

  approveSession: WalletKitLike['approveSession'] = async (params) => {
    this.calls.push({ method: 'approveSession', params })
    this.fail('approveSession')
    this.sessionCount += 1
    const session = sessionStruct(
      `session-topic-${this.sessionCount}`,
      params.namespaces,
      params.sessionProperties,
    )
    this.sessions[session.topic] = session
    return session
  }

  rejectSession: WalletKitLike['rejectSession'] = async (params) => {
    this.calls.push({ method: 'rejectSession', params })
    this.fail('rejectSession')
  }

  respondSessionRequest: WalletKitLike['respondSessionRequest'] = async (params) => {
    this.calls.push({ method: 'respondSessionRequest', params })
    this.fail('respondSessionRequest')
  }

  emitSessionEvent: WalletKitLike['emitSessionEvent'] = async (params) => {
    this.calls.push({ method: 'emitSessionEvent', params })
    this.fail('emitSessionEvent')
    // The sign client's isValidEmit: the chain must carry an approved account and the event be approved.
    const session = this.sessions[params.topic]
    if (!session) throw new Error(`No matching key. session topic doesn't exist: ${params.topic}`)
    const approved = Object.values(session.namespaces).some(
      (namespace) =>
        namespace.accounts.some((account) => account.startsWith(`${params.chainId}:`)) &&
        namespace.events.includes(params.event.name),
    )
    if (!approved) throw new Error(`Missing or invalid. emit() event: ${JSON.stringify(params.event)}`)
  }

  getActiveSessions: WalletKitLike['getActiveSessions'] = () => {
    this.fail('getActiveSessions')
    return this.sessions
  }

  getPendingSessionRequests: WalletKitLike['getPendingSessionRequests'] = () => {
    this.fail('getPendingSessionRequests')
    return this.pending
  }

  callsTo<M extends SdkCall['method']>(method: M): Array<Params<M>> {
    return this.calls.filter((call) => call.method === method).map((call) => call.params as Params<M>)
  }

  private fail(method: FailingMethod): void {
    const error = this.failing.get(method)
    if (error) throw error
  }
}

/** A session as the sign client stores it after `approveSession`. */
export function sessionStruct(
  topic: string,
  namespaces: SessionTypes.Namespaces,
  sessionProperties?: Record<string, string>,
): SessionTypes.Struct {
  return {
    topic,
    pairingTopic: `pairing-${topic}`,
    relay: { protocol: 'irn' },
    expiry: 1_700_604_800,
    acknowledged: true,
    controller: 'c'.repeat(64),
    namespaces,
    requiredNamespaces: {},
    optionalNamespaces: {},
    ...(sessionProperties ? { sessionProperties } : {}),
    self: {
      publicKey: 'c'.repeat(64),
      metadata: { name: 'Test Wallet', description: '', url: 'https://wallet.example', icons: [] },
    },
    peer: {
      publicKey: 'd'.repeat(64),
      metadata: { name: 'Example dapp', description: '', url: 'https://app.example.com', icons: [] },
    },
  }
}
