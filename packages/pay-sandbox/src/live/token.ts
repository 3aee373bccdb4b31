import {
  type Address,
  createPublicClient,
  createWalletClient,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  type TransactionReceipt,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import type { TokenConfig } from '../model.js'
import { liveTokenAbi, liveTokenBytecode } from './liveTokenArtifact.js'

/** anvil's default dev mnemonic: its first ten accounts hold 10,000 ETH each. */
export const devMnemonic = 'test test test test test test test test test test test junk'

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
