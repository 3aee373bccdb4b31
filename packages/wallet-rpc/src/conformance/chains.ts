// The local chains sending vectors need, started once per run on 127.0.0.1 and stopped at the end.
// They come from the private `@wallet-rpc/devchains` workspace (anvil, the regtest chain, the TON sandbox),
// loaded only when a vector needs a chain: an installed library runs the key-free cases without it.
import type { TonChainProvider } from '../ton/types.js'
import { importOptional } from './optionalPackage.js'
import type { ChainKind, FundingStep } from './vectors.js'

/** The parts of `@wallet-rpc/devchains` the runner uses (the library never imports its types). */
type Devchains = {
  anvil: {
    startAnvil(options: {
      chainId: number
      args?: readonly string[]
    }): Promise<{ url: string; stop(): Promise<void> }>
  }
  eip7702Executor: { deployEip7702Executor(rpcUrl: string): Promise<string> }
  bitcoinRegtest: {
    startBitcoinRegtest(): Promise<{
      chainId: string
      url: string
      fund(address: string, sats: bigint): { txid: string; vout: number }
      stop(): Promise<void>
    }>
  }
  tonSandbox: {
    startTonSandbox(options: { clock?: () => number }): Promise<{
      provider: TonChainProvider
      fund(address: string, nanotons: bigint): Promise<void>
      stop(): Promise<void>
    }>
  }
  toncenterFacade: {
    serveToncenter(provider: TonChainProvider): Promise<{ url: string; close(): Promise<void> }>
  }
}

const devchainsHint =
  'the local chains live in the private @wallet-rpc/devchains workspace of the wallet-rpc repository ' +
  '(run there after `npm ci`), or point the vectors at a wallet whose chains you provide'

function devchains<K extends keyof Devchains>(module: K): Promise<Devchains[K]> {
  return importOptional<Devchains[K]>(`@wallet-rpc/devchains/${module}`, devchainsHint)
}

export const localChainIds: Record<ChainKind, string> = {
  anvil: 'eip155:31337',
  'anvil-prague': 'eip155:31338',
  'bitcoin-regtest': 'bip122:0f9188f13cb7b2c71f2a335e3a4fc328',
  'ton-sandbox': 'ton:-3',
}

export type FundedOutput = { address: string; txid: string; vout: number; amount: bigint }

export type LocalChain = {
  kind: ChainKind
  chainId: string
  /** The provider URL a wallet uses (Esplora, JSON-RPC, toncenter v2). */
  url: string
  /** The outputs it created (bip122; other chains fund balances, not outputs). */
  fund(steps: readonly FundingStep[]): Promise<FundedOutput[]>
  /** The EIP-7702 delegate deployed on it, which wallets are configured with (`anvil-prague`). */
  delegate?: string
  /** The raw transaction behind a txid/hash, for the verifiers (bip122, eip155). */
  rawTransaction(id: string): Promise<string | undefined>
  stop(): Promise<void>
}

export type ChainPool = {
  /** Starts the chain on first use; rejects with the reason when it cannot start here. */
  get(kind: ChainKind): Promise<LocalChain>
  stopAll(): Promise<void>
}

export function createChainPool(options: { now?: () => number } = {}): ChainPool {
  const started = new Map<ChainKind, Promise<LocalChain>>()
  return {
    get(kind) {
      let chain = started.get(kind)
      if (!chain) {
        chain = starters[kind](options)
        started.set(kind, chain)
      }
      return chain
    },
    async stopAll() {
      const chains = await Promise.allSettled(started.values())
      started.clear()
      for (const chain of chains) if (chain.status === 'fulfilled') await chain.value.stop()
    },
  }
}

const starters: Record<ChainKind, (options: { now?: () => number }) => Promise<LocalChain>> = {
  anvil: () => startLocalAnvil('anvil', []),
  async 'anvil-prague'() {
    const chain = await startLocalAnvil('anvil-prague', ['--hardfork', 'prague'])
    try {
      const { deployEip7702Executor } = await devchains('eip7702Executor')
      return { ...chain, delegate: await deployEip7702Executor(chain.url) }
    } catch (error) {
      await chain.stop()
      throw error
    }
  },
  async 'bitcoin-regtest'() {
    const { startBitcoinRegtest } = await devchains('bitcoinRegtest')
    const chain = await startBitcoinRegtest()
    return {
      kind: 'bitcoin-regtest',
      chainId: chain.chainId,
      url: chain.url,
      async fund(steps) {
        return steps.map((step) => ({
          address: step.address,
          amount: BigInt(step.amount),
          ...chain.fund(step.address, BigInt(step.amount)),
        }))
      },
      async rawTransaction(txid) {
        const response = await fetch(`${chain.url}/tx/${txid}/hex`)
        return response.ok ? (await response.text()).trim() : undefined
      },
      stop: chain.stop,
    }
  },
  async 'ton-sandbox'(options) {
    const { startTonSandbox } = await devchains('tonSandbox')
    const { serveToncenter } = await devchains('toncenterFacade')
    const sandbox = await startTonSandbox(options.now ? { clock: options.now } : {})
    const facade = await serveToncenter(sandbox.provider)
    return {
      kind: 'ton-sandbox',
      chainId: localChainIds['ton-sandbox'],
      url: facade.url,
      async fund(steps) {
        for (const step of steps) await sandbox.fund(step.address, BigInt(step.amount))
        return []
      },
      async rawTransaction() {
        return undefined
      },
      async stop() {
        await facade.close()
        await sandbox.stop()
      },
    }
  },
}

/** anvil with the `test … junk` dev accounts funded, on the kind's chain id. */
async function startLocalAnvil(kind: 'anvil' | 'anvil-prague', args: readonly string[]): Promise<LocalChain> {
  const { startAnvil } = await devchains('anvil')
  const chainId = localChainIds[kind]
  const node = await startAnvil({ chainId: Number(chainId.slice('eip155:'.length)), args })
  return {
    kind,
    chainId,
    url: node.url,
    async fund(steps) {
      for (const step of steps) {
        await jsonRpc(node.url, 'anvil_setBalance', [step.address, `0x${BigInt(step.amount).toString(16)}`])
      }
      return []
    },
    async rawTransaction(hash) {
      const raw = await jsonRpc(node.url, 'eth_getRawTransactionByHash', [hash])
      return typeof raw === 'string' ? raw : undefined
    },
    stop: node.stop,
  }
}

export async function jsonRpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result?: unknown; error?: { message?: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message ?? 'error'}`)
  return body.result
}
