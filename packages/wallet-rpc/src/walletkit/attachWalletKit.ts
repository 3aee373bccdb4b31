import { getSdkError } from '@walletconnect/utils'
import { systemClock } from '../core/clock.js'
import type { WalletEvent } from '../core/events.js'
import type { KeyValueStorage } from '../core/journal.js'
import type { OriginValidation } from '../core/review.js'
import { advertisedCapabilities } from './capabilities.js'
import { addChainToSession, chainChangedEvent, switchedChain } from './chainSwitch.js'
import { lookUpListing } from './explorerListing.js'
import {
  answerProposalRequests,
  planProposalRequests,
  type SessionApprovalAnswer,
} from './proposalRequests/index.js'
import { buildSessionApproval, SessionProposalRefusedError } from './sessionApproval.js'
import { topicsListeningTo } from './sessionEvents.js'
import { answerSessionRequest, isExpired, originRefusal } from './sessionRequest.js'
import type {
  AttachWalletKitOptions,
  SdkErrorReason,
  SessionProposalEvent,
  SessionRequestEvent,
  WalletKitAdapter,
  WalletKitLike,
  WalletRpcLike,
} from './types.js'

// Enough to recognise a redelivered request or proposal; old entries are forgotten first.
const rememberedKeys = 4096
/** Waits before each attempt to send an answer (the relay offline for a moment). */
const respondRetriesMs = [0, 1000, 4000]

/**
 * Plugs a wallet built with `createWalletRpc()` into a `@reown/walletkit` instance.
 *
 * - `session_proposal`: builds the approved namespaces (CAIP-10 accounts for every configured chain the
 *   dapp asked for, methods, events, session properties), asks `options.approveSession`, approves, then
 *   announces the session so bip122 emits `bip122_addressesChanged`. Proposals it cannot serve are
 *   rejected with 5100/5101/5102/5104; declined ones, and dapps the Verify API flags, with 5000.
 * - `session_request`: one approval, one effect, one answer, through `wallet.handle()` with the request journal
 *   in WalletKit's own storage (a request delivered again after a crash or restart replays what it did);
 *   requests never run that expired answer 8000, and requests from a dapp the Verify API flags (scam or invalid
 *   origin) are refused before any review.
 * - wallet events: sent with `emitSessionEvent` to the sessions that approved that event on that chain.
 *
 * SDK failures go to `options.onError`; none escapes into WalletKit's event loop.
 *
 * @example
 * ```ts
 * import { WalletKit } from '@reown/walletkit'
 * import { attachWalletKit } from 'wallet-rpc/walletkit'
 * const wallet = createWalletRpc({ namespaces: [bip122({ ... })], approve: (review) => ui.confirm(review) })
 * const walletKit = await WalletKit.init({ core, metadata })
 * const adapter = attachWalletKit(walletKit, wallet, { approveSession: (proposal) => ui.connect(proposal) })
 * ```
 */
