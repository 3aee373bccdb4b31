import * as v from 'valibot'
import { InvalidParamsError, PolicyRefusedError, UserRejectedError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { quoted } from '../../core/review.js'
import { hasHiddenCharacters, printableLine } from '../../core/text.js'
import type { Eip155Env } from '../env.js'
import { chainNameMismatch } from '../knownChains.js'
import type { Eip155ChainProvider } from '../provider.js'
import { httpProvider } from '../providers/http.js'
import { quantitySchema } from '../schemas.js'
import type { AddChainRequest } from '../types.js'

export type { AddChainRequest } from '../types.js'

const urlList = (max: number) =>
  v.pipe(
    v.array(v.pipe(v.string('must be a URL string'), v.maxLength(2048, 'must not exceed 2048 characters'))),
    v.maxLength(max, `must not list more than ${max} URLs`),
  )

/** EIP-3085's AddEthereumChainParameter, strictly. */
export const addEthereumChainParams = v.strictTuple([
  v.strictObject(
    {
      chainId: quantitySchema(BigInt(Number.MAX_SAFE_INTEGER), '2^53 - 1'),
      chainName: v.pipe(
        v.string('must be a string'),
        v.minLength(1, 'must not be empty'),
        v.maxLength(100, 'must not exceed 100 characters'),
      ),
      nativeCurrency: v.strictObject({
        name: v.pipe(
          v.string('must be a string'),
          v.minLength(1, 'must not be empty'),
          v.maxLength(50, 'must not exceed 50 characters'),
        ),
        symbol: v.pipe(
          v.string('must be a string'),
          v.regex(/^[\x21-\x7e]{2,6}$/, 'must be 2 to 6 printable ASCII characters'),
        ),
        decimals: v.literal(18, 'must be 18 (EIP-3085)'),
      }),
      rpcUrls: v.pipe(urlList(8), v.minLength(1, 'must list at least one RPC URL')),
      blockExplorerUrls: v.optional(v.nullable(urlList(8))),
      iconUrls: v.optional(urlList(8)),
    },
    'must be an EIP-3085 chain object (chainId, chainName, nativeCurrency, rpcUrls, blockExplorerUrls, iconUrls)',
  ),
])

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** https, or http on this machine only (as browsers treat loopback as secure); never with credentials. */
function rpcUrlProblem(text: string): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'is not a URL'
  }
  if (url.username !== '' || url.password !== '') return 'must not carry credentials'
  if (url.protocol === 'https:') return undefined
  if (url.protocol === 'http:' && loopbackHosts.has(url.hostname)) return undefined
  return 'must be an https URL'
}

type Plan = { request: AddChainRequest; provider: Eip155ChainProvider | undefined }

/**
 * `wallet_addEthereumChain [chain]` (EIP-3085): checks the chain id, the names (no control, bidi or invisible
 * characters), native currency and an RPC URL that answers `eth_chainId` with that id, then asks the wallet's
 * `addEthereumChain` callback, with a `chain.name_mismatch` caution when the name claims another well-known
 * chain (`knownChains.ts`) — never adds a
 * chain silently. Allowed: the chain is served from then on through that URL (signing and sending), and the
 * answer is null; refused: 4001 (EIP-1193). A chain already served answers null without asking. Offered only when
 * the wallet gives the callback.
 */
export const addEthereumChain = (
  env: Eip155Env,
  ask: (chain: AddChainRequest) => boolean | Promise<boolean>,
  addChain: (chain: AddChainRequest, provider: Eip155ChainProvider) => void,
) =>
  defineMethod({
    params: addEthereumChainParams,
    async plan(context, [chain]): Promise<{ review: null; plan: Plan }> {
      const chainId = Number(chain.chainId)
      if (chainId === 0) throw new InvalidParamsError('must be a positive chain id', { path: '0.chainId' })
      for (const [index, url] of [...chain.rpcUrls, ...(chain.blockExplorerUrls ?? [])].entries()) {
        const problem = rpcUrlProblem(url)
        const path =
          index < chain.rpcUrls.length
            ? `0.rpcUrls.${index}`
            : `0.blockExplorerUrls.${index - chain.rpcUrls.length}`
        if (problem !== undefined && (index < chain.rpcUrls.length || !url.startsWith('https://')))
          throw new InvalidParamsError(`${problem}`, { path })
      }
      for (const [path, text] of [
        ['0.chainName', chain.chainName],
        ['0.nativeCurrency.name', chain.nativeCurrency.name],
      ] as const) {
        // A name the wallet shows as the network's: nothing may hide or reorder what the user reads.
        if (hasHiddenCharacters(text) || /[\t\n\r]/.test(text))
          throw new InvalidParamsError(
            `holds control, bidi or invisible characters: ${printableLine(text, 100)}`,
            { path },
          )
      }
      const mismatch = chainNameMismatch(chainId, chain.chainName)
      const request: AddChainRequest = {
        chainId,
        chainName: chain.chainName,
        nativeCurrency: chain.nativeCurrency,
        rpcUrl: chain.rpcUrls[0]!,
        blockExplorerUrls: chain.blockExplorerUrls ?? [],
        origin: context.origin,
        warnings:
          mismatch === undefined
            ? []
            : [
                {
                  code: 'chain.name_mismatch',
                  severity: 'caution',
                  message: `The site calls chain ${chainId} ${quoted(chain.chainName)}: ${mismatch}. A chain under another chain's name can make you send on the wrong network.`,
                },
              ],
      }
      if (env.chains.has(`eip155:${chainId}`)) return { review: null, plan: { request, provider: undefined } }
      const provider = httpProvider(request.rpcUrl, { timeoutMs: 5000 })
      let served: unknown
      try {
        served = await provider.request({ method: 'eth_chainId', params: [] })
      } catch (error) {
        // The RPC's own words (a third party's): one bounded, printable line.
        throw new PolicyRefusedError(
          `the RPC URL did not answer eth_chainId: ${printableLine(String((error as Error)?.message), 200)}`,
          {
            rule: 'chain.rpc_unreachable',
          },
        )
      }
      if (
        typeof served !== 'string' ||
        !/^0x[0-9a-fA-F]{1,16}$/.test(served) ||
        Number(BigInt(served)) !== chainId
      )
        throw new PolicyRefusedError(
          `the RPC URL serves chain ${printableLine(String(served), 80)}, not ${chain.chainId}`,
          {
            rule: 'chain.rpc_mismatch',
          },
        )
      return { review: null, plan: { request, provider } }
    },
    async execute(_context, { request, provider }: Plan): Promise<null> {
      if (provider === undefined) return null
      if ((await ask(request)) !== true) throw new UserRejectedError()
      if (!env.chains.has(`eip155:${request.chainId}`)) addChain(request, provider)
      return null
    },
  })
