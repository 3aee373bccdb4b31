import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'

/**
 * A real Postgres for the store's tests: Debian's `postgresql` package (initdb and postgres from
 * /usr/lib/postgresql/<version>/bin, the newest there, or POSTGRES_BIN), started by the test in a temporary
 * directory on 127.0.0.1 and a free port, stopped and deleted afterwards; no system service is used. Postgres
 * refuses to run as root, so as root (CI) it runs as the `postgres` user the package creates. Missing, the suites
 * are skipped with a visible notice, except under REQUIRE_POSTGRES=1 (CI), where a failing test says so.
 */

export function postgresBin(): string | undefined {
  const complete = (bin: string) => existsSync(join(bin, 'postgres')) && existsSync(join(bin, 'initdb'))
  if (process.env.POSTGRES_BIN !== undefined)
    return complete(process.env.POSTGRES_BIN) ? process.env.POSTGRES_BIN : undefined
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((name) => complete(join(root, name, 'bin')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin')
}

/** The bin folder, or undefined after a notice (and a failing test under REQUIRE_POSTGRES=1). */
export function findPostgres(suite: string): string | undefined {
  const bin = postgresBin()
  const required = process.env.REQUIRE_POSTGRES === '1'
  if (bin === undefined && !required)
    console.warn(
      `\n[pay] NOTICE: Postgres not found (apt-get install postgresql, or POSTGRES_BIN): the ${suite} suite is SKIPPED.\n`,
    )
  describe.runIf(bin === undefined && required)(`Postgres required (${suite})`, () => {
    it('postgres and initdb are installed', () => {
      expect.fail(
        'REQUIRE_POSTGRES=1 but no /usr/lib/postgresql/<version>/bin/postgres (apt-get install postgresql)',
      )
    })
  })
  return bin
}

export type PostgresServer = {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication, local only). */
  url: string
  /** A fresh, empty schema for one test (the store's `schema` option). */
  freshSchema(): Promise<string>
  stop(): Promise<void>
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

const asRoot = process.getuid?.() === 0

/** `command args` as the `postgres` user when we are root, else as ourselves. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]
}

export async function startPostgres(bin: string): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-rpc-postgres-'))
  const data = join(dir, 'data')
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim())
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
    chownSync(dir, uid, gid)
  }
  let child: ChildProcess | undefined
  try {
    const [initdb, initArgs] = asPostgres(join(bin, 'initdb'), [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=trust',
      '--encoding=UTF8',
      '--no-sync',
    ])
    execFileSync(initdb, initArgs, { stdio: 'pipe' })
    const port = await freePort()
    // fsync off: the data is thrown away; the tests are about concurrency, not durability of this server.
    const [postgres, args] = asPostgres(join(bin, 'postgres'), [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'max_connections=100',
    ])
    let output = ''
    child = spawn(postgres, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk
    })
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk
    })
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`
    for (let attempt = 0; ; attempt++) {
      if (child.exitCode !== null) throw new Error(`postgres exited: ${output}`)
      const client = new pg.Client({ connectionString: url })
      try {
        await client.connect()
        await client.end()
        break
      } catch (error) {
        await client.end().catch(() => undefined)
        if (attempt > 300) throw new Error(`postgres did not accept connections: ${output}`, { cause: error })
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const started = child
    let schemas = 0
    return {
      url,
      freshSchema: async () => {
        const name = `t${process.pid}_${schemas++}`
        const client = new pg.Client({ connectionString: url })
        await client.connect()
        try {
          await client.query(`CREATE SCHEMA ${name}`)
        } finally {
          await client.end()
        }
        return name
      },
      stop: async () => {
        await stopPostgres(started, data)
        rmSync(dir, { recursive: true, force: true })
      },
    }
  } catch (error) {
    if (child !== undefined) await stopPostgres(child, data)
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

/** A fast shutdown of the postmaster itself (runuser stands between us and it), then SIGKILL if it lingers. */
async function stopPostgres(child: ChildProcess, data: string): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const pidFile = join(data, 'postmaster.pid')
  const postmaster = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : undefined
  try {
    process.kill(postmaster ?? child.pid!, 'SIGINT')
  } catch {}
  const timer = setTimeout(() => {
    try {
      if (postmaster !== undefined) process.kill(postmaster, 'SIGKILL')
      child.kill('SIGKILL')
    } catch {}
  }, 10_000)
  await exited
  clearTimeout(timer)
}
