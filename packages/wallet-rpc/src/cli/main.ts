#!/usr/bin/env node
import { importOptional, MissingPackageError } from '../conformance/optionalPackage.js'
import { createCliWallet } from '../walletFromOptions/wallet.js'
import { serveJsonLines } from './handle.js'
import { parseWalletOptions, redactSecrets, UsageError, type WalletCliOptions } from './options.js'

const usage = `wallet-rpc <command> [options]

Commands:
  handle        JSON lines {chainId, request, origin?} on stdin -> one JSON-RPC response per line on stdout
  properties    print the session properties JSON object
  conformance   [MODULE | --exec CMD | --walletconnect] [options] run test-vectors/ against the built-in
                handler, a MODULE's createHandler, any program speaking the exec protocol, or a wallet app
                over WalletConnect (see conformance --help)
  demo          [--no-payment] start local chains, play a dapp session over every method, verify every answer
  pay-sandbox   [--port N] run the test-mode payment service on 127.0.0.1

Every command answers --help.

Key options (handle, properties):
  --mnemonic-file F        BIP-39 mnemonic for bip122 and eip155 (or env WALLET_RPC_MNEMONIC)
  --ton-mnemonic-file F    TON 24-word mnemonic (or env WALLET_RPC_TON_MNEMONIC); without it TON answers 5100
  --ton-wallet v4r2|v5r1   TON wallet contract (default v5r1)
  --account N              account index (default 0): bip122 account N', eip155 address index in
                           m/44'/60'/0'/0/N, TON subwallet N
  --approve all|none       answer every approval: reviews, wallet_watchAsset, wallet_addEthereumChain (a chain
                           added serves until the process ends); no TTY and no flag = none
  --now UNIX_SECONDS       fixed clock for reproducible outputs
  --esplora CHAIN=URL      bip122 chain provider (Esplora HTTP API)
  --ord CHAIN=URL          bip122 assets index (ord server JSON API): sendTransfer never spends coins with
                           inscriptions, runes or rare sats; signPsbt's review says where they go
  --toncenter CHAIN=URL    ton chain provider (toncenter v2 API; API key from env TONCENTER_API_KEY)
  --rpc CHAIN=URL          eip155 chain provider (JSON-RPC endpoint)
  --delegate eip155:ID=ADDRESS
                           EIP-7702 delegate (ERC-7821 executor) for atomic wallet_sendCalls on that chain
`

const walletOptionsHelp = usage.slice(usage.indexOf('Key options'))
const handleUsage = `wallet-rpc handle [options]

Reads JSON lines {chainId, request, origin?} on stdin and writes one JSON-RPC response per line on stdout, in
order. A line that is not JSON answers -32700 and the next line is still read.

  --conformance            speak the conformance exec protocol instead (wallet-rpc-conformance-exec/1, see
                           test-vectors/README.md): the runner configures the wallet, so no other option applies

${walletOptionsHelp}`
const propertiesUsage = `wallet-rpc properties [options]

Prints the session properties JSON object (ton_getPublicKey, ton_getStateInit, bip122_getAccountAddresses…).

${walletOptionsHelp}`
const demoUsage = `wallet-rpc demo [--no-payment]

Starts anvil, the TON sandbox and the Bitcoin regtest chain on 127.0.0.1, plays a dapp session over every
method, verifies every answer with wallet-rpc/verify and prints a table. Exit code 0 only when all verified.

  --no-payment             skip the payment flow against the local pay sandbox
`

/** Per-command usage for `wallet-rpc <command> --help` (conformance and pay-sandbox answer it themselves). */
const commandUsage: Record<string, string> = {
  handle: handleUsage,
  properties: propertiesUsage,
  demo: demoUsage,
}

type Command = (argv: string[]) => Promise<number>

const commands: Record<string, Command> = {
  async handle(argv) {
    if (argv.includes('--conformance')) {
      if (argv.length > 1)
        throw new UsageError('--conformance takes no other option: the runner configures the wallet')
      const { createBuiltinHandler, serveConformanceExec } = await import('../conformance/index.js')
      await serveConformanceExec(createBuiltinHandler, process.stdin, process.stdout)
      return 0
    }
    const options = parseWalletOptions(argv, process.env, process.stdin.isTTY === true)
    const wallet = await createCliWallet(options, reporterFor(options))
    await serveJsonLines(wallet, process.stdin, process.stdout)
    await wallet.close()
    return 0
  },
  async properties(argv) {
    const options = parseWalletOptions(argv, process.env, process.stdin.isTTY === true)
    const wallet = await createCliWallet(options, reporterFor(options))
    process.stdout.write(`${JSON.stringify(await wallet.sessionProperties(), null, 2)}\n`)
    await wallet.close()
    return 0
  },
  async conformance(argv) {
    const { runConformanceCommand } = await import('./conformance.js')
    return runConformanceCommand(argv)
  },
  async demo(argv) {
    const { runDemoCommand } = await importOptional<{ runDemoCommand: Command }>(
      '@wallet-rpc/devchains/demo',
      'the demo and its local chains live in the private @wallet-rpc/devchains workspace; run it from a ' +
        'checkout of the wallet-rpc repository: `npm ci && npm run demo`',
    )
    return runDemoCommand(argv)
  },
  async 'pay-sandbox'(argv) {
    const { runPaySandboxCommand } = await importOptional<{ runPaySandboxCommand: Command }>(
      '@wallet-rpc/pay-sandbox/cli',
      'the payment sandbox is its own package: `npm install @wallet-rpc/pay-sandbox`',
    )
    return runPaySandboxCommand(argv)
  },
}

/**
 * Unexpected errors go to stderr as the error's name and first message line: no stack, no params, and
 * never the mnemonics this process holds, even if a library quoted them.
 */
function reporterFor(options: WalletCliOptions): (error: unknown) => void {
  return (error) => {
    const text = error instanceof Error ? `${error.name}: ${error.message}` : 'non-error thrown'
    const line = redactSecrets(text.split('\n')[0] ?? '', [options.mnemonic, options.tonMnemonic])
    process.stderr.write(`wallet-rpc: ${line}\n`)
  }
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === '--help' || name === '-h') {
    process.stdout.write(usage)
    return 0
  }
  if (name === undefined || !Object.hasOwn(commands, name)) {
    process.stderr.write(usage)
    return 2
  }
  const help = commandUsage[name]
  if (help !== undefined && (rest.includes('--help') || rest.includes('-h'))) {
    process.stdout.write(help)
    return 0
  }
  try {
    return await commands[name]!(rest)
  } catch (error) {
    // By name: the pay sandbox's command throws its own package's UsageError.
    if (
      (error instanceof Error && (error.name === 'UsageError' || error instanceof MissingPackageError)) ||
      (error instanceof TypeError && 'code' in error)
    ) {
      process.stderr.write(`wallet-rpc ${name}: ${error.message}\n`)
      return 2
    }
    throw error
  }
}

process.exitCode = await main(process.argv.slice(2))
