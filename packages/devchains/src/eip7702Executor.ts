import { eip7702ExecutorBytecode } from './eip7702Executor.artifact.js'
import { jsonRpc } from './http.js'

/** anvil's 10th dev account (unlocked, funded): deploys so the accounts tests sign with keep their nonces. */
const deployer = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720'

/**
 * Deploys the EIP-7702 delegate the local chains use — OpenZeppelin Contracts 5.x's `Account` +
 * `SignerEIP7702` + `ERC7821` executor (packages/devchains/test/eip7702Executor/compileExecutor.ts builds it) — on an anvil node
 * and returns its address: what `eip155({ chains: [{ …, eip7702: { delegate } }] })` and
 * `wallet-rpc handle --delegate eip155:<id>=<address>` take.
 */
export async function deployEip7702Executor(rpcUrl: string): Promise<`0x${string}`> {
  const hash = (await jsonRpc(rpcUrl, 'eth_sendTransaction', [
    { from: deployer, data: eip7702ExecutorBytecode, gas: '0x4c4b40' },
  ])) as string
  for (let attempt = 0; attempt < 100; attempt++) {
    const receipt = (await jsonRpc(rpcUrl, 'eth_getTransactionReceipt', [hash])) as {
      status?: string
      contractAddress?: `0x${string}`
    } | null
    if (receipt !== null) {
      if (receipt.status !== '0x1' || receipt.contractAddress === undefined)
        throw new Error('deploying the EIP-7702 executor failed')
      return receipt.contractAddress
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('the EIP-7702 executor deployment was not mined')
}
