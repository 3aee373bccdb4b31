import * as v from 'valibot'
import { defineMethod, type RequestContext } from '../../core/namespace.js'
import { callsIdSchema } from '../calls/request.js'
import { type CallsStatus, callsStatus } from '../calls/status.js'
import { type StoredCalls, siteOf } from '../calls/store.js'
import { accessOf, type Eip155Env } from '../env.js'
import { UnknownCallsIdError } from '../errors.js'

/**
 * `wallet_getCallsStatus [id]` (EIP-5792): the batch's status code (100/200/500/600), whether it ran
 * atomically and the receipts of its mined transactions, read from the batch's own chain. 5730 for an id
 * the wallet's batch store does not hold, or that another site sent.
 */
export const getCallsStatusParams = v.strictTuple([callsIdSchema])

/**
 * The stored batch, for the site that sent it only (its origin compared as `siteOf` spells it): to any other it is
 * unknown (5730), as ids are guessable.
 */
export async function storedCalls(env: Eip155Env, context: RequestContext, id: string): Promise<StoredCalls> {
  const record = await env.calls.store.get(id, context.origin)
  if (
    record === undefined ||
    siteOf(record.origin) !== siteOf(context.origin) ||
    !env.chains.has(`eip155:${record.chainId}`)
  )
    throw new UnknownCallsIdError(`no batch with id ${id}`)
  return record
}

export const getCallsStatus = (env: Eip155Env) =>
  defineMethod({
    params: getCallsStatusParams,
    async plan(context, [id]) {
      return { review: null, plan: await storedCalls(env, context, id) }
    },
    execute(_context, record: StoredCalls): Promise<CallsStatus> {
      return callsStatus(accessOf(env.chains.get(`eip155:${record.chainId}`)!), record)
    },
  })
