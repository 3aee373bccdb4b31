// Recorded emulator answers (recorded/*.json: each names its source, commit and license) as the providers
// receive them.
import { readFileSync } from 'node:fs'

// biome-ignore lint/suspicious/noExplicitAny: recorded answers are free-form JSON.
export type Json = Record<string, any>

export type Recorded = {
  /** The wallet the trace was recorded for, raw upper-case as toncenter writes it. */
  wallet: string
  /** The answer as the emulator endpoint gives it. */
  answer: Json
}

/** The raw form our parsers return (`0:<lower-case hex>`). */
export const key = (raw: string) => raw.toLowerCase()

/**
 * A recorded answer. A toncenter API v3 `/traces` answer becomes the emulator's shape (ton-emulate-go
 * `EmulateTraceResponse`): the same `trace`, `transactions`, `actions`, `metadata` and `address_book`, no value
 * changed.
 */
export function recorded(name: string): Recorded {
  const file = JSON.parse(readFileSync(new URL(`./recorded/${name}.json`, import.meta.url), 'utf8')) as Json
  const answer = file.answer as Json
  if (!Array.isArray(answer.traces)) return { wallet: file.wallet, answer }
  const trace = answer.traces[0] as Json
  return {
    wallet: file.wallet,
    answer: {
      mc_block_seqno: Number(trace.mc_seqno_end),
      trace: trace.trace,
      transactions: trace.transactions,
      actions: trace.actions ?? [],
      address_book: answer.address_book,
      metadata: answer.metadata,
      rand_seed: '',
      is_incomplete: trace.is_incomplete === true,
    },
  }
}

/**
 * The answer with the recorded wallet's address replaced by `wallet` (raw), in every spelling the emulators
 * use (upper-case toncenter, lower-case tonapi), so a namespace test's own wallet is the one the trace is about.
 */
export function readdressed({ wallet, answer }: Recorded, to: string): Json {
  const [, hex] = wallet.split(':')
  const [, ourHex] = to.split(':')
  return JSON.parse(
    JSON.stringify(answer)
      .replaceAll(hex!.toUpperCase(), ourHex!.toUpperCase())
      .replaceAll(hex!.toLowerCase(), ourHex!.toLowerCase()),
  )
}
