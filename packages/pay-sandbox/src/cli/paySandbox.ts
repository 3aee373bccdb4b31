import {
  type FaultPlan,
  type FeeConfig,
  type LiveModeOptions,
  parseFaultSpec,
  startPaySandbox,
} from '../index.js'
import type { LiveEvmChain } from '../live/engine.js'
import { deployLiveToken, liveTokenAt } from '../live/token.js'

/** A bad command line: the bin (and `wallet-rpc pay-sandbox`) prints the message and exits with 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** What `--live` without `--rpc` uses of the private `@wallet-rpc/devchains` workspace (local anvil, litesvm). */
type LiveChains = { live: LiveModeOptions; stop(): Promise<void> }

async function loadLocalChains(): Promise<{ startLiveChains(): Promise<LiveChains> }> {
  const specifier = '@wallet-rpc/devchains/liveChains'
  try {
    return await import(specifier)
  } catch (error) {
    if (
      (error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND' ||
      !String(error).includes("'@wallet-rpc/devchains'")
    )
      throw error
    throw new UsageError(
      '--live without --rpc starts local chains from the private @wallet-rpc/devchains workspace (a checkout of ' +
        'the wallet-rpc repository); here, give the running chains with --rpc CHAIN=URL and/or --solana URL=MINT',
    )
  }
}

const usage = `wallet-rpc pay-sandbox [options]

Runs the test-mode payment service (merchants, payments, gateway, webhooks) on 127.0.0.1 until Ctrl-C;
with --live, live mode beside it (a svc_ key whose payments are real transfers on local chains).

Options:
  --port N              listen on port N (default: a free port)
  --api-key KEY         accept this svc_test_ key (default: a fresh random key, printed)
  --webhook-url URL     register the test-mode webhook endpoint (https, or http to 127.0.0.1/localhost)
  --rpc CHAIN=URL       check eth_sendTransaction results on this chain (e.g. eip155:31337=http://127.0.0.1:8545)
  --time-scale X        multiply webhook retry back-off by X (e.g. 0.001)
  --checkout-url URL    the sandbox's public https base when it sits behind TLS or a tunnel: payment
                        links, gatewayUrl and the checkout pages use it (default: links on
                        https://pay.sandbox.test, pages on the sandbox's own http://127.0.0.1 URL)
  --solana URL=MINT     offer a Solana option: the SPL token MINT on the Solana JSON-RPC runtime at URL
                        (e.g. the demo's litesvm facade); chain solana:localnet, 6 decimals
  --data DIR            keep the state in DIR (fsynced append-only journal) and take it over at start;
                        without it the state lives in memory and is lost on exit
  --live                live mode too: starts anvil (LiveToken USDC deployed, 1,000,000 minted to each of the
                        dev mnemonic's first ten accounts) and the litesvm Solana runtime (USDC SPL mint), or,
                        with --rpc eip155:N=URL, uses that running chain (LiveToken deployed from its dev
                        account 0 unless --live-token) and --solana's runtime; prints the live svc_ key
  --live-token CHAIN=ADDRESS  with --live --rpc: the ERC-20 live payments use on CHAIN (no deployment)
  --fee FIXED+PERCENT   a base_plus_percent fee on every payment, both modes: FIXED in minor units of the
                        payment's currency plus PERCENT % (e.g. 30+2.9); live settlements pay the net amount
  --faults SPEC         fault mode, e.g. seed=7,duplicates=0.3,reorder=200,late=0.1,rotate=5,
                        gateway=confirm:503@1,gateway=fetch:409~0.2,gateway=confirm:503@1!after,hold-long-polls
                        (per test instead: PUT /_sandbox/faults with a JSON plan; GET shows the fault log)
  --explorer-listing FILE
                        serve this listing file on the explorer routes (/v3/wallets, /v3/dapps …):
                        {"listings": [...]} with logos/<image_id>.svg beside it (default: the sample)
`

type Parsed = {
  port?: number
  apiKey?: string
  webhookUrl?: string
  chains: Record<string, string>
  timeScale?: number
  checkoutUrl?: string
  faults?: FaultPlan
  solana?: { rpcUrl: string; mint: string }
  dataDir?: string
  explorerListing?: string
  live?: boolean
  liveTokens?: Record<string, string>
  fee?: FeeConfig
}

export function parsePaySandboxArgs(argv: readonly string[]): Parsed | 'help' {
  const parsed: Parsed = { chains: {} }
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index]!
    if (flag === '--help' || flag === '-h') return 'help'
    if (flag === '--live') {
      parsed.live = true
      continue
    }
    const value = argv[index + 1]
    if (value === undefined) throw new UsageError(`${flag} needs a value (see --help)`)
    index++
    switch (flag) {
      case '--port': {
        if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 65535)
          throw new UsageError('--port must be 0-65535')
        parsed.port = Number(value)
        break
      }
      case '--api-key':
        parsed.apiKey = value
        break
      case '--webhook-url':
        parsed.webhookUrl = value
        break
      case '--rpc': {
        const at = value.indexOf('=')
        if (at <= 0) throw new UsageError('--rpc takes CHAIN=URL, e.g. eip155:31337=http://127.0.0.1:8545')
        parsed.chains[value.slice(0, at)] = value.slice(at + 1)
        break
      }
      case '--time-scale': {
        const scale = Number(value)
        if (!Number.isFinite(scale) || scale <= 0)
          throw new UsageError('--time-scale must be a positive number')
        parsed.timeScale = scale
        break
      }
      case '--checkout-url': {
        let url: URL
        try {
          url = new URL(value)
        } catch {
          throw new UsageError('--checkout-url takes a URL, e.g. https://abc.trycloudflare.com')
        }
        if (url.protocol !== 'https:' && url.protocol !== 'http:')
          throw new UsageError('--checkout-url must be an http(s) URL')
        parsed.checkoutUrl = value
        break
      }
      case '--solana': {
        const at = value.lastIndexOf('=')
        if (at <= 0 || !/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value.slice(at + 1)))
          throw new UsageError(
            '--solana takes URL=MINT, e.g. http://127.0.0.1:8899=EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          )
        parsed.solana = { rpcUrl: value.slice(0, at), mint: value.slice(at + 1) }
        break
      }
      case '--live-token': {
        const at = value.indexOf('=')
        if (at <= 0 || !/^0x[0-9a-fA-F]{40}$/.test(value.slice(at + 1)))
          throw new UsageError(
            '--live-token takes CHAIN=ADDRESS, e.g. eip155:31337=0x5FbDB2315678afecb367f032d93F642f64180aa3',
          )
        parsed.liveTokens = { ...parsed.liveTokens, [value.slice(0, at)]: value.slice(at + 1) }
        break
      }
      case '--fee': {
        const match = /^([0-9]{1,12})\+([0-9]{1,3}(?:\.[0-9]{1,6})?)%?$/.exec(value)
        if (match === null || Number(match[2]) > 100)
          throw new UsageError(
            '--fee takes FIXED+PERCENT (minor units + a percentage up to 100), e.g. 30+2.9',
          )
        parsed.fee = { fixed: String(BigInt(match[1]!)), percentage: match[2]! }
        break
      }
      case '--data':
        parsed.dataDir = value
        break
      case '--explorer-listing':
        parsed.explorerListing = value
        break
      case '--faults':
        try {
          parsed.faults = parseFaultSpec(value)
        } catch (error) {
          throw new UsageError(error instanceof Error ? error.message : 'invalid --faults')
        }
        break
      default:
        throw new UsageError(`unknown option ${flag} (see --help)`)
    }
  }
  if (parsed.liveTokens !== undefined && parsed.live !== true)
    throw new UsageError('--live-token needs --live')
  return parsed
}

