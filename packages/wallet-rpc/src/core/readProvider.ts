import { ProviderError, WalletRpcError } from './errors.js'

/**
 * Runs a chain-provider call, turning any failure that is not already one of ours into -32603 with the
 * provider's reason (`what: reason`) and the original as `cause`. One of ours (a provider's own
 * ProviderError, a refusal raised inside the call) passes through unchanged.
 */
export async function readProvider<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call()
  } catch (error) {
    if (error instanceof WalletRpcError) throw error
    throw new ProviderError(`${what}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    })
  }
}
