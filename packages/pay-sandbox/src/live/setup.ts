import { join } from 'node:path'
import { parseEther } from 'viem'
import type { SolanaTokenOption } from '../model.js'
import type { SandboxState } from '../state.js'
import { LiveEngine, type LiveEvmChain } from './engine.js'
import { loadTreasury, type Treasury, type TreasuryKeys } from './treasury.js'

/** `startPaySandbox({ live })`: live mode on chains the sandbox reaches (see `startLiveChains` for local ones). */
export type LiveModeOptions = {
  /** CAIP-2 → RPC URL and the ERC-20 live payments are made in (e.g. `startLiveChains().evm`). */
  evm?: Readonly<Record<string, LiveEvmChain>>
  /** The Solana runtime and SPL mint live payments may use (same fields as the test-mode `solana` option). */
  solana?: Partial<SolanaTokenOption> & { rpcUrl: string; mint: string }
  /** The live key (`svc_…`, not `svc_test_`); default a fresh one (kept in `dataDir/live`). */
  apiKey?: string
  /** The live App-Id for wallet routes; default a fresh `app_…`. */
  appId?: string
  /** The treasury keys; default fresh ones, kept in `dataDir/live/treasury.json` (0600) with `dataDir`. */
  treasury?: TreasuryKeys
  /** Gives the treasury gas (ETH, SOL) at start; default `anvil_setBalance` on every EVM chain that has it. */
  fundTreasury?: (treasury: Treasury) => Promise<void> | void
  /** How long a payment's transaction may take to be mined after confirm; default 60 s. */
  confirmTimeoutMs?: number
  /** Limit on each chain call; default 10 s. */
  rpcTimeoutMs?: number
  /** Receipt polling interval; default 250 ms. */
  pollMs?: number
  /** Lines about chain work that could not be done (default: stderr). */
  log?: (line: string) => void
}

export function createLiveEngine(
  state: SandboxState,
  options: LiveModeOptions,
  solana: SolanaTokenOption | null,
  dataDir: string | undefined,
): LiveEngine {
  return new LiveEngine(state, {
    evm: options.evm ?? {},
    solana,
    treasury: loadTreasury(dataDir === undefined ? undefined : join(dataDir, 'live'), options.treasury),
    confirmTimeoutMs: options.confirmTimeoutMs ?? 60_000,
    rpcTimeoutMs: options.rpcTimeoutMs ?? 10_000,
    pollMs: options.pollMs ?? 250,
    log: options.log ?? ((line) => process.stderr.write(`pay-sandbox live: ${line}\n`)),
  })
}

/** Gas for the treasury's settlement transfers: the caller's hook, else anvil's `anvil_setBalance` (1000 ETH). */
export async function prepareTreasury(engine: LiveEngine, options: LiveModeOptions): Promise<void> {
  if (options.fundTreasury !== undefined) return options.fundTreasury(engine.treasury)
  for (const chainId of Object.keys(options.evm ?? {})) {
    const client = engine.client(chainId)
    const balance = await client.getBalance({ address: engine.treasury.evmAddress })
    if (balance > parseEther('1')) continue
    try {
      await client.request({
        method: 'anvil_setBalance' as 'eth_chainId',
        params: [engine.treasury.evmAddress, `0x${parseEther('1000').toString(16)}`] as never,
      })
    } catch {
      engine.options.log(
        `treasury ${engine.treasury.evmAddress} has no gas on ${chainId} and the node has no anvil_setBalance: fund it to settle`,
      )
    }
  }
}
