import * as v from 'valibot'
import { PolicyRefusedError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { parseUrl } from '../../core/uri.js'
import { accessOf, chainOf, type Eip155Env } from '../env.js'
import { addressSchema } from '../schemas.js'
import { defaultSimulationOptions } from '../simulation/reviewSimulation.js'
import { tokenMetadata } from '../simulation/tokenMetadata.js'
import type { WatchAssetRequest } from '../types.js'

export type { WatchAssetRequest } from '../types.js'

const assetSchema = v.strictObject(
  {
    type: v.literal('ERC20', 'must be "ERC20" (the only asset type this wallet tracks)'),
    options: v.strictObject({
      address: addressSchema,
      symbol: v.optional(
        v.pipe(
          v.string('must be a string'),
          v.regex(/^[\x21-\x7e]{1,11}$/, 'must be 1 to 11 printable ASCII characters'),
        ),
      ),
      decimals: v.optional(
        v.pipe(
          v.number('must be a number'),
          v.integer('must be a whole number'),
          v.minValue(0, 'must be 0 to 36'),
          v.maxValue(36, 'must be 0 to 36'),
        ),
      ),
      image: v.optional(
        v.pipe(
          v.string('must be a URL string'),
          v.maxLength(65_536, 'must not exceed 65536 characters'),
          v.check(
            (image) => imageUrlProblem(image) === undefined,
            (issue) => imageUrlProblem(issue.input as string)!,
          ),
        ),
      ),
    }),
  },
  'must be { type: "ERC20", options: { address, symbol, decimals, image } }',
)

/**
 * Why a token image URL is not one a wallet may load, or undefined: an http(s) URL (at most 2048 characters,
 * no credentials) or a `data:image/…` URL. `javascript:`, `file:`, `blob:` and the rest are refused: a wallet
 * UI that shows the image as a link, or loads it, must never run or open anything else.
 */
function imageUrlProblem(image: string): string | undefined {
  if (/^data:image\/[a-z0-9.+-]+(?:;[a-z0-9.+=-]+)*,/i.test(image)) return undefined
  const url = parseUrl(image)
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    return 'must be an http(s) URL or a data:image URL'
  if (url.username !== '' || url.password !== '') return 'must not carry credentials'
  if (image.length > 2048) return 'an http(s) URL must not exceed 2048 characters'
  return undefined
}

/** EIP-747 sends the object itself; some providers wrap it in an array of one. */
export const watchAssetParams = v.pipe(
  v.unknown(),
  v.transform((params) => (Array.isArray(params) && params.length === 1 ? params[0] : params)),
  assetSchema,
)

/**
 * `wallet_watchAsset` (EIP-747, ERC-20 only): reads the token's `symbol()` and `decimals()` from the chain
 * and refuses a request whose claims differ (-32602, `asset.metadata_mismatch`) or a contract that answers
 * neither; then asks the wallet's `watchAsset` callback and answers its `true`/`false`. Offered only when
 * the wallet gives the callback.
 */
export const watchAsset = (env: Eip155Env, ask: (asset: WatchAssetRequest) => boolean | Promise<boolean>) =>
  defineMethod({
    params: watchAssetParams,
    async plan(context, params) {
      const { options } = params
      const chain = chainOf(env, context)
      const access = accessOf(chain)
      const metadata = await tokenMetadata(
        access,
        options.address,
        chain.simulation ?? defaultSimulationOptions,
      )
      if (metadata.symbol === undefined || metadata.decimals === undefined)
        throw new PolicyRefusedError(
          `${options.address} does not answer symbol() and decimals() as an ERC-20 token`,
          {
            rule: 'asset.not_erc20',
          },
        )
      for (const [field, claimed, actual] of [
        ['symbol', options.symbol, metadata.symbol],
        ['decimals', options.decimals, metadata.decimals],
      ] as const) {
        if (claimed !== undefined && claimed !== actual)
          throw new PolicyRefusedError(`the token's ${field} is ${actual}, not ${claimed}`, {
            rule: 'asset.metadata_mismatch',
          })
      }
      const asset: WatchAssetRequest = {
        chainId: chain.chainId,
        address: options.address,
        symbol: metadata.symbol,
        decimals: metadata.decimals,
        image: options.image,
        origin: context.origin,
      }
      return { review: null, plan: asset }
    },
    async execute(_context, asset: WatchAssetRequest): Promise<boolean> {
      return (await ask(asset)) === true
    },
  })
