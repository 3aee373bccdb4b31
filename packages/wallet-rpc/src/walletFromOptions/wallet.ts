import { openSync } from 'node:fs'
import { createInterface } from 'node:readline/promises'
import { ReadStream } from 'node:tty'
import { fixedClock } from '../core/clock.js'
import type { Namespace } from '../core/namespace.js'
import type { Approve, Review } from '../core/review.js'
import { createWalletRpc, type WalletRpc } from '../createWalletRpc.js'
import { wireBip122 } from './bip122.js'
import { wireEip155 } from './eip155.js'
import type { WalletCliOptions } from './options.js'
import { wireSolana } from './solana.js'
import { wireTon } from './ton.js'

/** The wallet the CLI's `handle` and `properties` serve: one namespace per family whose keys were given. */
export async function createCliWallet(
  options: WalletCliOptions,
  onError: (error: unknown) => void,
): Promise<WalletRpc> {
  const namespaces = (
    await Promise.all([wireBip122(options), wireTon(options), wireEip155(options), wireSolana(options)])
  ).filter((namespace): namespace is Namespace => namespace !== undefined)
  return createWalletRpc({
    namespaces,
    approve: approverFor(options.approve),
    onError,
    ...(options.now === undefined ? {} : { clock: fixedClock(options.now) }),
  })
}

function approverFor(mode: WalletCliOptions['approve']): Approve {
  if (mode === 'all') return () => true
  if (mode === 'none') return () => false
  return promptOnTerminal
}

/** Shows the review on stderr and reads y/N from the controlling terminal (stdin carries the requests). */
async function promptOnTerminal(review: Review): Promise<boolean> {
  const input = new ReadStream(openSync('/dev/tty', 'r'))
  const terminal = createInterface({ input, output: process.stderr })
  try {
    process.stderr.write(`${JSON.stringify(review, null, 2)}\n`)
    const answer = await terminal.question(`Approve ${review.method} on ${review.chainId}? [y/N] `)
    return /^y(es)?$/i.test(answer.trim())
  } finally {
    terminal.close()
    input.destroy()
  }
}
