import * as v from 'valibot'
import type { Address, Hex, TypedDataDefinition } from 'viem'
import { defineMethod } from '../../core/namespace.js'
import { item } from '../../core/review.js'
import { timeSlicer } from '../../core/yielding.js'
import { signTypedDataDigest } from '../account.js'
import { typedDataEffects } from '../effects.js'
import { delegationWarnings } from '../eip7702/delegation.js'
import { chainOf, type Eip155Env, ownedAddress, signerOf } from '../env.js'
import { addressSchema } from '../schemas.js'
import { checkTypedData, permitWarnings, typedDataItems } from '../typedData.js'
import { typedDataRiskWarnings } from '../typedDataRisks.js'

/**
 * `eth_signTypedData_v4 [address, typedData]`, where typedData is an object or its JSON string.
 * `eth_signTypedData` and `eth_signTypedData_v3` are served by the same method with the same semantics
 * (EIP-712 as finalized = eth-sig-util V4; V3 differs only on arrays and missing fields, which strict
 * validation refuses anyway). MetaMask's legacy V1 array form is refused with -32602.
 */
export const signTypedDataParams = v.strictTuple([
  v.pipe(
    v.unknown(),
    v.check(
      (value) => !Array.isArray(value),
      'legacy V1 typed data (an array) is not supported; send [address, typedData]',
    ),
    v.string('must be an address string'),
    addressSchema,
  ),
  v.union([v.string(), v.record(v.string(), v.unknown())], 'typed data must be an object or its JSON string'),
])

type Plan = { address: Address; definition: TypedDataDefinition; digest: Uint8Array }

export const signTypedData = (env: Eip155Env) =>
  defineMethod({
    params: signTypedDataParams,
    async plan(context, [requested, input]) {
      const address = await ownedAddress(env, requested)
      const chain = chainOf(env, context)
      const { definition, digest, digestBytes } = await checkTypedData(input, '1', chain.chainId)
      const [risks, delegation] = await Promise.all([
        typedDataRiskWarnings(definition, address, chain.access),
        delegationWarnings(chain, address),
      ])
      // Reviewing 20,000 values takes Hermes' interpreter ~20 ms: a turn after it, if so, before the router
      // bounds the review and signs.
      const pause = timeSlicer()
      const hidden: string[] = []
      const items = [...typedDataItems(definition, (label) => hidden.push(label)), item('Digest', digest)]
      await pause()
      return {
        review: {
          account: address,
          title: 'Sign typed data',
          items,
          warnings: [
            ...permitWarnings(definition),
            ...risks,
            ...delegation,
            ...(hidden.length === 0
              ? []
              : [
                  {
                    code: 'typed_data.hidden_characters',
                    severity: 'caution' as const,
                    message: `The message holds characters that hide or reorder text (in ${[...new Set(hidden)].slice(0, 5).join(', ')}); they are shown written out, as \\u{…}.`,
                  },
                ]),
          ],
        },
        plan: { address, definition, digest: digestBytes } satisfies Plan,
        effects: typedDataEffects(context.chainId, definition, address),
      }
    },
    async execute(_context, plan: Plan): Promise<Hex> {
      const signer = await signerOf(env, plan.address)
      return signTypedDataDigest(signer, plan.definition, plan.digest)
    },
  })
