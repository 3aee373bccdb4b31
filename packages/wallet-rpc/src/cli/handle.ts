import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { ParseError } from '../core/errors.js'
import { failure } from '../core/jsonrpc.js'
import type { WalletRpc } from '../createWalletRpc.js'

/**
 * `wallet-rpc handle`: JSON lines in, one JSON-RPC response per line out, in order. A line that is not
 * JSON answers -32700 with id null and the next line is still read. Blank lines are skipped.
 */
export async function serveJsonLines(wallet: WalletRpc, input: Readable, output: Writable): Promise<void> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })
  for await (const line of lines) {
    if (line.trim() === '') continue
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      output.write(`${JSON.stringify(failure(null, new ParseError()))}\n`)
      continue
    }
    output.write(`${JSON.stringify(await wallet.handle(parsed))}\n`)
  }
}
