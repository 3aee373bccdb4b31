import * as v from 'valibot'
import type { Address, Hex } from 'viem'
import { defineMethod } from '../../core/namespace.js'
import { type Eip155Env, ownedAddress, signerOf } from '../env.js'
import { messageReview, type PersonalMessage, personalMessage } from '../message.js'
import { addressSchema } from '../schemas.js'

/**
 * `personal_sign [message, address]` (EIP-191 version 0x45). Strict order: no MetaMask-style swap guessing.
 * A Sign-In with Ethereum message is checked against the request (see `messageReview`).
 */
export const personalSignParams = v.strictTuple([v.string('message must be a string'), addressSchema])

type Plan = { address: Address; message: PersonalMessage }

export const personalSign = (env: Eip155Env) =>
  defineMethod({
    params: personalSignParams,
    async plan(context, [text, requested]) {
      const address = await ownedAddress(env, requested)
      const message = personalMessage(text)
      return {
        review: messageReview(context, address, message, 'Sign message'),
        plan: { address, message } satisfies Plan,
      }
    },
    async execute(_context, plan: Plan): Promise<Hex> {
      const signer = await signerOf(env, plan.address)
      return signer.signMessage({ message: plan.message.signable })
    },
  })
