#!/usr/bin/env node
import { serveJsonLines } from './handle.js'
import { parseWalletOptions, redactSecrets, UsageError, type WalletCliOptions } from './options.js'
import { createCliWallet } from './wallet.js'

const usage = `wallet-rpc <command> [options]

Commands:
  handle        JSON lines {chainId, request, origin?} on stdin -> one JSON-RPC response per line on stdout
  properties    print the session properties JSON object
  conformance   [MODULE] [--filter T] [--offline] run test-vectors/ against the built-in handler or MODULE's
  demo          [--no-payment] start local chains, play a dapp session over every method, verify every answer
  pay-sandbox   [--port N] run the test-mode payment service on 127.0.0.1

Key options (handle, properties):
  --mnemonic-file F        BIP-39 mnemonic for bip122 and eip155 (or env WALLET_RPC_MNEMONIC)
  --ton-mnemonic-file F    TON 24-word mnemonic (or env WALLET_RPC_TON_MNEMONIC); without it TON answers 5100
  --ton-wallet v4r2|v5r1   TON wallet contract (default v5r1)
  --account N              account index (default 0): bip122 account N', eip155 address index in
                           m/44'/60'/0'/0/N, TON subwallet N
  --approve all|none       answer every approval (no TTY and no flag = none)
  --now UNIX_SECONDS       fixed clock for reproducible outputs
  --esplora CHAIN=URL      bip122 chain provider (Esplora HTTP API)
  --toncenter CHAIN=URL    ton chain provider (toncenter v2 API; API key from env TONCENTER_API_KEY)
  --rpc CHAIN=URL          eip155 chain provider (JSON-RPC endpoint)
`

type Command = (argv: string[]) => Promise<number>

const commands: Record<string, Command> = {
  async handle(argv) {
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
    const { runDemoCommand } = await import('./demo.js')
    return runDemoCommand(argv)
  },
  async 'pay-sandbox'(argv) {
    const { runPaySandboxCommand } = await import('./paySandbox.js')
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
  if (name === undefined || name === '--help' || name === '-h' || !Object.hasOwn(commands, name)) {
    process.stderr.write(usage)
    return name === '--help' || name === '-h' ? 0 : 2
  }
  try {
    return await commands[name]!(rest)
  } catch (error) {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      process.stderr.write(`wallet-rpc ${name}: ${error.message}\n`)
      return 2
    }
    throw error
  }
}

process.exitCode = await main(process.argv.slice(2))
