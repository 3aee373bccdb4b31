// The demo's local chains: started together on 127.0.0.1, stopped together, named by their CAIP-2 ids.

export const REGTEST = 'bip122:0f9188f13cb7b2c71f2a335e3a4fc328'
export const TON = 'ton:-3'
export const ANVIL = 'eip155:31337'
export const SOLANA = 'solana:localnet'

export type Chains = {
  anvil: { url: string; chainId: number; stop(): Promise<void> }
  /** OpenZeppelin's ERC-7821 executor on anvil: the EIP-7702 delegate of atomic `wallet_sendCalls`. */
  eip7702Delegate: string
  bitcoin: Awaited<ReturnType<typeof import('../bitcoinRegtest/index.js')['startBitcoinRegtest']>>
  /** The ord-compatible index over the regtest chain: what the wallet's `--ord` reads. */
  ord: Awaited<ReturnType<typeof import('../bitcoinRegtest/index.js')['serveOrd']>>
  ton: Awaited<ReturnType<typeof import('../tonSandbox.js')['startTonSandbox']>>
  toncenter: { url: string; close(): Promise<void> }
  solana: Awaited<ReturnType<typeof import('../solanaLocal.js')['startSolanaLocal']>>
}

export async function startChains(): Promise<Chains> {
  const [
    { startAnvil },
    { startBitcoinRegtest, serveOrd },
    { startTonSandbox },
    { serveToncenter },
    { startSolanaLocal },
    { deployEip7702Executor },
  ] = await Promise.all([
    import('../anvil.js'),
    import('../bitcoinRegtest/index.js'),
    import('../tonSandbox.js'),
    import('../toncenterFacade.js'),
    import('../solanaLocal.js'),
    import('../eip7702Executor.js'),
  ])
  const [anvil, bitcoin, ton, solana] = await Promise.all([
    startAnvil({ args: ['--hardfork', 'prague'] }),
    startBitcoinRegtest(),
    startTonSandbox(),
    startSolanaLocal(),
  ])
  const [toncenter, eip7702Delegate, ord] = await Promise.all([
    serveToncenter(ton.provider),
    deployEip7702Executor(anvil.url),
    serveOrd(bitcoin.chain),
  ])
  return { anvil, bitcoin, ord, ton, toncenter, solana, eip7702Delegate }
}

export async function stopChains(chains: Chains): Promise<void> {
  await Promise.allSettled([
    chains.anvil.stop(),
    chains.ord.stop(),
    chains.bitcoin.stop(),
    chains.toncenter.close(),
    chains.ton.stop(),
    chains.solana.stop(),
  ])
}
