// `wallet-rpc conformance [MODULE] [--filter TEXT] [--vectors DIR] [--offline]`
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import type { CaseResult, HandlerFactory } from '../conformance/index.js'
import { UsageError } from './options.js'

export const conformanceUsage = `wallet-rpc conformance [MODULE] [options]

Runs the conformance vectors (test-vectors/<namespace>/*.json) against a wallet and prints one line per case:
PASS, FAIL with the reason, or PENDING (not run, never counted as passed). Exit code 1 on any failure.

Wallet under test (default: the built-in handler):
  MODULE                   a file or package exporting createHandler(config) (named or default)

Options:
  --filter TEXT            only cases whose label contains TEXT (e.g. bip122/signPsbt)
  --vectors DIR            vector folder (default: the package's test-vectors/)
  --offline                do not start local chains; cases that need one are reported PENDING
  -h, --help               this text
`

const marks = { pass: 'PASS', fail: 'FAIL', pending: 'PENDING' } as const

/**
 * Runs every vector in test-vectors/ against the built-in handler, or against MODULE's `createHandler`
 * (named or default export): `(config) => ((request) => Promise<response>) | { handle, close? }`.
 * Prints one line per case and `N passed, N failed`; exit code 1 on any failure.
 */
export async function runConformanceCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      filter: { type: 'string' },
      vectors: { type: 'string' },
      offline: { type: 'boolean' },
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
  const { loadVectors, runConformance } = await import('../conformance/index.js')
  const createHandler = positionals[0] === undefined ? undefined : await loadFactory(positionals[0])
  const vectors = loadVectors(values.vectors === undefined ? undefined : resolve(values.vectors))
  const print = (result: CaseResult) => {
    const reason = result.reason === undefined ? '' : `  — ${result.reason}`
    process.stdout.write(`${marks[result.outcome].padEnd(7)} ${result.label} (${result.ms} ms)${reason}\n`)
  }
  const stray = straysOfTheWallet()
  let summary: Awaited<ReturnType<typeof runConformance>>
  try {
    summary = await runConformance({
      vectors,
      onResult: print,
      ...(createHandler ? { createHandler } : {}),
      ...(values.filter === undefined ? {} : { filter: values.filter }),
      ...(values.offline ? { skipChains: true } : {}),
    })
  } finally {
    await stray.stop()
  }
  const pending = summary.pending > 0 ? `, ${summary.pending} pending (not run, not passed)` : ''
  const strays = stray.count > 0 ? `, ${stray.count} errors thrown outside any request` : ''
  process.stdout.write(`${summary.passed} passed, ${summary.failed} failed${pending}${strays}\n`)
  return summary.failed > 0 || stray.count > 0 || summary.results.length === 0 ? 1 : 0
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
