import { ProviderError, WalletRpcError } from '../../core/errors.js'
import type { ChainProvider } from '../types.js'

/**
 * Sends a signed transaction exactly once (never retried: a retry after a timeout could be a second
 * broadcast the wallet cannot account for) and checks that the provider echoes the txid we computed.
 * Every failure is a ProviderError (-32603) carrying the provider's reason.
 */
export async function broadcastOnce(
  provider: ChainProvider,
  raw: Uint8Array,
  expectedTxid: string,
): Promise<string> {
  let reported: string
  try {
    reported = await provider.broadcast(raw)
  } catch (error) {
    if (error instanceof WalletRpcError) throw error
    throw new ProviderError(`broadcast failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    })
  }
  if (typeof reported !== 'string' || reported.trim().toLowerCase() !== expectedTxid) {
    throw new ProviderError(
      `provider reported txid ${String(reported).slice(0, 80)}, expected ${expectedTxid}`,
    )
  }
  return expectedTxid
}
