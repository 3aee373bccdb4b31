import type { RequestContext } from '../../core/namespace.js'
import { accessOf, chainOf, type Eip155Env, nonceKey } from '../env.js'
import type { TransactionDraft } from './request.js'

/**
 * Runs `use` (sign, and maybe broadcast) with the draft's nonce. A nonce the dapp left out is reserved only
 * now, after approval, so a rejected request leaves no gap; it counts as used once `use` returns and is
 * given back when `use` throws.
 */
export async function withNonce<Result>(
  env: Eip155Env,
  context: RequestContext,
  draft: TransactionDraft,
  use: (nonce: number) => Promise<Result>,
): Promise<Result> {
  if (draft.nonce !== undefined) return use(draft.nonce)
  const access = accessOf(chainOf(env, context))
  const reservation = await env.nonces.reserve(nonceKey(draft.chainId, draft.from), () =>
    access.pendingNonce(draft.from),
  )
  try {
    const result = await use(reservation.nonce)
    reservation.settle(true)
    return result
  } catch (error) {
    reservation.settle(false)
    throw error
  }
}
