import { createRequire } from 'node:module'
import { startAnvil } from '@wallet-rpc/devchains/anvil'
import {
  type Abi,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
  pad,
  parseEther,
  toHex,
} from 'viem'
import { createWalletRpc, type WalletRpc } from '../src/createWalletRpc.js'
import { eip155, httpProvider, mnemonicKeys } from '../src/eip155/index.js'
import { decodeBalanceChanges, eventTopics } from '../src/eip155/simulation/decodeBalanceChanges.js'
import { measure, measureCalls, median } from './measure.js'

/**
 * What transaction simulation costs:
 * - decoding: `decodeBalanceChanges` over 500 ERC-20 Transfer logs naming the account (the review's bound),
 *   CPU µs per decode;
 * - a review with and without it: eth_signTransaction of an ERC-20 transfer through `handle()` on anvil
 *   (OpenZeppelin's ERC20PresetMinterPauser), wall ms per request, alternating sides. With simulation the
 *   review adds one eth_simulateV1 and, the first time only, the token's symbol()/decimals() (cached after).
 */
const devMnemonic = 'test test test test test test test test test test test junk'
const account = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const rounds = 20
const perBatch = 10

export async function run(): Promise<void> {
  const logs = Array.from({ length: 500 }, (_, index) => ({
    address: '0x5fbdb2315678afecb367f032d93f642f64180aa3',
    topics: [eventTopics.transfer, pad(account), pad(toHex(index + 1, { size: 20 }))],
    data: toHex(BigInt(index + 1), { size: 32 }),
  }))
  const decode = []
  for (let round = 0; round < rounds; round++)
    decode.push(
      (
        await measure(perBatch, () => {
          for (let i = 0; i < perBatch; i++) decodeBalanceChanges(logs, account)
        })
      ).cpu,
    )
  console.log(
    `decodeBalanceChanges, 500 Transfer logs: ${median(decode).toFixed(0)} µs CPU per decode (median of ${rounds} batches)`,
  )

  const anvil = await startAnvil()
  try {
    const artifact = createRequire(import.meta.url)(
      '@openzeppelin/contracts/build/contracts/ERC20PresetMinterPauser.json',
    ) as { abi: Abi; bytecode: Hex }
    const chain = createPublicClient({ transport: http(anvil.url) })
    const deployer = createWalletClient({ transport: http(anvil.url) })
    const hash = await deployer.deployContract({
      ...artifact,
      args: ['Token A', 'TKA'],
      account,
      chain: null,
    })
    const token = (await chain.waitForTransactionReceipt({ hash })).contractAddress!
    await chain.waitForTransactionReceipt({
      hash: await deployer.sendTransaction({
        to: token,
        data: encodeFunctionData({
          abi: artifact.abi,
          functionName: 'mint',
          args: [account, parseEther('1000')],
        }),
        account,
        chain: null,
      }),
    })
    const wallet = (simulation: boolean) =>
      createWalletRpc({
        namespaces: [
          eip155({
            keys: mnemonicKeys({ mnemonic: devMnemonic }),
            chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
            ...(simulation ? {} : { simulation: false }),
          }),
        ],
        approve: () => true,
      })
    const data = encodeFunctionData({ abi: artifact.abi, functionName: 'transfer', args: [account, 1n] })
    let id = 0
    const sign = async (rpc: WalletRpc) => {
      const response = (await rpc.handle({
        chainId: `eip155:${anvil.chainId}`,
        request: {
          id: ++id,
          jsonrpc: '2.0',
          method: 'eth_signTransaction',
          params: [{ from: account, to: token, data }],
        },
      })) as { result?: unknown }
      if (typeof response.result !== 'string') throw new Error(JSON.stringify(response))
    }
    const sides = { with: wallet(true), without: wallet(false) }
    await sign(sides.with)
    await sign(sides.without)
    const wall = { with: [] as number[], without: [] as number[] }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const)
      for (const side of order)
        wall[side].push((await measureCalls(perBatch, () => sign(sides[side]))).wall / 1000)
    }
    console.log(
      `eth_signTransaction (ERC-20 transfer) on anvil through handle(): ${median(wall.with).toFixed(2)} ms with simulation, ${median(wall.without).toFixed(2)} ms without (wall, median of ${rounds} batches of ${perBatch})`,
    )
  } finally {
    await anvil.stop()
  }
}
