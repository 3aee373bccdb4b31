// The exec line protocol `wallet-rpc-conformance-exec/1` (specified in test-vectors/README.md): the runner
// writes one JSON object per line on the wallet program's stdin, the program answers each with one line.
import type { ConformanceRequest } from './handler.js'
import type { WalletConfig } from './vectors.js'

export const execProtocol = 'wallet-rpc-conformance-exec/1'

/** Runner → wallet. A request line is exactly a `wallet-rpc handle` line. */
export type ExecLine =
  | { exec: typeof execProtocol; config: WalletConfig }
  | { sessionProperties: true }
  | { sync: number }
  | ConformanceRequest

/** Wallet → runner, one per line received, in order. */
export type ExecAnswer =
  | { ready: true }
  | { ready: false; error: string }
  | { sessionProperties: Record<string, string> }
  | { sync: number }
  | Record<string, unknown> // the JSON-RPC response to a request line

export type ExecLineKind = 'config' | 'sessionProperties' | 'sync' | 'request'

export function kindOfLine(line: Record<string, unknown>): ExecLineKind | undefined {
  if ('exec' in line) return 'config'
  if ('sessionProperties' in line) return 'sessionProperties'
  if ('sync' in line) return 'sync'
  if ('request' in line && 'chainId' in line) return 'request'
  return undefined
}
