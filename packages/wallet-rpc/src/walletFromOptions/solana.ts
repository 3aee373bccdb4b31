import type { Namespace } from '../core/namespace.js'
import {
  type SolanaChainId,
  type SolanaChainProvider,
  solana,
  solanaChains,
  solanaKeys,
  solanaPublicChains,
  solanaRpc,
} from '../solana/index.js'
import { UsageError, type WalletCliOptions } from './options.js'

/**
 * The solana namespace the CLI builds from its options, or undefined without a mnemonic. The BIP-39
 * `--mnemonic-file` (shared with bip122 and eip155) at `m/44'/501'/N'/0'`, N = `--account`; mainnet, devnet
 * and testnet signing-only, plus `--rpc solana:REF=URL` (Solana JSON-RPC) for simulation, expiry checks and
 * `solana_signAndSendTransaction` on that chain (`solana:localnet` included when named).
 */
export function wireSolana(options: WalletCliOptions): Namespace | undefined {
  if (options.mnemonic === undefined) return undefined
  const providers: Partial<Record<SolanaChainId, SolanaChainProvider>> = {}
  for (const [chainId, url] of options.rpc) {
    if (!chainId.startsWith('solana:')) continue
    if (!(solanaChains as readonly string[]).includes(chainId)) {
      throw new UsageError(`--rpc takes ${solanaChains.join(', ')} for solana, got ${chainId}`)
    }
    providers[chainId as SolanaChainId] = solanaRpc(url)
  }
  let keys: ReturnType<typeof solanaKeys.fromMnemonic>
  try {
    keys = solanaKeys.fromMnemonic(options.mnemonic, { account: options.account })
  } catch {
    throw new UsageError('the mnemonic is not a valid BIP-39 mnemonic')
  }
  const chains = [
    ...new Set<SolanaChainId>([...solanaPublicChains, ...(Object.keys(providers) as SolanaChainId[])]),
  ]
  return solana({ keys, chains, providers })
}
