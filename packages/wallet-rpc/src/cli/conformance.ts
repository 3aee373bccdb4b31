// `wallet-rpc conformance [MODULE | --exec CMD] [--filter TEXT] [--vectors DIR] [--offline] [--timeout S]
//  [--json FILE] [--junit FILE]`
import { existsSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import type { CaseResult, HandlerFactory, RunSummary, WalletConnectOptions } from '../conformance/index.js'
import { UsageError } from './options.js'

export const conformanceUsage = `wallet-rpc conformance [MODULE | --exec "CMD ARGS"] [options]

Runs the conformance vectors (test-vectors/<namespace>/*.json) against a wallet and prints one line per case.

Wallet under test (default: the built-in handler):
  MODULE                   a file or package exporting createHandler(config) (named or default)
  --exec "CMD ARGS"        any program speaking wallet-rpc-conformance-exec/1 on stdin/stdout (one JSON line
                           in, one line out; see test-vectors/README.md), e.g. --exec "wallet-rpc handle --conformance"
  --walletconnect          act as a dapp: print a wc: pairing URI and its QR code, wait for any wallet app to
                           approve, then run the cases that work with any keys, verified against the accounts
                           and session properties it announced (needs @walletconnect/sign-client; qrcode for the QR)
  --relay URL              the WalletConnect relay (default the public relay, which needs --project-id)
  --project-id ID          a Reown Cloud project id (or env WALLETCONNECT_PROJECT_ID)
  --approval-timeout SECONDS  longest wait for the wallet to approve the session (default 300): then exit code 2

Options:
  --filter TEXT            only cases whose label contains TEXT (e.g. bip122/signPsbt)
  --vectors DIR            vector folder (default: the package's test-vectors/)
  --offline                do not start local chains; cases that need one are reported PENDING
  --timeout SECONDS        longest wait for the wallet in one case (default 60): then TIMEOUT, and the run goes on
  --json FILE              write one record per case (id, method, transport, verdict, expected, got, duration,
                           the spec clause it checks)
  --junit FILE             write JUnit XML for CI systems
  -h, --help               this text

Verdicts: PASS the answer meets the case; FAIL it does not (the reason follows); TIMEOUT no answer in time;
PENDING not run (a local chain is unavailable, or --offline). Only PASS counts as passed.
Exit code: 0 when nothing failed or timed out, 1 otherwise, 2 for bad usage or a MODULE that cannot load.
`

/**
 * Runs every vector in test-vectors/ against the built-in handler, MODULE's `createHandler` (named or default
 * export) or an exec program. Prints one line per case and the totals; exit code 1 on any failure or timeout.
 */
export async function runConformanceCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      filter: { type: 'string' },
      vectors: { type: 'string' },
      offline: { type: 'boolean' },
      exec: { type: 'string' },
      walletconnect: { type: 'boolean' },
      relay: { type: 'string' },
      'project-id': { type: 'string' },
      'approval-timeout': { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'string' },
      junit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  })
  if (values.help) {
    process.stdout.write(conformanceUsage)
    return 0
  }
  if (positionals.length > 1) throw new UsageError('conformance takes at most one MODULE')
  const transports = [positionals.length > 0, values.exec !== undefined, values.walletconnect === true]
  if (transports.filter(Boolean).length > 1)
    throw new UsageError('give one of MODULE, --exec, --walletconnect')
  const sessionOptions = [values.relay, values['project-id'], values['approval-timeout']]
  if (!values.walletconnect && sessionOptions.some((value) => value !== undefined)) {
    throw new UsageError('--relay, --project-id and --approval-timeout go with --walletconnect')
  }
  if (values.exec !== undefined && values.exec.trim() === '') throw new UsageError('--exec needs a command')
  const timeoutMs = values.timeout === undefined ? undefined : secondsToMs(values.timeout, '--timeout')
  const approvalTimeoutMs =
    values['approval-timeout'] === undefined
      ? undefined
      : secondsToMs(values['approval-timeout'], '--approval-timeout')
  const { execTransport, jsonReport, junitReport, loadVectors, runConformance, verdictNames } = await import(
    '../conformance/index.js'
  )
  const exec = values.exec === undefined ? undefined : execTransport(values.exec)
  const createHandler =
    exec?.createHandler ?? (positionals[0] === undefined ? undefined : await loadFactory(positionals[0]))
  const transport = values.walletconnect
    ? 'walletconnect'
    : exec
      ? 'exec'
      : positionals[0] === undefined
        ? 'builtin'
        : 'module'
  const vectors = loadVectors(values.vectors === undefined ? undefined : resolve(values.vectors))
  const print = (result: CaseResult) => {
    const reason = result.reason === undefined ? '' : `  — ${result.reason}`
    const mark = verdictNames[result.outcome].padEnd(7)
    process.stdout.write(`${mark} ${result.label} (${result.ms} ms)${reason}\n`)
  }
  const stray = straysOfTheWallet()
  let summary: Awaited<ReturnType<typeof runConformance>>
  try {
    const common = {
      vectors,
      onResult: print,
      ...(values.filter === undefined ? {} : { filter: values.filter }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    }
    summary = values.walletconnect
      ? await runWalletConnect(common, {
          relayUrl: values.relay,
          projectId: values['project-id'] ?? process.env.WALLETCONNECT_PROJECT_ID,
          approvalTimeoutMs,
        })
      : await runConformance({
          ...common,
          ...(createHandler ? { createHandler } : {}),
          ...(values.offline ? { skipChains: true } : {}),
        })
  } finally {
    await exec?.stop()
    await stray.stop()
  }
  if (values.json !== undefined) {
    writeFileSync(values.json, `${JSON.stringify(jsonReport(summary, transport), null, 2)}\n`)
  }
  if (values.junit !== undefined) writeFileSync(values.junit, junitReport(summary, transport))
  const pending = summary.pending > 0 ? `, ${summary.pending} pending (not run, not passed)` : ''
  const timedOut = summary.timedOut > 0 ? `, ${summary.timedOut} timed out` : ''
  const strays = stray.count > 0 ? `, ${stray.count} errors thrown outside any request` : ''
  process.stdout.write(`${summary.passed} passed, ${summary.failed} failed${timedOut}${pending}${strays}\n`)
  const bad = summary.failed + summary.timedOut + stray.count
  return bad > 0 || summary.results.length === 0 ? 1 : 0
}

