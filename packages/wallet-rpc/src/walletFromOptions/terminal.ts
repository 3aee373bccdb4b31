import { openSync } from 'node:fs'
import { createInterface } from 'node:readline/promises'
import { ReadStream } from 'node:tty'

/**
 * Shows `details` on stderr and reads y/N from the controlling terminal (stdin carries the requests): the
 * CLI's `--approve prompt` (a TTY and no flag) for reviews, chains to add and tokens to watch alike.
 */
export async function askOnTerminal(details: unknown, question: string): Promise<boolean> {
  const input = new ReadStream(openSync('/dev/tty', 'r'))
  const terminal = createInterface({ input, output: process.stderr })
  try {
    process.stderr.write(`${JSON.stringify(details, null, 2)}\n`)
    const answer = await terminal.question(`${question} [y/N] `)
    return /^y(es)?$/i.test(answer.trim())
  } finally {
    terminal.close()
    input.destroy()
  }
}

/** What `--approve` answers a question the wallet asks its user: `all` yes, `none` no, `prompt` the terminal's. */
export function answererFor(
  mode: 'all' | 'none' | 'prompt',
): (details: unknown, question: string) => boolean | Promise<boolean> {
  if (mode === 'all') return () => true
  if (mode === 'none') return () => false
  return askOnTerminal
}
