// The wallet side of `wallet-rpc-conformance-exec/1`: `wallet-rpc handle --conformance` serves the built-in
// wallet with it, and any HandlerFactory can be turned into an executable the same way.
import { createInterface } from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import { execProtocol, kindOfLine } from './execProtocol.js'
import {
  asHandlerObject,
  type ConformanceRequest,
  type HandlerFactory,
  type HandlerObject,
} from './handler.js'
import type { WalletConfig } from './vectors.js'

/** Answers every line of `input` with one line on `output`, in order, until `input` ends. */
export async function serveConformanceExec(
  createHandler: HandlerFactory,
  input: Readable,
  output: Writable,
): Promise<void> {
  let handler: HandlerObject | undefined
  const answer = (value: unknown) => output.write(`${JSON.stringify(value)}\n`)
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })
  try {
    for await (const text of lines) {
      if (text.trim() === '') continue
      let line: Record<string, unknown>
      try {
        line = JSON.parse(text)
        if (typeof line !== 'object' || line === null || Array.isArray(line)) throw new Error('not an object')
      } catch {
        answer({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error.' } })
        continue
      }
      switch (kindOfLine(line)) {
        case 'config': {
          await handler?.close?.()
          handler = undefined
          if (line.exec !== execProtocol) {
            answer({
              ready: false,
              error: `unsupported protocol ${String(line.exec)}; this is ${execProtocol}`,
            })
            break
          }
          try {
            handler = asHandlerObject(await createHandler(line.config as WalletConfig))
            answer({ ready: true })
          } catch (error) {
            answer({ ready: false, error: error instanceof Error ? error.message : String(error) })
          }
          break
        }
        case 'sessionProperties':
          answer({ sessionProperties: (await handler?.sessionProperties?.()) ?? {} })
          break
        case 'sync':
          answer({ sync: line.sync })
          break
        case 'request':
          answer(
            handler === undefined
              ? {
                  jsonrpc: '2.0',
                  id: idOf(line),
                  error: { code: -32603, message: 'No configuration line yet.' },
                }
              : await handler.handle(line as ConformanceRequest),
          )
          break
        default:
          answer({ jsonrpc: '2.0', id: idOf(line), error: { code: -32600, message: 'Invalid request.' } })
      }
    }
  } finally {
    await handler?.close?.()
  }
}

function idOf(line: Record<string, unknown>): unknown {
  const request = line.request as { id?: unknown } | undefined
  return request?.id ?? null
}
