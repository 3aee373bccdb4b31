import { RegtestChain, type RegtestChainOptions } from './chain.js'
import { type BroadcastFault, serveEsplora } from './server.js'

export { RegtestChain, type RegtestChainOptions, regtestNetwork } from './chain.js'
export { type OrdFault, type OrdIndex, type OrdRune, type OrdServerOptions, serveOrd } from './ord.js'
export type { BroadcastFault } from './server.js'
export { TransactionRejected } from './validate.js'

export type BitcoinRegtest = {
  /** Esplora base URL, e.g. `http://127.0.0.1:40123` (what `esplora({ url })` takes). */
  url: string
  /** CAIP-2 id of Bitcoin regtest. */
  chainId: 'bip122:0f9188f13cb7b2c71f2a335e3a4fc328'
  chain: RegtestChain
  /** Pays `sats` to a regtest address in a new confirmed block; returns the funding outpoint. */
  fund(address: string, sats: bigint | number): { txid: string; vout: number }
  /** Mines `n` blocks (the first takes the mempool); returns their hashes. */
  mine(n?: number): string[]
  /** Makes the next `POST /tx` fail the given way. */
  injectBroadcastFault(fault: BroadcastFault): void
  /** How many `POST /tx` requests arrived. */
  broadcastCount(): number
  stop(): Promise<void>
}

/**
 * Starts the embedded Bitcoin regtest chain behind the Esplora HTTP API on 127.0.0.1 (random free port
 * unless `port` is given). Used by the tests and by `wallet-rpc demo`; needs nothing but Node.
 */
export async function startBitcoinRegtest(
  options: RegtestChainOptions & { port?: number } = {},
): Promise<BitcoinRegtest> {
  const chain = new RegtestChain(options)
  const server = await serveEsplora(chain, options.port === undefined ? {} : { port: options.port })
  return {
    url: server.url,
    chainId: 'bip122:0f9188f13cb7b2c71f2a335e3a4fc328',
    chain,
    fund: (address, sats) => chain.fund(address, sats),
    mine: (n = 1) => chain.mine(n),
    injectBroadcastFault: server.injectBroadcastFault,
    broadcastCount: server.broadcastCount,
    stop: server.close,
  }
}
