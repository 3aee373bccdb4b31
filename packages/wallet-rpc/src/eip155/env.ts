import type { Address } from 'viem'
import { ProviderError, UnauthorizedError } from '../core/errors.js'
import type { RequestContext } from '../core/namespace.js'
import { withKeyTimeout } from '../core/timeout.js'
import type { CallsSettings } from './calls/store.js'
import type { Eip155Keys, Eip155Signer } from './keys.js'
import type { NonceManager } from './nonces.js'
import type { ChainAccess } from './provider.js'
import type { SimulationOptions } from './simulation/reviewSimulation.js'

/** One chain this namespace serves. */
export type ChainConfig = {
  chainId: number
  /** Absent: signing-only; methods that must read or write the chain answer a clear -32603. */
  access: ChainAccess | undefined
  /** Shown in reviews next to native amounts. */
  nativeSymbol: string
  /** How transaction reviews simulate (eth_simulateV1); undefined: they do not (no provider, or turned off). */
  simulation: SimulationOptions | undefined
  /** The EIP-7702 delegate (an ERC-7821 executor) atomic batches run on; undefined: no atomic batches here. */
  delegate: Address | undefined
}

/** What every eip155 method shares: the wallet's keys, its chains and the nonce manager. */
export type Eip155Env = {
  keys: Eip155Keys
  chains: ReadonlyMap<string, ChainConfig>
  nonces: NonceManager
  /** Gas limit = estimate × (100 + gasMarginPercent) / 100, capped below the block gas limit. */
  gasMarginPercent: number
  /** EIP-5792 batches: where they are kept, and how many calls one may hold. */
  calls: CallsSettings
  /** The wallet's `onError` hook (set when the namespace is attached): failures a request's answer cannot carry. */
  report: (error: unknown) => void
}

/** The configured chain of a request (the router only dispatches chains the namespace lists). */
export function chainOf(env: Eip155Env, context: RequestContext): ChainConfig {
  const chain = env.chains.get(context.chainId)
  if (chain === undefined) throw new Error(`router dispatched unconfigured chain ${context.chainId}`)
  return chain
}

/** The chain's provider, or a clear -32603 when the wallet configured this chain for signing only. */
export function accessOf(chain: ChainConfig): ChainAccess {
  if (chain.access === undefined) {
    throw new ProviderError(`no chain provider configured for eip155:${chain.chainId}`)
  }
  return chain.access
}

/** The owned address as the key provider spells it; 4100 when the wallet does not hold it. */
export async function ownedAddress(env: Eip155Env, address: Address): Promise<Address> {
  const lower = address.toLowerCase()
  const owned = (await env.keys.addresses()).find((candidate) => candidate.toLowerCase() === lower)
  if (owned === undefined) throw new UnauthorizedError(address)
  return owned
}

/**
 * Only for `execute`: the signer of an address `plan` already resolved as owned, its signing calls bounded
 * by the key provider's `timeoutMs`.
 */
export async function signerOf(env: Eip155Env, address: Address): Promise<Eip155Signer> {
  const signer = await env.keys.signer(address)
  if (signer === undefined) throw new UnauthorizedError(address)
  const { timeoutMs } = env.keys
  if (timeoutMs === undefined) return signer
  return {
    ...signer,
    signMessage: (parameters) => withKeyTimeout(signer.signMessage(parameters), timeoutMs),
    signTypedData: (typedData) => withKeyTimeout(signer.signTypedData(typedData), timeoutMs),
    signTransaction: (transaction, options) =>
      withKeyTimeout(signer.signTransaction(transaction, options), timeoutMs),
  } as Eip155Signer
}

export const nonceKey = (chainId: number, address: Address) => `${chainId}:${address.toLowerCase()}`
