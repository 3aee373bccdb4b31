import * as v from 'valibot'
import { defineMethod } from '../../core/namespace.js'
import { atomicStatus, readDelegation } from '../eip7702/delegation.js'
import { type Eip155Env, ownedAddress } from '../env.js'
import { addressSchema, quantitySchema } from '../schemas.js'
import type { Capabilities } from '../types.js'
import { numberToHex } from '../viemUtils.js'

export type { Capabilities } from '../types.js'

/**
 * `wallet_getCapabilities [address, chainIds?]` (EIP-5792): per served chain (hex id), `atomic: { status }`
 * as EIP-5792 defines it — `supported` when the account is already delegated to the chain's configured
 * delegate (its batches run atomically), `ready` when it is not delegated yet (the first atomic batch upgrades
 * it once the user approves), `unsupported` without a delegate or a provider, or when it is delegated
 * elsewhere — and `dataSuffix: { supported: true }` (ERC-8021). Chains the wallet does not serve are left out.
 */
export const getCapabilitiesParams = v.strictTuple([
  addressSchema,
  v.optional(
    v.pipe(
      v.array(
        quantitySchema(BigInt(Number.MAX_SAFE_INTEGER), '2^53 - 1'),
        'must be an array of hex chain ids',
      ),
      v.maxLength(64, 'must not list more than 64 chains'),
    ),
  ),
])

export const getCapabilities = (env: Eip155Env) =>
  defineMethod({
    params: getCapabilitiesParams,
    async plan(_context, [address, chainIds]) {
      const account = await ownedAddress(env, address)
      const wanted = chainIds?.map((id) => `eip155:${id}`)
      const chains = [...env.chains.values()].filter(
        (chain) => wanted?.includes(`eip155:${chain.chainId}`) ?? true,
      )
      return { review: null, plan: { account, chains } }
    },
    async execute(_context, { account, chains }): Promise<Capabilities> {
      const entries = await Promise.all(
        chains.map(async (chain) => {
          const delegation =
            chain.delegate === undefined || chain.access === undefined
              ? ({ status: 'none' } as const)
              : await readDelegation(chain.access, account)
          const status = chain.access === undefined ? 'unsupported' : atomicStatus(chain.delegate, delegation)
          return [
            numberToHex(chain.chainId),
            { atomic: { status }, dataSuffix: { supported: true } },
          ] as const
        }),
      )
      return Object.fromEntries(entries) as Capabilities
    },
  })