/** The WalletConnect run: the pairing URI and its QR code on stdout, then one line per case as usual. */
async function runWalletConnect(
  common: Pick<WalletConnectOptions, 'vectors' | 'onResult' | 'filter' | 'timeoutMs'>,
  session: {
    relayUrl: string | undefined
    projectId: string | undefined
    approvalTimeoutMs: number | undefined
  },
): Promise<RunSummary> {
  const { relayUrl, projectId, approvalTimeoutMs } = session
  const { runOverWalletConnect, TransportError } = await import('../conformance/index.js')
  try {
    return await runOverWalletConnect({
      ...common,
      ...(relayUrl === undefined ? {} : { relayUrl }),
      ...(projectId === undefined ? {} : { projectId }),
      ...(approvalTimeoutMs === undefined ? {} : { approvalTimeoutMs }),
      onUri: async (uri) => {
        process.stdout.write(`Pair your wallet with this URI (or scan the QR code):\n\n${uri}\n\n`)
        process.stdout.write(`${await terminalQr(uri)}\nWaiting for the wallet to approve the session…\n\n`)
      },
    })
  } catch (error) {
    // No session (no approval in time, a relay that refuses, a missing SDK): a usage-level failure.
    if (error instanceof TransportError) throw new UsageError(error.message)
    throw error
  }
}

/** The URI as a QR code of terminal characters; without the optional `qrcode` package, a hint instead. */
async function terminalQr(uri: string): Promise<string> {
  try {
    const name = 'qrcode'
    const qrcode = (await import(name)) as {
      toString(text: string, options: { type: 'terminal'; small: boolean }): Promise<string>
    }
    return await qrcode.toString(uri, { type: 'terminal', small: true })
  } catch {
    return '(install the npm package qrcode to see the URI as a QR code here)\n'
  }
}

function secondsToMs(text: string, option: string): number {
  const seconds = Number(text)
  if (!/^\d+(\.\d+)?$/.test(text) || seconds <= 0 || seconds > 86_400) {
    throw new UsageError(`${option} takes seconds, more than 0 and at most 86400`)
  }
  return Math.round(seconds * 1000)
}

/**
 * A wallet module's stray errors (a timer that throws, a promise nobody awaits) would end the process with a
 * stack trace: they are reported on one line each, counted as a failure, and the run goes on.
 */
function straysOfTheWallet(): { readonly count: number; stop(): Promise<void> } {
  let count = 0
  const report = (error: unknown) => {
    count++
    process.stderr.write(`wallet-rpc conformance: the wallet threw outside a request: ${firstLine(error)}\n`)
  }
  process.on('uncaughtException', report)
  process.on('unhandledRejection', report)
  return {
    get count() {
      return count
    },
    async stop() {
      // The last case's timers still fire: one more turn of the event loop before listening stops.
      await new Promise((resolve) => setTimeout(resolve, 10))
      process.off('uncaughtException', report)
      process.off('unhandledRejection', report)
    },
  }
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error)
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .join(' ')
      .slice(0, 300) || 'no message'
  )
}

async function loadFactory(specifier: string): Promise<HandlerFactory> {
  // A path to a file (relative to the working directory), else a package name.
  const url = existsSync(resolve(specifier)) ? pathToFileURL(resolve(specifier)).href : specifier
  let module: Record<string, unknown>
  try {
    module = (await import(url)) as Record<string, unknown>
  } catch (error) {
    throw new UsageError(`cannot load ${specifier}: ${firstLine(error)}`)
  }
  const factory = module.createHandler ?? module.default
  if (typeof factory !== 'function') {
    throw new UsageError(`${specifier} exports no createHandler(config) function (named or default)`)
  }
  return factory as HandlerFactory
}
