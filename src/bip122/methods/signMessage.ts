import * as v from 'valibot'
import { MethodNotSupportedError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import type { Bip122Wallet } from '../types.js'

export const signMessageParams = v.object({
  account: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  message: v.string(),
  address: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  protocol: v.optional(v.picklist(['ecdsa', 'bip322'])),
})

// Placeholder wiring until message signing lands (same session); see issue 4.
export const signMessage = (_wallet: Bip122Wallet) =>
  defineMethod({
    params: signMessageParams,
    plan: () => {
      throw new MethodNotSupportedError('signMessage')
    },
    execute: () => undefined,
  })
