import type { SessionTypes } from '@walletconnect/types'
import type { WalletRpcLike } from './types.js'

/** What the session carries so a dapp learns the wallet's EIP-5792 capabilities without asking. */
export type AdvertisedCapabilities = {
  /** Top-level keys, each a JSON string (WalletConnect session properties are strings). */
  sessionProperties: Record<string, string>
  /** `eip155:<id>` → the chain's capabilities and, under `eip155:<id>:<address>`, each account's. */
  scopedProperties: Record<string, Record<string, unknown>>
}

/**
 * The EIP-5792 capabilities of every eip155 account the session approves, asked through the wallet's own
 * `wallet_getCapabilities`, laid out where `@walletconnect/universal-provider` 2.x reads them before it
 * would send the request (`extractCapabilitiesFromSession`, utils/caip25.ts): `scopedProperties['eip155:<id>']`
 * with the chain's capabilities and one entry per account (`eip155:<id>:<address>`, which wins over the
 * chain's), and top-level `sessionProperties.atomic` only when every chain and account answers the same
 * (top-level keys apply to every chain). A chain whose answer fails is left out: the dapp then asks.
 */
export async function advertisedCapabilities(
  wallet: Pick<WalletRpcLike, 'handle'>,
  namespaces: SessionTypes.Namespaces,
  onError: (error: unknown) => void,
): Promise<AdvertisedCapabilities> {
  const scopedProperties: AdvertisedCapabilities['scopedProperties'] = {}
  const statuses = new Set<string>()
  let complete = true
  for (const account of namespaces.eip155?.accounts ?? []) {
    const [, reference, address] = account.split(':')
    if (reference === undefined || address === undefined) continue
    const chainId = `eip155:${reference}`
    const hexId = `0x${BigInt(reference).toString(16)}`
    let response: Awaited<ReturnType<WalletRpcLike['handle']>>
    try {
      response = await wallet.handle({
        chainId,
        request: { id: 0, jsonrpc: '2.0', method: 'wallet_getCapabilities', params: [address, [hexId]] },
      })
    } catch (error) {
      onError(error)
      complete = false
      continue
    }
    const capabilities =
      'result' in response ? (response.result as Record<string, unknown>)[hexId] : undefined
    if (capabilities === undefined || capabilities === null || typeof capabilities !== 'object') {
      complete = false
      continue
    }
    const scope = scopedProperties[chainId] ?? { ...capabilities }
    scope[account] = capabilities
    scopedProperties[chainId] = scope
    statuses.add(JSON.stringify((capabilities as { atomic?: unknown }).atomic))
  }
  const [only] = statuses
  const sessionProperties: Record<string, string> =
    complete && statuses.size === 1 && only !== undefined ? { atomic: only } : {}
  return { sessionProperties, scopedProperties }
}
