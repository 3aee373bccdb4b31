import { base58 } from '@scure/base'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  parseEther,
  type TransactionReceipt,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { type AnvilInstance, startAnvil } from '../../../devchains/anvil.js'
import { type SolanaLocalChain, startSolanaLocal } from '../../../devchains/solanaLocal.js'
import { createSplMint } from '../../../devchains/splToken.js'
import type { TokenConfig } from '../model.js'
import type { LiveEvmChain } from './engine.js'
import { liveTokenAbi, liveTokenBytecode } from './liveTokenArtifact.js'
import type { LiveModeOptions } from './setup.js'
import type { Treasury } from './treasury.js'

/** anvil's default dev mnemonic: its first ten accounts hold 10,000 ETH each. */
export const devMnemonic = 'test test test test test test test test test test test junk'

/** The USDC mint address the demo uses on the local Solana runtime. */
export const localSolanaMint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'

/** Polls for a receipt (anvil automines; viem's waiter waits for a block that never comes), at most `timeoutMs`. */
export async function minedReceipt(
  client: PublicClient,
  hash: Hex,
  timeoutMs = 30_000,
): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await client.getTransactionReceipt({ hash })
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`transaction ${hash} not mined within ${timeoutMs} ms`, { cause: error })
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/**
 * Deploys the sandbox's `LiveToken` (an ERC-20 with an open faucet `mint`) from `m/44'/60'/0'/0/deployerIndex` of
 * the dev mnemonic, and mints `fundEach` to each address in `fund`. For local chains only.
 */
export async function deployLiveToken(
  rpcUrl: string,
  options: {
    name?: string
    symbol?: string
    decimals?: number
    fund?: readonly Address[]
    fundEach?: bigint
    mnemonic?: string
    deployerIndex?: number
  } = {},
): Promise<TokenConfig> {
  const account = mnemonicToAccount(options.mnemonic ?? devMnemonic, {
    addressIndex: options.deployerIndex ?? 0,
  })
  const transport = http(rpcUrl, { timeout: 10_000 })
  const publicClient = createPublicClient({ transport }) as PublicClient
  const wallet = createWalletClient({ account, transport })
  const name = options.name ?? 'USD Coin'
  const symbol = options.symbol ?? 'USDC'
  const decimals = options.decimals ?? 6
  const deployHash = await wallet.deployContract({
    abi: liveTokenAbi,
    bytecode: liveTokenBytecode,
    args: [name, symbol, decimals],
    chain: null,
  })
  const deployed = await minedReceipt(publicClient, deployHash)
  if (deployed.contractAddress == null || deployed.status !== 'success')
    throw new Error('LiveToken deployment failed')
  const address = getAddress(deployed.contractAddress)
  for (const holder of options.fund ?? []) {
    const hash = await wallet.writeContract({
      address,
      abi: liveTokenAbi,
      functionName: 'mint',
      args: [holder, options.fundEach ?? 1_000_000n * 10n ** BigInt(decimals)],
      chain: null,
    })
    await minedReceipt(publicClient, hash)
  }
  return {
    address,
    symbol,
    name,
    decimals,
    domainName: name,
    domainVersion: '1',
    networkName: `Local EVM chain ${await publicClient.getChainId()}`,
  }
}

/** An ERC-20 already on the chain: its name, symbol and decimals read from the contract. */
export async function liveTokenAt(rpcUrl: string, address: string): Promise<TokenConfig> {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: 10_000 }) }) as PublicClient
  const contract = { address: getAddress(address), abi: erc20Abi } as const
  const [name, symbol, decimals] = await Promise.all([
    client.readContract({ ...contract, functionName: 'name' }),
    client.readContract({ ...contract, functionName: 'symbol' }),
    client.readContract({ ...contract, functionName: 'decimals' }),
  ])
  return {
    address: contract.address,
    name,
    symbol,
    decimals,
    domainName: name,
    domainVersion: '1',
    networkName: `EVM chain ${await client.getChainId()}`,
  }
}

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

/** The base58 owner of a Solana public key (for `fundSolana`). */
export const solanaOwner = (key: Uint8Array): string => base58.encode(key)
