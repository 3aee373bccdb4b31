import type { SessionTypes } from '@walletconnect/types'
import type { SessionRequestEvent, WalletKitLike, WalletRpcLike } from './types.js'

/**
 * The chain a successful `wallet_switchEthereumChain` switched to (from the params: UniversalProvider sends
 * the request itself on the session's first chain), or undefined for any other request or answer.
 */
export function switchedChain(event: SessionRequestEvent, result: unknown): string | undefined {
  const { method, params } = event.params.request
  if (method !== 'wallet_switchEthereumChain' || result !== null || !Array.isArray(params)) return undefined
  const chainId = (params[0] as { chainId?: unknown } | undefined)?.chainId
  if (typeof chainId !== 'string' || !/^0x[0-9a-fA-F]{1,13}$/.test(chainId)) return undefined
  return `eip155:${Number.parseInt(chainId, 16)}`
}

/**
 * After the wallet agreed to switch: a chain the session does not hold yet is added to its eip155
 * namespace with the wallet's accounts there (`updateSession`), so the dapp can send requests on it.
 * Done before the answer reaches the dapp, which switches as soon as it has it.
 */
export async function addChainToSession(
  walletKit: Pick<WalletKitLike, 'getActiveSessions' | 'updateSession'>,
  wallet: Pick<WalletRpcLike, 'accounts'>,
  topic: string,
  chainId: string,
): Promise<void> {
  if (walletKit.updateSession === undefined) return
  const session = walletKit.getActiveSessions()[topic]
  const eip155 = session?.namespaces.eip155
  if (session === undefined || eip155 === undefined) return
  if (
    (eip155.chains ?? []).includes(chainId) ||
    eip155.accounts.some((account) => account.startsWith(`${chainId}:`))
  )
    return
  const accounts = (await wallet.accounts(chainId)).map((address) => `${chainId}:${address}`)
  if (accounts.length === 0) return
  const namespaces: SessionTypes.Namespaces = {
    ...session.namespaces,
    eip155: {
      ...eip155,
      ...(eip155.chains === undefined ? {} : { chains: [...eip155.chains, chainId] }),
      accounts: [...eip155.accounts, ...accounts],
    },
  }
  await walletKit.updateSession({ topic, namespaces })
}

/** EIP-1193's `chainChanged` for the session: the chain id as hex, on the new chain. */
export function chainChangedEvent(topic: string, chainId: string) {
  const reference = Number(chainId.split(':')[1])
  return { topic, event: { name: 'chainChanged', data: `0x${reference.toString(16)}` }, chainId }
}