/** Live mode's chains: the ones given with --rpc (and --solana), else local ones started here. */
async function liveChains(
  parsed: Parsed,
): Promise<{ live: LiveModeOptions; started: LiveChains | undefined; lines: string[] }> {
  const evmChains = Object.entries(parsed.chains).filter(([chain]) => chain.startsWith('eip155:'))
  if (evmChains.length === 0 && parsed.solana === undefined) {
    // The dev chains (anvil, litesvm) are development dependencies: loaded only when asked for.
    const { startLiveChains } = await loadLocalChains()
    const started = await startLiveChains()
    return { live: started.live, started, lines: ['  live chains:  started here (stopped on exit)'] }
  }
  const evm: Record<string, LiveEvmChain> = {}
  for (const [chain, rpcUrl] of evmChains) {
    const given = parsed.liveTokens?.[chain]
    const token = given === undefined ? await deployLiveToken(rpcUrl) : await liveTokenAt(rpcUrl, given)
    evm[chain] = { rpcUrl, token }
  }
  return {
    live: { evm, ...(parsed.solana === undefined ? {} : { solana: parsed.solana }) },
    started: undefined,
    lines: ['  live chains:  the running ones given with --rpc/--solana'],
  }
}

/** `wallet-rpc pay-sandbox`: prints the URL and test key, serves until SIGINT/SIGTERM, then stops cleanly. */
export async function runPaySandboxCommand(argv: string[]): Promise<number> {
  const parsed = parsePaySandboxArgs(argv)
  if (parsed === 'help') {
    process.stdout.write(usage)
    return 0
  }
  let sandbox: Awaited<ReturnType<typeof startPaySandbox>>
  let live: Awaited<ReturnType<typeof liveChains>> | undefined
  try {
    if (parsed.live === true) live = await liveChains(parsed)
    sandbox = await startPaySandbox({
      ...(live === undefined ? {} : { live: live.live }),
      ...(parsed.port === undefined ? {} : { port: parsed.port }),
      ...(parsed.apiKey === undefined ? {} : { apiKey: parsed.apiKey }),
      ...(parsed.webhookUrl === undefined ? {} : { webhookUrl: parsed.webhookUrl }),
      ...(parsed.timeScale === undefined ? {} : { timeScale: parsed.timeScale }),
      // Behind a tunnel the links a wallet scans and the pages a buyer opens share the public base.
      ...(parsed.checkoutUrl === undefined
        ? {}
        : { checkoutUrl: parsed.checkoutUrl, portalUrl: parsed.checkoutUrl }),
      ...(parsed.faults === undefined ? {} : { faults: parsed.faults }),
      ...(parsed.solana === undefined ? {} : { solana: parsed.solana }),
      ...(parsed.dataDir === undefined ? {} : { dataDir: parsed.dataDir }),
      ...(parsed.fee === undefined ? {} : { fee: parsed.fee }),
      ...(parsed.explorerListing === undefined ? {} : { explorerListing: parsed.explorerListing }),
      chains: parsed.chains,
    })
  } catch (error) {
    await live?.started?.stop()
    throw new UsageError(error instanceof Error ? error.message : 'cannot start the sandbox')
  }
  const lines = [
    `pay sandbox (test mode, no funds move) listening on ${sandbox.url}`,
    `  Api-Key:      ${sandbox.apiKey}`,
    `  Merchant-Id:  ${sandbox.merchantId}`,
    `  App-Id:       ${sandbox.appId} (with any Client-Id, on gateway and list routes)`,
    `  Pay-Version:  ${sandbox.apiVersion}`,
    `  links:        ${sandbox.checkoutUrl}/<pay_id> (a wallet trusts ${new URL(sandbox.checkoutUrl).hostname})`,
    `  checkout:     ${sandbox.portalUrl}/<pay_id> (gatewayUrl, the buyer's page)`,
    `  dashboard:    ${sandbox.url}/dashboard (sign in with the Api-Key${sandbox.live === null ? '' : ', or the live one'})`,
  ]
  const endpoint = sandbox.webhooks.endpoint()
  if (endpoint !== null)
    lines.push(`  webhooks:     ${endpoint.url} signed with ${sandbox.webhooks.secret()}`)
  lines.push(
    `  test controls: POST ${sandbox.url}/_sandbox/payments/<pay_id>/{succeed|fail|expire|cancel|settle}`,
    `  explorer:     ${sandbox.url}/v3/{wallets|dapps|hybrid|all|chains}?projectId=<any> (${parsed.explorerListing ?? 'sample listing'})`,
  )
  if (parsed.solana !== undefined)
    lines.push(`  solana:       token ${parsed.solana.mint} on ${parsed.solana.rpcUrl} (solana:localnet)`)
  if (parsed.fee !== undefined)
    lines.push(
      `  fee:          ${parsed.fee.fixed} minor units + ${parsed.fee.percentage} % per payment (base_plus_percent)`,
    )
  const restored = sandbox.restored
  lines.push(
    sandbox.dataDir === null
      ? '  state:        in memory only: lost when this process ends (--data DIR keeps it)'
      : `  state:        ${sandbox.dataDir} (fsynced journal)${restored === null || restored.events === 0 ? ', new' : `, restored ${restored.payments} payments, ${restored.events} events, ${restored.pendingDeliveries} pending deliveries${restored.tornTail ? ' (a torn last write was dropped)' : ''}`}`,
  )
  if (sandbox.live !== null && live !== undefined) {
    const mode = sandbox.live
    lines.push(
      `pay sandbox LIVE mode (real transfers on the chains below, verified on the chain) on the same URL`,
      `  Api-Key:      ${mode.apiKey}`,
      `  Merchant-Id:  ${mode.merchantId}`,
      `  App-Id:       ${mode.appId}`,
      ...live.lines,
      ...Object.entries(live.live.evm ?? {}).map(
        ([chain, entry]) => `  ${chain}: ${entry.rpcUrl}, ${entry.token.symbol} ${entry.token.address}`,
      ),
      ...(live.live.solana === undefined
        ? []
        : [`  solana:localnet: ${live.live.solana.rpcUrl}, SPL mint ${live.live.solana.mint}`]),
      `  treasury:     ${mode.treasury.evm} / ${mode.treasury.solana} (buyers pay it; it settles to merchants)`,
      `  settlement:   register a destination per asset: POST /v1/merchants/<id>/settlements/crypto with the live key`,
    )
  }
  if (parsed.faults !== undefined) lines.push(`  faults:       ${JSON.stringify(sandbox.faults.plan())}`)
  process.stdout.write(`${lines.join('\n')}\nCtrl-C to stop.\n`)
  await new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGINT', done)
      process.off('SIGTERM', done)
      resolve()
    }
    process.once('SIGINT', done)
    process.once('SIGTERM', done)
  })
  await sandbox.stop()
  await live?.started?.stop()
  process.stdout.write('pay sandbox stopped\n')
  return 0
}
