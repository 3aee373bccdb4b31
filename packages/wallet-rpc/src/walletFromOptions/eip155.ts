import type { Namespace } from '../core/namespace.js'
import { printableLine } from '../core/text.js'
import { UsageError, type WalletCliOptions } from './options.js'
import { answererFor } from './terminal.js'

/** Chains served for signing even without `--rpc`: Ethereum mainnet and the local dev chain (anvil/hardhat). */
export const defaultEip155Chains = [1, 31337] as const

/**
 * The eip155 namespace the CLI builds from its options, or undefined when no mnemonic is given.
 *
 * - Keys: the BIP-39 mnemonic at `m/44'/60'/0'/0/N`, where N is `--account` (the address index, which is
 *   what MetaMask and Ledger Live step through as "Account N+1"). One address per wallet.
 * - Chains: every `--rpc eip155:ID=URL` (an HTTP provider, no automatic retries), plus `eip155:1` and
 *   `eip155:31337` for signing-only use when no `--rpc` names them. Sending on a chain without `--rpc`
 *   answers -32603 "no chain provider configured".
 * - `--delegate eip155:ID=ADDRESS`: atomic `wallet_sendCalls` on that chain (it needs `--rpc` for it).
 * - `wallet_watchAsset` and `wallet_addEthereumChain` are answered as `--approve` says (after the library's
 *   checks of the token and of the chain's RPC). The CLI keeps no list of tokens, and a chain it adds is
 *   served, through the RPC URL the dapp gave, for the life of the process only: nothing is written anywhere.
 */
export async function wireEip155(options: WalletCliOptions): Promise<Namespace | undefined> {
  if (options.mnemonic === undefined) return undefined
  // Loaded only when eip155 is wired, so other namespaces' commands never pay for viem.
  const { eip155, httpProvider, mnemonicKeys } = await import('../eip155/index.js')
  const providers = new Map<number, string>()
  for (const [chainId, url] of options.rpc) {
    if (!chainId.startsWith('eip155:')) continue
    const match = /^eip155:([1-9]\d{0,15})$/.exec(chainId)
    if (!match || !Number.isSafeInteger(Number(match[1]))) {
      throw new UsageError(`--rpc takes eip155:ID=URL with a decimal chain id, got ${chainId}`)
    }
    providers.set(Number(match[1]), url)
  }
  let keys: ReturnType<typeof mnemonicKeys>
  try {
    keys = mnemonicKeys({ mnemonic: options.mnemonic, addressIndex: options.account })
  } catch {
    throw new UsageError('the mnemonic is not a valid BIP-39 mnemonic')
  }
  const delegates = new Map(
    [...(options.delegate ?? new Map<string, string>())].map(([chainId, address]) => [
      Number(chainId.slice(7)),
      address as `0x${string}`,
    ]),
  )
  for (const chainId of delegates.keys()) {
    if (!providers.has(chainId))
      throw new UsageError(`--delegate eip155:${chainId} needs --rpc eip155:${chainId}=URL`)
  }
  const chainIds = [...new Set<number>([...defaultEip155Chains, ...providers.keys()])]
  const answer = answererFor(options.approve)
  return eip155({
    keys,
    // The token's symbol is the contract's own answer, the chain's name the dapp's: shown as visible text.
    watchAsset: (asset) =>
      answer(
        asset,
        `Watch ${printableLine(asset.symbol, 40)} (${asset.address}) on eip155:${asset.chainId}?`,
      ),
    addEthereumChain: (chain) =>
      answer(
        chain,
        `Add eip155:${chain.chainId} "${printableLine(chain.chainName, 100)}" through ${printableLine(chain.rpcUrl)} for this run?`,
      ),
    chains: chainIds.map((chainId) => {
      const url = providers.get(chainId)
      const delegate = delegates.get(chainId)
      if (url === undefined) return { chainId }
      return {
        chainId,
        provider: httpProvider(url),
        ...(delegate === undefined ? {} : { eip7702: { delegate } }),
      }
    }),
  })
}
