import type { SessionTypes } from '@walletconnect/types'
import { getNamespacesEventsForChainId } from '@walletconnect/utils'
import type { WalletEvent } from '../core/events.js'

/**
 * Topics of the sessions that approved `event.name` on `event.chainId`, by the SDK's own rule (the chain
 * of an approved account, the event in that namespace's events): `emitSessionEvent` throws for any other.
 */
export function topicsListeningTo(
  sessions: Readonly<Record<string, SessionTypes.Struct>>,
  event: WalletEvent,
): string[] {
  return Object.values(sessions)
    .filter((session) =>
      getNamespacesEventsForChainId(session.namespaces ?? {}, event.chainId).includes(event.name),
    )
    .map((session) => session.topic)
}
