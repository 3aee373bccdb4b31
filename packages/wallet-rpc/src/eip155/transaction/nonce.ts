import { isOutcomeUnknown } from '../../core/errors.js'
import type { RequestContext } from '../../core/namespace.js'
import { accessOf, chainOf, type Eip155Env, nonceKey } from '../env.js'
import type { TransactionDraft } from './request.js'

/**
 * Runs `use` (sign, and maybe broadcast) with the draft's nonce. A nonce the dapp left out is reserved only
 * now, after approval, so a rejected request leaves no gap; for a send it counts as used once `use` returns
 * and is given back when `use` throws (not after a broadcast whose outcome is unknown). A sign-only transaction (`broadcasts: false`) holds no nonce at all
 * (nonces.ts says why).
 */
export async function withNonce<Result>(
  env: Eip155Env,
  context: RequestContext,
  draft: TransactionDraft,
  options: { broadcasts: boolean },
  use: (nonce: number) => Promise<Result>,
): Promise<Result> {
  if (draft.nonce !== undefined) return use(draft.nonce)
  const access = accessOf(chainOf(env, context))
  const reservation = await env.nonces.reserve(
    nonceKey(draft.chainId, draft.from),
    () => access.pendingNonce(draft.from),
    { broadcast: options.broadcasts, readMined: () => access.minedNonce(draft.from) },
  )
  try {
    const result = await use(reservation.nonce)
    reservation.settle(true)
    return result
  } catch (error) {
    // A broadcast whose outcome is unknown may be in the mempool, and the journal keeps its bytes to send
    // again: its nonce stays used, so the next request cannot replace it.
    reservation.settle(isOutcomeUnknown(error))
    throw error
  }
}
