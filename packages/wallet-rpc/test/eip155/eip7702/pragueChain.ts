import { createRequire } from 'node:module'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { deployEip7702Executor } from '@wallet-rpc/devchains/eip7702Executor'
import { createPublicClient, encodeDeployData, type Hex, http, type PublicClient, toHex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { afterAll, beforeAll } from 'vitest'
import type { Review } from '../../../src/core/review.js'
import { type Eip155Options, httpProvider, mnemonicKeys } from '../../../src/eip155/index.js'
import { type Harness, harness, minedReceipt } from '../helpers.js'

const tokenArtifact = createRequire(import.meta.url)(
  '@openzeppelin/contracts/build/contracts/ERC20PresetFixedSupply.json',
) as { abi: unknown[]; bytecode: Hex }

/**
 * The chain every EIP-5792/EIP-7702 anvil test runs on: anvil (`@foundry-rs/anvil`) with `--hardfork
 * prague` on 127.0.0.1, OpenZeppelin 5.x's ERC-7821 executor deployed as the delegate
 * (packages/devchains/src/eip7702Executor.ts), and wallets over the dev mnemonic's accounts.
 */
export const devMnemonic = 'test test test test test test test test test test test junk'
/** The dev mnemonic's accounts 0-9 (anvil funds each with 10,000 ETH). */
export const devAccounts = [
  '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc',
  '0x976EA74026E726554dB657fA54763abd0C3a0aa9',
  '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955',
  '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f',
  '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720',
] as const
/** A dev account as a viem account, for transactions and authorizations signed outside the wallet. */
export const devSigner = (addressIndex: number) => mnemonicToAccount(devMnemonic, { addressIndex })

export type PragueChain = {
  anvil: AnvilInstance
  chain: PublicClient
  /** The ERC-7821 executor wallets delegate to. */
  delegate: Hex
  /** The chain id as EIP-5792 params spell it. */
  hexChainId: Hex
  /** One raw JSON-RPC call to anvil (its `anvil_*`/`evm_*` methods included); the result, or a thrown error. */
  rpc(method: string, params: unknown[]): Promise<unknown>
  /**
   * Deploys OpenZeppelin 4.9.6's ERC20PresetFixedSupply (10^24 base units, 18 decimals) from dev account 3 and
   * returns its address.
   */
  deployToken(name: string, symbol: string, holder: string): Promise<Hex>
  /**
   * A wallet over the dev accounts `addressIndex`, with the chain's delegate unless `delegate: false`;
   * `approve` may be async (a test changes the chain between approval and broadcast).
   */
  wallet(
    addressIndex: number[],
    options?: {
      delegate?: boolean
      approve?: (review: Review) => boolean | Promise<boolean>
      eip155?: Partial<Eip155Options>
    },
  ): Harness
  stop(): Promise<void>
}

export async function startPragueChain(): Promise<PragueChain> {
  const anvil = await startAnvil({ args: ['--hardfork', 'prague'] })
  try {
    const delegate = await deployEip7702Executor(anvil.url)
    const rpc = async (method: string, params: unknown[]) => {
      const response = await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
      const body = (await response.json()) as { result?: unknown; error?: { message: string } }
      if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`)
      return body.result
    }
    const chain = createPublicClient({ transport: http(anvil.url) })
    return {
      anvil,
      chain,
      delegate,
      hexChainId: toHex(anvil.chainId),
      rpc,
      async deployToken(name, symbol, holder) {
        const hash = (await rpc('eth_sendTransaction', [
          {
            from: devAccounts[3],
            data: encodeDeployData({
              abi: tokenArtifact.abi,
              bytecode: tokenArtifact.bytecode,
              args: [name, symbol, 10n ** 24n, holder],
            }),
          },
        ])) as Hex
        return (await minedReceipt(chain, hash)).contractAddress as Hex
      },
      wallet: (addressIndex, options = {}) =>
        harness(
          {
            keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex }),
            chains: [
              {
                chainId: anvil.chainId,
                provider: httpProvider(anvil.url),
                ...(options.delegate === false ? {} : { eip7702: { delegate } }),
              },
            ],
            ...options.eip155,
          },
          options.approve === undefined ? {} : { approve: options.approve },
        ),
      stop: () => anvil.stop(),
    }
  } catch (error) {
    await anvil.stop()
    throw error
  }
}

/**
 * The chain for one test file: started before its tests, stopped after them. Call at the top of the file;
 * the returned function gives the running chain inside tests.
 */
export function pragueChainPerFile(): () => PragueChain {
  let prague: PragueChain | undefined
  beforeAll(async () => {
    prague = await startPragueChain()
  }, 60_000)
  afterAll(async () => {
    await prague?.stop()
  })
  return () => {
    if (prague === undefined) throw new Error('the prague chain is not running (used outside a test?)')
    return prague
  }
}
