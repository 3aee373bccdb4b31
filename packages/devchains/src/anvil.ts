import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

/** A running anvil node on 127.0.0.1. */
export type AnvilInstance = {
  /** HTTP JSON-RPC endpoint, e.g. `http://127.0.0.1:41201`. */
  url: string
  chainId: number
  /** Kills the node and resolves once the process has exited. Safe to call twice. */
  stop(): Promise<void>
}

export type StartAnvilOptions = {
  /** Default 31337. */
  chainId?: number
  /** Default: the `test test … junk` dev mnemonic anvil uses by default. */
  mnemonic?: string
  /** Give up when the node does not answer within this many milliseconds. Default 30 s. */
  timeoutMs?: number
  /** Extra command-line arguments (e.g. `['--block-base-fee-per-gas', '0']`). */
  args?: readonly string[]
}

const npmArch: Record<string, string> = { x64: 'amd64', arm64: 'arm64' }

/**
 * Where the anvil binary shipped by `@foundry-rs/anvil` lives: inside its platform package
 * `@foundry-rs/anvil-<os>-<arch>`. Resolved through the package, never through PATH, so the binary the
 * project pinned is the one that runs.
 */
export function anvilBinaryPath(): string {
  const require = createRequire(import.meta.url)
  const arch = npmArch[process.arch]
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch ?? process.arch}`
  let manifest: string
  try {
    // The meta package's own resolution finds its optional dependency even under nested node_modules.
    const meta = createRequire(require.resolve('@foundry-rs/anvil/package.json'))
    manifest = meta.resolve(`${platformPackage}/package.json`)
  } catch (error) {
    throw new Error(`anvil is not installed: npm install --save-dev @foundry-rs/anvil (${platformPackage})`, {
      cause: error,
    })
  }
  const binary = join(dirname(manifest), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil')
  if (!existsSync(binary)) throw new Error(`anvil binary missing at ${binary}`)
  return binary
}

/**
 * Starts anvil on 127.0.0.1 with an OS-assigned port (`--port 0`, read back from its banner, so no port race),
 * waits until it answers `eth_chainId`, and returns its URL and a `stop()`.
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const chainId = options.chainId ?? 31337
  const timeoutMs = options.timeoutMs ?? 30_000
  const args = ['--host', '127.0.0.1', '--port', '0', '--chain-id', String(chainId)]
  if (options.mnemonic !== undefined) args.push('--mnemonic', options.mnemonic)
  args.push(...(options.args ?? []))
  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'pipe', 'pipe'] })
  // If the host process exits without calling stop(), the node must not outlive it.
  const killOnExit = () => child.kill('SIGKILL')
  process.once('exit', killOnExit)
  const exited = new Promise<void>((resolve) => {
    const done = () => {
      process.off('exit', killOnExit)
      resolve()
    }
    child.once('exit', done)
    // A failed spawn emits 'error' and may never emit 'exit'.
    child.once('error', done)
  })
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  try {
    const port = await listeningPort(child, timeoutMs)
    const url = `http://127.0.0.1:${port}`
    const answered = await rpcChainId(url)
    if (answered !== chainId) throw new Error(`anvil answered chain ${answered}, expected ${chainId}`)
    // Keep draining output so a chatty node never blocks on a full pipe.
    child.stdout?.resume()
    child.stderr?.resume()
    return { url, chainId, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

function listeningPort(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = ''
    const cleanup = () => {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.off('exit', onExit)
      child.off('error', onError)
    }
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8')
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output)
      if (match) {
        cleanup()
        resolve(Number(match[1]))
      }
    }
    const onExit = (code: number | null) => {
      cleanup()
      reject(new Error(`anvil exited with ${code} before listening`))
    }
    const onError = (error: Error) => {
      cleanup()
      reject(new Error(`anvil could not be started: ${error.message}`, { cause: error }))
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`anvil did not start within ${timeoutMs} ms`))
    }, timeoutMs)
    child.stdout?.on('data', onData)
    child.once('exit', onExit)
    child.once('error', onError)
  })
}

async function rpcChainId(url: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
  })
  const body = (await response.json()) as { result?: string }
  if (typeof body.result !== 'string') throw new Error('anvil did not answer eth_chainId')
  return Number(BigInt(body.result))
}
