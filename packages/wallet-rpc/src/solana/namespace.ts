import { assertPlatformGlobals } from '../core/globals.js'
import type { Namespace } from '../core/namespace.js'
import { type SolanaChainId, solanaChains, solanaPublicChains } from './chains.js'
import { createSolanaWallet, type SolanaPolicy } from './context.js'
import type { SolanaKeys } from './keys.js'
import { solana_getAccounts } from './methods/solana_getAccounts.js'
import { solana_requestAccounts } from './methods/solana_requestAccounts.js'
import { solana_signAllTransactions } from './methods/solana_signAllTransactions.js'
import { solana_signAndSendTransaction } from './methods/solana_signAndSendTransaction.js'
import { solana_signMessage } from './methods/solana_signMessage.js'
import { solana_signTransaction } from './methods/solana_signTransaction.js'
import type { SolanaChainProvider } from './provider.js'

export type SolanaNamespaceOptions = {
  /** `solanaKeys.fromMnemonic(words, { account })`, `solanaKeys.fromSecretKey(key)`, `solanaKeys.external(signer)`. */
  keys: SolanaKeys
  /** Chains this wallet serves; default mainnet, devnet and testnet. */
  chains?: readonly SolanaChainId[]
  /** Provider per chain (`solanaRpc(url)`): simulation, expiry checks, broadcast. Without one a chain signs only. */
  providers?: Partial<Record<SolanaChainId, SolanaChainProvider>>
  policy?: SolanaPolicy
}

/** The `solana` namespace: the six methods of the WalletConnect Solana RPC reference. */
export function solana(options: SolanaNamespaceOptions): Namespace {
  assertPlatformGlobals()
  const chains = [...(options.chains ?? solanaPublicChains)]
  for (const chainId of chains) {
    if (!(solanaChains as readonly string[]).includes(chainId))
      throw new TypeError(`unknown solana chain ${chainId}`)
  }
  for (const chainId of Object.keys(options.providers ?? {})) {
    if (!(chains as string[]).includes(chainId))
      throw new TypeError(`provider given for ${chainId}, not among chains`)
  }
  const wallet = createSolanaWallet(options.keys, options.providers ?? {}, options.policy ?? {})
  return {
    name: 'solana',
    chains,
    methods: {
      solana_getAccounts: solana_getAccounts(wallet),
      solana_requestAccounts: solana_requestAccounts(wallet),
      solana_signMessage: solana_signMessage(wallet),
      solana_signTransaction: solana_signTransaction(wallet),
      solana_signAllTransactions: solana_signAllTransactions(wallet),
      solana_signAndSendTransaction: solana_signAndSendTransaction(wallet),
    },
    async accounts(chainId) {
      return (chains as string[]).includes(chainId) ? [...wallet.signers.keys()] : []
    },
  }
}
