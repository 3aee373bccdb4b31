/** CAIP-2 ids: `solana:` and the first 32 characters of the cluster's genesis hash. */
export const solanaMainnet = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
export const solanaDevnet = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'
export const solanaTestnet = 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z'
/** The local runtime tests and the demo run (litesvm has no fixed genesis hash). */
export const solanaLocalnet = 'solana:localnet'

export const solanaChains = [solanaMainnet, solanaDevnet, solanaTestnet, solanaLocalnet] as const
export type SolanaChainId = (typeof solanaChains)[number]

export const solanaPublicChains = [solanaMainnet, solanaDevnet, solanaTestnet] as const

export function clusterName(chainId: string): string {
  switch (chainId) {
    case solanaMainnet:
      return 'Solana mainnet'
    case solanaDevnet:
      return 'Solana devnet'
    case solanaTestnet:
      return 'Solana testnet'
    default:
      return 'Solana local runtime'
  }
}
