import { EventEmitter } from 'node:events'
import type { IWalletKit, WalletKitTypes } from '@reown/walletkit'
import { formatJsonRpcError, formatJsonRpcResult } from '@walletconnect/jsonrpc-utils'
import type { PendingRequestTypes, ProposalTypes, SessionTypes } from '@walletconnect/types'
import {
  isConformingNamespaces,
  isValidErrorReason,
  isValidNamespaces,
  isValidNamespacesChainId,
  isValidNamespacesEvent,
  isValidResponse,
} from '@walletconnect/utils'
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
 * the adapter makes, checks each with the validators the sign client's engine runs before it sends
 * anything (`isValidNamespaces` + `isConformingNamespaces` for approve, `isValidErrorReason` for reject,
 * `isValidResponse` for respond, `isValidNamespacesChainId` + `isValidNamespacesEvent` for emit, all from
 * @walletconnect/utils), keeps the sessions `approveSession` creates, records what the dapp would receive
 * (the engine's `formatJsonRpcError`/`formatJsonRpcResult`), and can be told to fail any method, as the
 * real SDK does when the relay is down or a topic is gone. `deliver` plays an event and waits for the
 * adapter's listeners to finish.
 */
export class FakeWalletKit implements WalletKitLike {
  readonly calls: SdkCall[] = []
  sessions: Record<string, SessionTypes.Struct> = {}
  pending: PendingRequestTypes.Struct[] = []
  readonly failing = new Map<FailingMethod, Error>()
  /** What the dapp's side of the relay would receive for each answered request. */
  readonly dappReceived: unknown[] = []
  private readonly proposals = new Map<number, ProposalTypes.Struct>()
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
    if (event === 'session_proposal') {
      const proposal = args as WalletKitTypes.SessionProposal | null
      if (proposal) this.proposals.set(proposal.id, proposal.params)
    }
    await Promise.all(listeners.map((listener) => listener(args)))
  }

  approveSession: WalletKitLike['approveSession'] = async (params) => {
    this.calls.push({ method: 'approveSession', params })
    this.fail('approveSession')
    const proposal = this.takeProposal(params.id)
    const invalid =
      isValidNamespaces(params.namespaces, 'approve()') ??
      isConformingNamespaces(proposal.requiredNamespaces, params.namespaces, 'approve()')
    if (invalid) throw new Error(invalid.message)
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
    this.takeProposal(params.id)
    if (!isValidErrorReason(params.reason)) throw new Error('Missing or invalid. reject() reason')
  }

  respondSessionRequest: WalletKitLike['respondSessionRequest'] = async (params) => {
    this.calls.push({ method: 'respondSessionRequest', params })
    this.fail('respondSessionRequest')
    const { response } = params
    if (!isValidResponse(response)) throw new Error('Missing or invalid. respond() response')
    this.dappReceived.push(
      'error' in response
        ? formatJsonRpcError(response.id, { ...response.error })
        : formatJsonRpcResult(response.id, response.result),
    )
  }

  emitSessionEvent: WalletKitLike['emitSessionEvent'] = async (params) => {
    this.calls.push({ method: 'emitSessionEvent', params })
    this.fail('emitSessionEvent')
    // The sign client's isValidEmit.
    const session = this.sessions[params.topic]
    if (!session) throw new Error(`No matching key. session topic doesn't exist: ${params.topic}`)
    if (
      !isValidNamespacesChainId(session.namespaces, params.chainId) ||
      !isValidNamespacesEvent(session.namespaces, params.chainId, params.event.name)
    ) {
      throw new Error(`Missing or invalid. emit() event: ${JSON.stringify(params.event)}`)
    }
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

  /** A proposal is answered once; the SDK forgets it after approve or reject. */
  private takeProposal(id: number): ProposalTypes.Struct {
    const proposal = this.proposals.get(id)
    if (!proposal) throw new Error(`No matching key. proposal id doesn't exist: ${id}`)
    this.proposals.delete(id)
    return proposal
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
