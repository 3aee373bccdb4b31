// `wallet-rpc demo`: starts anvil, the @ton/sandbox emulator and the embedded validating Bitcoin regtest chain,
// plays a dapp session over every method of every namespace, verifies each answer with wallet-rpc/verify and
// prints a table. Exit code 0 only when every answer verified.
import { parseArgs } from 'node:util'
import type { DemoRow } from './demo/session.js'

const columns = { method: 50, chain: 40, verified: 9 }

export async function runDemoCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { 'no-payment': { type: 'boolean' } }, strict: true })
  const started = performance.now()
  process.stdout.write(
    'wallet-rpc demo: starting anvil, the TON sandbox and the Bitcoin regtest chain on 127.0.0.1…\n\n',
  )
  process.stdout.write(`${header()}\n`)
  const { runDemoSession } = await import('./demo/session.js')
  let rows: DemoRow[]
  try {
    rows = await runDemoSession({
      onRow: (row) => process.stdout.write(`${line(row)}\n`),
      ...(values['no-payment'] ? { skipPayment: true } : {}),
    })
  } catch (error) {
    // Chains that cannot start here (e.g. anvil's binary missing): say which, no stack.
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error)
    process.stderr.write(`wallet-rpc demo: ${message}\n`)
    return 1
  }
  const failed = rows.filter((row) => !row.verified)
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  process.stdout.write(
    `\n${rows.length - failed.length} of ${rows.length} answers verified with wallet-rpc/verify in ${seconds} s` +
      `${failed.length > 0 ? ` — ${failed.length} NOT verified` : ''}\n`,
  )
  return failed.length === 0 && rows.length > 0 ? 0 : 1
}

function header(): string {
  const head = `${'method'.padEnd(columns.method)} ${'chain'.padEnd(columns.chain)} ${'verified'.padEnd(columns.verified)} time`
  return `${head}\n${'-'.repeat(head.length + 6)}`
}

function line(row: DemoRow): string {
  const mark = row.verified ? 'yes' : 'NO'
  const note = row.note ? `  ${row.note}` : ''
  return `${row.method.padEnd(columns.method)} ${row.chain.padEnd(columns.chain)} ${mark.padEnd(columns.verified)} ${`${row.ms} ms`.padStart(7)}${note}`
}
