import * as v from 'valibot'
import type { Address, Hex } from 'viem'
import { defineMethod } from '../../core/namespace.js'
import { delegationWarnings } from '../eip7702/delegation.js'
import { chainOf, type Eip155Env, ownedAddress, signerOf } from '../env.js'
import { messageReview, type PersonalMessage, personalMessage } from '../message.js'
import { addressSchema } from '../schemas.js'
import { isAddress } from '../viemUtils.js'

/**
 * `personal_sign [message, address]` (EIP-191 version 0x45). Some dapps send `[address, message]`; that is read
 * as such only when it cannot mean anything else: the first parameter is an address and the second does not
 * even look like one (40 hex digits). Then the normal order would be invalid anyway, so nothing that could
 * be signed changes. A Sign-In with Ethereum message is checked against the request (see `messageReview`).
 */
export const personalSignParams = v.pipe(
  v.unknown(),
  v.transform((input) => (isReversed(input) ? [input[1], input[0]] : input)),
  v.strictTuple([v.string('message must be a string'), addressSchema]),
)

function isReversed(input: unknown): input is [string, string] {
  return (
    Array.isArray(input) &&
    input.length === 2 &&
    typeof input[0] === 'string' &&
    typeof input[1] === 'string' &&
    isAddress(input[0], { strict: true }) &&
    !isAddress(input[1], { strict: false })
  )
}

type Plan = { address: Address; message: PersonalMessage }

export const personalSign = (env: Eip155Env) =>
  defineMethod({
    params: personalSignParams,
    async plan(context, [text, requested]) {
      const address = await ownedAddress(env, requested)
      const message = personalMessage(text)
      const review = messageReview(context, address, message, 'Sign message')
      review.warnings.push(...(await delegationWarnings(chainOf(env, context), address)))
      return { review, plan: { address, message } satisfies Plan }
    },
    async execute(_context, plan: Plan): Promise<Hex> {
      const signer = await signerOf(env, plan.address)
      return signer.signMessage({ message: plan.message.signable })
    },
  })
