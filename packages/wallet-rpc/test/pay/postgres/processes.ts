import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import type { ReceiverConfig } from './receiverProcess.js'

/** What a receiver process said, one JSON line each (see receiverProcess.ts). */
export type ReceiverLine = {
  pid: number
  kind: 'listening' | 'handled' | 'start' | 'threw' | 'done'
  port?: number
  eventId?: string
  paymentId?: string
  status?: number
  outcome?: string
  fulfilled?: boolean
}

export type ReceiverProcess = {
  pid: number
  /** Its webhook URL (what the proxy forwards to). */
  url: string
  lines: ReceiverLine[]
  /** Resolves when a line matching `predicate` has been written (rejects if the process exits first). */
  waitFor(predicate: (line: ReceiverLine) => boolean): Promise<ReceiverLine>
  advanceClock(ms: number): Promise<void>
  setHang(hang: boolean): Promise<void>
  kill(): Promise<void>
  /** SIGTERM, and wait for the exit. */
  stop(): Promise<void>
}

const workspace = fileURLToPath(new URL('../../../../../', import.meta.url))
const script = fileURLToPath(new URL('./receiverProcess.ts', import.meta.url))

export async function startReceiverProcess(config: ReceiverConfig): Promise<ReceiverProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(config)], {
    cwd: workspace,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: ReceiverLine[] = []
  const waiters = new Set<() => void>()
  let pending = ''
  let errors = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8')
    const complete = pending.split('\n')
    pending = complete.pop()!
    for (const line of complete) if (line.trim() !== '') lines.push(JSON.parse(line) as ReceiverLine)
    for (const wake of waiters) wake()
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    errors += chunk.toString('utf8')
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  void exited.then(() => {
    for (const wake of waiters) wake()
  })
  const waitFor = (predicate: (line: ReceiverLine) => boolean) =>
    new Promise<ReceiverLine>((resolve, reject) => {
      const check = () => {
        const found = lines.find(predicate)
        if (found !== undefined) {
          waiters.delete(check)
          resolve(found)
        } else if (child.exitCode !== null || child.signalCode !== null) {
          waiters.delete(check)
          reject(new Error(`receiver ${child.pid} exited: ${errors}`))
        }
      }
      waiters.add(check)
      check()
    })
  const { port } = await waitFor((line) => line.kind === 'listening')
  const base = `http://127.0.0.1:${port}`
  const control = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, { method: 'POST', body: JSON.stringify(body) })
    if (response.status !== 204) throw new Error(`${path} answered ${response.status}`)
  }
  return {
    pid: child.pid!,
    url: `${base}/hooks`,
    lines,
    waitFor,
    advanceClock: (ms) => control('/__clock', { advanceMs: ms }),
    setHang: (hang) => control('/__hang', { hang }),
    kill: async () => {
      child.kill('SIGKILL')
      await exited
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

export type LoadBalancer = {
  url: string
  setBackends(urls: string[]): void
  stop(): Promise<void>
}

/**
 * A round-robin load balancer on 127.0.0.1: each request goes to the next backend, body and headers as sent; a
 * backend that cannot be reached is a 502 (the sender retries).
 */
export async function startRoundRobinProxy(initial: string[]): Promise<LoadBalancer> {
  let backends = [...initial]
  let next = 0
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const backend = backends[next++ % backends.length]!
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers[name] = value
    try {
      const response = await fetch(backend, {
        method: req.method ?? 'POST',
        headers,
        body: Buffer.concat(chunks),
      })
      const body = await response.text()
      res.writeHead(response.status, { 'content-type': 'application/json' }).end(body)
    } catch {
      res.writeHead(502).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    setBackends: (urls) => {
      backends = [...urls]
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
