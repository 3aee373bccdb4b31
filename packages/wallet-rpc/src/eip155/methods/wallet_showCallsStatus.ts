import * as v from 'valibot'
import { defineMethod } from '../../core/namespace.js'
import { callsIdSchema } from '../calls/request.js'
import type { StoredCalls } from '../calls/store.js'
import type { Eip155Env } from '../env.js'
import { storedCalls } from './wallet_getCallsStatus.js'

/**
 * `wallet_showCallsStatus [id]` (EIP-5792): the wallet shows its own view of the batch; the library hands
 * the stored batch to the wallet's `showCallsStatus` callback and answers null. 5730 for an unknown id or
 * another site's batch.
 * Offered only when the wallet gives the callback.
 */
export const showCallsStatusParams = v.strictTuple([callsIdSchema])

export const showCallsStatus = (env: Eip155Env, show: (batch: StoredCalls) => void | Promise<void>) =>
  defineMethod({
    params: showCallsStatusParams,
    async plan(context, [id]) {
      return { review: null, plan: await storedCalls(env, context, id) }
    },
    async execute(_context, record: StoredCalls): Promise<null> {
      await show(record)
      return null
    },
  })
