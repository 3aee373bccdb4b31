import * as v from 'valibot'
import type { Address, Hex } from 'viem'
import { MethodNotSupportedError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { item } from '../../core/review.js'
import { delegationWarnings } from '../eip7702/delegation.js'
import { chainOf, type Eip155Env, ownedAddress, signerOf } from '../env.js'
import { messageReview, personalMessage } from '../message.js'
import { addressSchema, dataSchema } from '../schemas.js'

/** The `danger` warning an opted-in `eth_sign` carries; the wallet's `policy.allowDangerous` must list it. */
export const ethSignWarningCode = 'eth_sign.blind'

/**
 * `eth_sign [address, data]` as the execution-apis spec defines it today: the EIP-191-prefixed signature
 * of `data` (the same as `personal_sign` with the params swapped), never the raw-hash signing legacy
 * MetaMask did. `data` must be hex.
 */
export const ethSignParams = v.strictTuple([addressSchema, dataSchema])

type Plan = { address: Address; data: Hex }

/** Enabled: plans a review with a `danger` warning that the wallet's policy must allow. */
export const ethSign = (env: Eip155Env) =>
  defineMethod({
    params: ethSignParams,
    async plan(context, [requested, data]) {
      const address = await ownedAddress(env, requested)
      const message = personalMessage(data)
      // The bytes are signed EIP-191-prefixed, so a Sign-In with Ethereum message gets the same checks.
      const review = messageReview(context, address, message, 'Sign data (eth_sign)')
      return {
        review: {
          ...review,
          items: [...review.items, item('Signature scheme', 'EIP-191 prefixed (as personal_sign)')],
          warnings: [
            {
              code: ethSignWarningCode,
              severity: 'danger',
              message:
                'eth_sign is the method phishing kits use; sign only if you trust this site and understand the data.',
            },
            ...review.warnings,
            ...(await delegationWarnings(chainOf(env, context), address)),
          ],
        },
        plan: { address, data } satisfies Plan,
      }
    },
    async execute(_context, plan: Plan): Promise<Hex> {
      const signer = await signerOf(env, plan.address)
      return signer.signMessage({ message: { raw: plan.data } })
    },
  })

/**
 * Disabled (the default): every call answers 5101 "Unsupported method." with the reason in `data`,
 * before its params are even read.
 */
export const ethSignDisabled = defineMethod({
  params: v.unknown(),
  plan(): never {
    throw new MethodNotSupportedError('eth_sign', {
      data: {
        method: 'eth_sign',
        reason:
          'eth_sign is disabled by this wallet (blind signing); use personal_sign or eth_signTypedData_v4',
      },
    })
  },
  execute(): never {
    throw new MethodNotSupportedError('eth_sign')
  },
})
