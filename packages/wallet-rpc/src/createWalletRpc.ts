import { type CreateWalletRpcOptions, createRouter, type WalletRpc } from './core/router.js'
import { activeBackends, useCrypto } from './crypto/backends.js'

export type { HandleInput, SessionRequestEvent } from './core/envelope.js'
export type { CreateWalletRpcOptions, HandleOptions, SupportedNamespace, WalletRpc } from './core/router.js'

/**
 * The wallet's JSON-RPC handler over its namespaces, with the crypto backends it asked for. The parts:
 * `core/router.ts` (namespaces, the per-request order, the answer), `core/envelope.ts` (reading a request in
 * either shape), `core/expiry.ts` (a request's deadline while the wallet asks its user).
 */
export function createWalletRpc(options: CreateWalletRpcOptions): WalletRpc {
  if (options.crypto !== undefined) useCrypto(options.crypto)
  return { backends: activeBackends, ...createRouter(options) }
}