export function attachWalletKit(
  walletKit: WalletKitLike,
  wallet: WalletRpcLike,
  options: AttachWalletKitOptions,
): WalletKitAdapter {
  const clock = options.clock ?? systemClock
  const report = (error: unknown): void => {
    try {
      options.onError?.(error)
    } catch {
      // A broken onError hook must not break an answer.
    }
  }
  const seen = recentKeys(rememberedKeys)
  // Exactly once across restarts: WalletKit's own storage keeps the request journal unless the wallet says otherwise.
  const journal = options.journal === false ? undefined : (options.journal ?? journalStorageOf(walletKit))
  /** Requests being answered now, and requests whose answer WalletKit took (it no longer holds them). */
  const answering = new Set<string>()
  const answered = recentKeys(rememberedKeys)

  async function onSessionRequest(event: SessionRequestEvent): Promise<void> {
    // WalletKit delivers a request it holds again (on every start, and `answerPendingRequests` at attach): the copy
    // that arrives while the first is being answered is dropped; one after a restart is answered again from the
    // request journal (the same result, or the same signed bytes sent again: never twice).
    const key = `${event.topic}:${event.id}`
    if (answering.has(key) || answered.has(key)) return
    answering.add(key)
    try {
      const response = await answerSessionRequest(wallet, event, clock, report, journal)
      const switched = 'result' in response ? switchedChain(event, response.result) : undefined
      if (switched !== undefined)
        await settle(() => addChainToSession(walletKit, wallet, event.topic, switched), report)
      // WalletKit emits a session's requests one at a time and holds the next until this one is answered, and within
      // a process it never delivers a request again: a failed answer is tried again (the journal fixed what it
      // says), then left to WalletKit, which delivers the request again on its next start.
      for (const wait of respondRetriesMs) {
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
        try {
          await walletKit.respondSessionRequest({ topic: event.topic, response })
          answered.add(key)
          break
        } catch (error) {
          report(error)
        }
      }
      if (switched !== undefined)
        await settle(() => walletKit.emitSessionEvent(chainChangedEvent(event.topic, switched)), report)
    } finally {
      answering.delete(key)
    }
  }

  async function onSessionProposal(event: SessionProposalEvent): Promise<void> {
    const { id, params: proposal } = event
    if (!seen.add(`proposal:${id}`)) return
    const reject = (reason: SdkErrorReason) => settle(() => walletKit.rejectSession({ id, reason }), report)
    if (isExpired(proposal?.expiryTimestamp, clock)) {
      report(new Error(`session proposal ${id} had expired when it arrived`))
      return
    }
    const verified = event.verifyContext?.verified
    const refusal = originRefusal(verified)
    if (refusal) return reject(getSdkError('USER_REJECTED', refusalReason(refusal.data)))

    const origin = typeof verified?.origin === 'string' ? verified.origin : undefined
    // Beside the approval's own work; bounded, and never rejects (a failure is "listing unavailable").
    const listingLookup =
      options.explorer === undefined
        ? undefined
        : // Only a VALID attestation confirms the origin: with Verify unreachable (UNKNOWN) the SDK copies
          // the dapp's own declared URL into `origin`, which would make any page "the listed site".
          lookUpListing(
            options.explorer,
            proposal.proposer?.metadata,
            verified?.validation === 'VALID' ? origin : undefined,
          )
    let approval: Awaited<ReturnType<typeof buildSessionApproval>>
    try {
      approval = await buildSessionApproval(wallet, proposal, report)
    } catch (error) {
      if (error instanceof SessionProposalRefusedError) return reject(error.reason)
      report(error)
      return reject(getSdkError('UNSUPPORTED_CHAINS'))
    }

    // Connect-time sign-in (and payment) the dapp put inside the proposal: reviewed here, signed on approval.
    const proposer = {
      origin: origin ?? proposal.proposer?.metadata?.url,
      validation: validationOf(verified?.validation),
    }
    let requests: Awaited<ReturnType<typeof planProposalRequests>>
    try {
      requests = await planProposalRequests(
        wallet,
        proposal,
        approval.namespaces,
        proposer,
        clock(),
        { assetInfo: options.assetInfo, payments: options.payments },
        report,
      )
    } catch (error) {
      // `proposal.requests` that cannot be read (a Proxy, a throwing getter): answered, never left to expire.
      report(error)
      return reject(getSdkError('USER_REJECTED', 'the requests inside the proposal could not be read'))
    }

    const capabilities = await advertisedCapabilities(wallet, approval.namespaces, report)
    const sessionProperties = { ...approval.sessionProperties, ...capabilities.sessionProperties }
    const listed = await listingLookup
    let answer: SessionApprovalAnswer = false
    try {
      answer = await options.approveSession({
        id,
        dapp: proposal.proposer?.metadata,
        origin,
        originValidation: validationOf(verified?.validation),
        namespaces: approval.namespaces,
        sessionProperties,
        proposal,
        ...(listed === undefined ? {} : { listing: listed.listing }),
        ...(requests === undefined ? {} : { requests: requests.review }),
        warnings: listed?.warnings ?? [],
      })
    } catch (error) {
      report(error)
    }
    if (answer !== true && (typeof answer !== 'object' || answer === null)) {
      return reject(getSdkError('USER_REJECTED'))
    }
    if (isExpired(proposal.expiryTimestamp, clock)) {
      report(new Error(`session proposal ${id} expired while the user was deciding`))
      return
    }
    const responses =
      requests === undefined
        ? undefined
        : await answerProposalRequests(wallet, requests, answer, id, proposer, clock, report, journal).catch(
            (error) => {
              report(error)
              return undefined
            },
          )
    if (responses !== undefined && isExpired(proposal.expiryTimestamp, clock)) {
      report(new Error(`session proposal ${id} expired while its requests were being answered`))
      return
    }

    try {
      await walletKit.approveSession({
        id,
        namespaces: approval.namespaces,
        ...(Object.keys(sessionProperties).length > 0 ? { sessionProperties } : {}),
        ...(Object.keys(capabilities.scopedProperties).length > 0
          ? { scopedProperties: capabilities.scopedProperties }
          : {}),
        ...(responses === undefined ? {} : { proposalRequestsResponses: responses }),
      })
    } catch (error) {
      report(error)
      return
    }
    try {
      // The session now exists, so bip122's addressesChanged reaches it through onWalletEvent.
      await wallet.announceSession(approval.chainIds)
    } catch (error) {
      report(error)
    }
  }

  function onWalletEvent(event: WalletEvent): void {
    let topics: string[]
    try {
      topics = topicsListeningTo(walletKit.getActiveSessions(), event)
    } catch (error) {
      report(error)
      return
    }
    for (const topic of topics) {
      void settle(
        () =>
          walletKit.emitSessionEvent({
            topic,
            event: { name: event.name, data: event.data },
            chainId: event.chainId,
          }),
        report,
      )
    }
  }

  // WalletKit's emitter does not await listeners: a rejection here would be unhandled.
  const onProposalEvent = (event: SessionProposalEvent) => onSessionProposal(event).catch(report)
  const onRequestEvent = (event: SessionRequestEvent) => onSessionRequest(event).catch(report)
  walletKit.on('session_proposal', onProposalEvent)
  walletKit.on('session_request', onRequestEvent)
  const stopWalletEvents = wallet.on('event', onWalletEvent)

  if (options.answerPendingRequests !== false) {
    let pending: ReturnType<WalletKitLike['getPendingSessionRequests']> = []
    try {
      pending = walletKit.getPendingSessionRequests()
    } catch (error) {
      report(error)
    }
    for (const request of pending) void onRequestEvent(request)
  }

  let attached = true
  return {
    detach() {
      if (!attached) return
      attached = false
      for (const remove of [
        () => walletKit.off('session_proposal', onProposalEvent),
        () => walletKit.off('session_request', onRequestEvent),
        stopWalletEvents,
      ]) {
        try {
          remove()
        } catch (error) {
          report(error)
        }
      }
    },
  }
}

