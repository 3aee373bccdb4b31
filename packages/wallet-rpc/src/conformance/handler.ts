// What the runner drives: a wallet built from a vector's configuration. MODULE (for `wallet-rpc conformance
// MODULE`) exports `createHandler(config)` (named or default) returning one of these shapes.
import type { WalletConfig } from './vectors.js'

export type ConformanceRequest = {
  chainId: string
  origin?: string
  request: { id: number; jsonrpc: '2.0'; method: string; params?: unknown }
}

export type HandleFunction = (input: ConformanceRequest) => Promise<unknown>
export type HandlerObject = {
  handle: HandleFunction
  /** The session properties (`ton_getPublicKey`, `ton_getStateInit`, …); TON sending vectors need them. */
  sessionProperties?: () => Promise<Record<string, string>>
  close?: () => Promise<void> | void
  /** The case timed out: drop whatever waits for this wallet's answer (the exec transport ends its process). */
  abort?: () => void
}

/** What a transport (exec, WalletConnect) reports about the wallet's side of the exchange: the case's reason. */
export class TransportError extends Error {
  override name = 'TransportError'
}
export type Handler = HandleFunction | HandlerObject
export type HandlerFactory = (config: WalletConfig) => Handler | Promise<Handler>

/** The factory's answer as a handler object; anything else is the wallet's failure, reported as the case's. */
export function asHandlerObject(handler: Handler): HandlerObject {
  if (typeof handler === 'function') return { handle: handler }
  if (typeof handler !== 'object' || handler === null || typeof handler.handle !== 'function') {
    const got =
      handler === null ? 'null' : typeof handler === 'object' ? 'an object without handle()' : typeof handler
    throw new TransportError(
      `createHandler(config) returned ${got}, not a handle function or an object with handle()`,
    )
  }
  return handler
}

/** The built-in wallet: the same one `wallet-rpc handle` serves, configured from the vector. */
export const createBuiltinHandler: HandlerFactory = async (config) => {
  const { createCliWallet } = await import('../walletFromOptions/wallet.js')
  const byNamespace = (prefix: string) =>
    new Map(Object.entries(config.providers).filter(([chainId]) => chainId.startsWith(`${prefix}:`)))
  const wallet = await createCliWallet(
    {
      mnemonic: config.mnemonic,
      tonMnemonic: config.tonMnemonic,
      tonWallet: config.tonWallet ?? 'v5r1',
      account: config.account,
      approve: config.approve,
      now: config.now,
      esplora: byNamespace('bip122'),
      toncenter: byNamespace('ton'),
      rpc: new Map([...byNamespace('eip155'), ...byNamespace('solana')]),
      delegate: new Map(Object.entries(config.delegates ?? {})),
    },
    () => {},
  )
  return {
    handle: (input) => wallet.handle(input),
    sessionProperties: () => wallet.sessionProperties(),
    close: () => wallet.close(),
  }
}
