/** The two TON chains WalletConnect names: `ton:-239` (mainnet) and `ton:-3` (testnet). */
export const tonChains = ['ton:-239', 'ton:-3'] as const
export type TonChainId = (typeof tonChains)[number]

export const isTestnet = (chainId: string): boolean => chainId === 'ton:-3'