/** Runs an SDK call, sync-throwing or rejecting, and reports its failure instead of letting it escape. */
async function settle(call: () => unknown, report: (error: unknown) => void): Promise<void> {
  try {
    await call()
  } catch (error) {
    report(error)
  }
}

function validationOf(value: unknown): OriginValidation | undefined {
  return value === 'VALID' || value === 'INVALID' || value === 'UNKNOWN' ? value : undefined
}

function refusalReason(data: unknown): string {
  const reason = (data as { reason?: unknown } | undefined)?.reason
  return typeof reason === 'string' ? reason : 'Refused by wallet policy.'
}

/** WalletKit's `core.storage` (IKeyValueStorage), when the instance has one. */
function journalStorageOf(walletKit: WalletKitLike): KeyValueStorage | undefined {
  const storage = (walletKit as { core?: { storage?: unknown } }).core?.storage
  return typeof storage === 'object' && storage !== null && 'setItem' in storage
    ? (storage as KeyValueStorage)
    : undefined
}

/** A bounded set: `add` is false for a key already present. */
function recentKeys(limit: number) {
  const keys = new Set<string>()
  return {
    has: (key: string): boolean => keys.has(key),
    add(key: string): boolean {
      if (keys.has(key)) return false
      keys.add(key)
      if (keys.size > limit) keys.delete(keys.values().next().value as string)
      return true
    },
  }
}
