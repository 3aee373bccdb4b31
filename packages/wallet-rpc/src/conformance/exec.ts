// The runner side of `wallet-rpc-conformance-exec/1`: any program, in any language, that reads JSON lines on
// stdin and answers each with one line on stdout. One process serves the run; a configuration line before each
// case rebuilds its wallet. A process that exits, or is stopped after a timeout, is started again for the
// next case.
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { type ExecLine, execProtocol } from './execProtocol.js'
import {
  type ConformanceRequest,
  type HandlerFactory,
  type HandlerObject,
  TransportError,
} from './handler.js'
import type { WalletConfig } from './vectors.js'

export type ExecTransport = {
  createHandler: HandlerFactory
  /** Ends the wallet process (the run's end). */
  stop(): Promise<void>
}

/** `command` runs through the shell, as typed: `--exec "python3 wallet.py --testnet"`. */
export function execTransport(command: string, options: { cwd?: string } = {}): ExecTransport {
  let process: WalletProcess | undefined
  let syncCounter = 0
  const current = () => {
    // A process still owing an answer (the case timed out) would answer the next case with a stale line.
    if (process?.busy) process.kill()
    if (process === undefined || process.exited !== undefined) process = startWallet(command, options.cwd)
    return process
  }
  return {
    async createHandler(config: WalletConfig): Promise<HandlerObject> {
      const wallet = current()
      const ready = await wallet.ask({ exec: execProtocol, config }, 'the configuration line')
      if (!isRecord(ready) || ready.ready !== true) {
        const why = isRecord(ready) && typeof ready.error === 'string' ? ready.error : short(ready)
        throw new TransportError(`the wallet refused the configuration line: ${why}`)
      }
      return {
        async handle(input: ConformanceRequest) {
          const answer = await wallet.ask(input, 'the request')
          // A sync line after each request: any line before its echo is a second answer to the request.
          const sync = ++syncCounter
          const extra: unknown[] = []
          for (;;) {
            const line = await wallet.ask(extra.length === 0 ? { sync } : undefined, 'the sync line')
            if (isRecord(line) && line.sync === sync && Object.keys(line).length === 1) break
            extra.push(line)
          }
          if (extra.length > 0) {
            throw new TransportError(
              `the wallet answered one request ${extra.length + 1} times (then ${short(extra[0])})`,
            )
          }
          return answer
        },
        async sessionProperties() {
          const answer = await wallet.ask({ sessionProperties: true }, 'the sessionProperties line')
          if (!isRecord(answer) || !isRecord(answer.sessionProperties)) {
            throw new TransportError(`the sessionProperties answer is ${short(answer)}`)
          }
          return answer.sessionProperties as Record<string, string>
        },
        abort() {
          // It timed out: its state is unknown, so the next case gets a fresh process.
          wallet.kill()
        },
      }
    },
    async stop() {
      await process?.end()
    },
  }
}

type WalletProcess = {
  /** Writes `line` (unless undefined: only reads) and resolves with the next line the wallet writes. */
  ask(line: ExecLine | undefined, what: string): Promise<unknown>
  exited: string | undefined
  /** An ask is waiting for its line. */
  busy: boolean
  kill(): void
  end(): Promise<void>
}

function startWallet(command: string, cwd: string | undefined): WalletProcess {
  // Its own process group, so a shell's children die with it.
  const child: ChildProcess = spawn(command, {
    shell: true,
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  })
  const queued: string[] = []
  let waiting: ((line: string | undefined) => void) | undefined
  const stderrTail: string[] = []
  const state = { exited: undefined as string | undefined, busy: false }
  createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) => {
    if (line.trim() === '') return
    if (waiting) {
      const resolve = waiting
      waiting = undefined
      resolve(line)
    } else queued.push(line)
  })
  createInterface({ input: child.stderr! }).on('line', (line) => {
    stderrTail.push(line)
    if (stderrTail.length > 5) stderrTail.shift()
  })
  const exitedPromise = new Promise<void>((resolve) => {
    const onEnd = (why: string) => {
      state.exited ??= why
      waiting?.(undefined)
      waiting = undefined
      resolve()
    }
    child.on('exit', (code, signal) => onEnd(signal ? `was stopped (${signal})` : `exited with code ${code}`))
    child.on('error', (error) => onEnd(`could not start: ${error.message}`))
  })
  child.stdin!.on('error', () => {
    // EPIPE when the wallet closed its stdin: reported as the exit.
  })
  const nextLine = () =>
    queued.length > 0
      ? Promise.resolve(queued.shift())
      : state.exited !== undefined
        ? Promise.resolve(undefined)
        : new Promise<string | undefined>((resolve) => {
            waiting = resolve
          })
  const kill = () => {
    if (state.exited !== undefined || child.pid === undefined) return
    // Gone from now on, for the next case too, even before the exit event arrives.
    state.exited = 'was stopped'
    waiting?.(undefined)
    waiting = undefined
    try {
      globalThis.process.kill(-child.pid, 'SIGKILL')
    } catch {
      child.kill('SIGKILL')
    }
  }
  return {
    get exited() {
      return state.exited
    },
    get busy() {
      return state.busy
    },
    async ask(line, what) {
      if (line !== undefined && state.exited === undefined) child.stdin!.write(`${JSON.stringify(line)}\n`)
      state.busy = true
      const text = await nextLine()
      state.busy = false
      if (text === undefined) {
        const tail = stderrTail.length > 0 ? `; its stderr ends: ${stderrTail.at(-1)}` : ''
        throw new TransportError(
          `the wallet process ${state.exited ?? 'ended'} before answering ${what}${tail}`,
        )
      }
      try {
        return JSON.parse(text)
      } catch {
        throw new TransportError(`the wallet answered ${what} with a line that is not JSON: ${short(text)}`)
      }
    },
    kill,
    async end() {
      child.stdin!.end()
      const timer = setTimeout(kill, 5_000)
      await exitedPromise
      clearTimeout(timer)
    },
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))
  return text.length > 120 ? `${text.slice(0, 117)}...` : text
}
