// `wallet-rpc conformance [MODULE] [--filter TEXT] [--vectors DIR] [--offline]`
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import type { CaseResult, HandlerFactory } from '../conformance/index.js'
import { UsageError } from './options.js'

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
    },
    allowPositionals: true,
    strict: true,
  })
  if (positionals.length > 1) throw new UsageError('conformance takes at most one MODULE')
  const { loadVectors, runConformance } = await import('../conformance/index.js')
  const createHandler = positionals[0] === undefined ? undefined : await loadFactory(positionals[0])
  const vectors = loadVectors(values.vectors === undefined ? undefined : resolve(values.vectors))
  const print = (result: CaseResult) => {
    const reason = result.reason === undefined ? '' : `  — ${result.reason}`
    process.stdout.write(`${marks[result.outcome].padEnd(7)} ${result.label} (${result.ms} ms)${reason}\n`)
  }
  const summary = await runConformance({
    vectors,
    onResult: print,
    ...(createHandler ? { createHandler } : {}),
    ...(values.filter === undefined ? {} : { filter: values.filter }),
    ...(values.offline ? { skipChains: true } : {}),
  })
  const pending = summary.pending > 0 ? `, ${summary.pending} pending (not run, not passed)` : ''
  process.stdout.write(`${summary.passed} passed, ${summary.failed} failed${pending}\n`)
  return summary.failed > 0 || summary.results.length === 0 ? 1 : 0
}

async function loadFactory(specifier: string): Promise<HandlerFactory> {
  // A path to a file (relative to the working directory), else a package name.
  const url = existsSync(resolve(specifier)) ? pathToFileURL(resolve(specifier)).href : specifier
  let module: Record<string, unknown>
  try {
    module = (await import(url)) as Record<string, unknown>
  } catch (error) {
    throw new UsageError(
      `cannot load ${specifier}: ${error instanceof Error ? error.message : 'import failed'}`,
    )
  }
  const factory = module.createHandler ?? module.default
  if (typeof factory !== 'function') {
    throw new UsageError(`${specifier} exports no createHandler(config) function (named or default)`)
  }
  return factory as HandlerFactory
}
