import { openSync } from 'node:fs'
import { createInterface } from 'node:readline/promises'
import { ReadStream } from 'node:tty'
import { printableLine } from '../core/text.js'

/** Characters of each text the terminal shows before cutting it: enough for a review line, not a flood. */
const maxShownLength = 1000

/**
 * `details` as JSON for the terminal, each text in it as one bounded line with hidden characters written
 * out: JSON leaves U+202E and zero-width characters as they are, and a dapp chose the chain's name, its
 * URLs and the message under review.
 */
export function terminalText(details: unknown): string {
  return JSON.stringify(
    details,
    (_key, value: unknown) => (typeof value === 'string' ? printableLine(value, maxShownLength) : value),
    2,
  )
}

/**
 * Shows `details` on stderr and reads y/N from the controlling terminal (stdin carries the requests): the
 * CLI's `--approve prompt` (a TTY and no flag) for reviews, chains to add and tokens to watch alike.
 */
export async function askOnTerminal(details: unknown, question: string): Promise<boolean> {
  const input = new ReadStream(openSync('/dev/tty', 'r'))
  const terminal = createInterface({ input, output: process.stderr })
  try {
    process.stderr.write(`${terminalText(details)}\n`)
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
