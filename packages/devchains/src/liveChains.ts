import type { LiveEvmChain, LiveModeOptions, Treasury } from '@wallet-rpc/pay-sandbox'
import { deployLiveToken, devMnemonic } from '@wallet-rpc/pay-sandbox'
import { createPublicClient, http, parseEther } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { type AnvilInstance, startAnvil } from './anvil.js'
import { type SolanaLocalChain, startSolanaLocal } from './solanaLocal.js'
import { createSplMint } from './splToken.js'

/** The USDC mint address the demo uses on the local Solana runtime. */
export const localSolanaMint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

export type LiveChains = {
  /** `startPaySandbox({ live: chains.live })`. */
  live: LiveModeOptions
  anvil: AnvilInstance
  solana: SolanaLocalChain | null
  evm: Record<string, LiveEvmChain>
  /** Mints SPL tokens on the local runtime to an owner's associated token account (tests, demo buyers). */
  fundSolana(owner: string, amount: bigint): void
  stop(): Promise<void>
}

export { deployLiveToken, devMnemonic, liveTokenAt } from '@wallet-rpc/pay-sandbox'

/**
 * Starts the local chains live mode runs on, as the demo does: anvil (chain 31337) with the `LiveToken` deployed
 * and 1,000,000 USDC minted to each of the dev mnemonic's first ten accounts, and (unless `solana: false`) the
 * litesvm Solana runtime with a USDC-style SPL mint. The treasury gets gas on both at sandbox start.
 */
export async function startLiveChains(
  options: { solana?: boolean; chainId?: number } = {},
): Promise<LiveChains> {
  const anvil = await startAnvil(options.chainId === undefined ? {} : { chainId: options.chainId })
  let solana: SolanaLocalChain | null = null
  try {
    const holders = Array.from(
      { length: 10 },
      (_, index) => mnemonicToAccount(devMnemonic, { addressIndex: index }).address,
    )
    const token = await deployLiveToken(anvil.url, { fund: holders })
    const evm = { [`eip155:${anvil.chainId}`]: { rpcUrl: anvil.url, token } }
    solana = options.solana === false ? null : await startSolanaLocal()
    const chain = solana
    const mint = chain === null ? undefined : createSplMint(chain, { address: localSolanaMint })
    const fundTreasury = async (treasury: Treasury) => {
      const client = createPublicClient({ transport: http(anvil.url) })
      await client.request({
        method: 'anvil_setBalance' as 'eth_chainId',
        params: [treasury.evmAddress, `0x${parseEther('1000').toString(16)}`] as never,
      })
      // SOL for the settlement transfers' fees and the merchants' token accounts (rent).
      chain?.svm.airdrop(treasury.solanaAddress as never, 10_000_000_000n as never)
    }
    return {
      live: {
        evm,
        ...(chain === null ? {} : { solana: { rpcUrl: chain.url, mint: localSolanaMint } }),
        fundTreasury,
      },
      anvil,
      solana: chain,
      evm,
      fundSolana: (owner, amount) => {
        if (mint === undefined) throw new Error('no Solana runtime')
        mint.fund(owner, amount)
      },
      stop: async () => {
        await chain?.stop()
        await anvil.stop()
      },
    }
  } catch (error) {
    await solana?.stop()
    await anvil.stop()
    throw error
  }
}
