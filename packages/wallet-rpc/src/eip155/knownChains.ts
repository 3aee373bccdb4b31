/**
 * Well-known EVM chains by id, with the words their names are known by: `wallet_addEthereumChain` flags a
 * name that claims another chain than its id (chain 0x2105, Base, named "Ethereum Mainnet"), as wallets
 * check a proposed chain against chainid.network's list. Ids and names from ethereum-lists/chains
 * (chainid.network); each entry lists word sets, and a name matches a chain when it holds every word of one
 * set (whole words, any case).
 */
export const knownChains: ReadonlyMap<number, { name: string; words: readonly (readonly string[])[] }> =
  new Map([
    [1, { name: 'Ethereum Mainnet', words: [['ethereum'], ['eth', 'mainnet']] }],
    [10, { name: 'OP Mainnet', words: [['optimism'], ['op', 'mainnet']] }],
    [56, { name: 'BNB Smart Chain', words: [['bnb'], ['bsc'], ['binance']] }],
    [61, { name: 'Ethereum Classic', words: [['ethereum', 'classic'], ['etc']] }],
    [100, { name: 'Gnosis', words: [['gnosis'], ['xdai']] }],
    [137, { name: 'Polygon Mainnet', words: [['polygon'], ['matic']] }],
    [250, { name: 'Fantom Opera', words: [['fantom']] }],
    [324, { name: 'zkSync Era', words: [['zksync']] }],
    [8453, { name: 'Base', words: [['base']] }],
    [17000, { name: 'Holesky', words: [['holesky']] }],
    [42161, { name: 'Arbitrum One', words: [['arbitrum']] }],
    [42220, { name: 'Celo', words: [['celo']] }],
    [43114, { name: 'Avalanche C-Chain', words: [['avalanche'], ['avax']] }],
    [59144, { name: 'Linea', words: [['linea']] }],
    [80002, { name: 'Polygon Amoy', words: [['polygon', 'amoy'], ['amoy']] }],
    [81457, { name: 'Blast', words: [['blast']] }],
    [84532, { name: 'Base Sepolia', words: [['base', 'sepolia']] }],
    [421614, { name: 'Arbitrum Sepolia', words: [['arbitrum', 'sepolia']] }],
    [534352, { name: 'Scroll', words: [['scroll']] }],
    [11155111, { name: 'Sepolia', words: [['sepolia']] }],
    [
      11155420,
      {
        name: 'OP Sepolia',
        words: [
          ['op', 'sepolia'],
          ['optimism', 'sepolia'],
        ],
      },
    ],
  ])

const wordsOf = (name: string) => new Set(name.toLowerCase().split(/[^\p{L}\p{N}]+/u))

const matches = (words: ReadonlySet<string>, sets: readonly (readonly string[])[]) =>
  sets.some((set) => set.every((word) => words.has(word)))

/**
 * Why `name` is not a name chain `chainId` goes by, or undefined: a known id under a name without its words
 * ("Ethereum Mainnet" for 8453), or an unknown id under the name of a known mainnet or testnet
 * ("Ethereum Mainnet" for 31338). A name that matches its own known chain is never flagged.
 */
export function chainNameMismatch(chainId: number, name: string): string | undefined {
  const words = wordsOf(name)
  const known = knownChains.get(chainId)
  if (known !== undefined)
    return matches(words, known.words)
      ? undefined
      : `chain ${chainId} is ${known.name}, not what its name says`
  for (const [id, chain] of knownChains) {
    if (matches(words, chain.words))
      return `the name is that of ${chain.name} (chain ${id}), but the chain id is ${chainId}`
  }
  return undefined
}
