import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import * as btc from '@scure/btc-signer'

/**
 * A real Bitcoin-Core-derived node for tests: Debian's `litecoind` (Litecoin Core 0.21, the Bitcoin Core
 * 0.21 script interpreter with segwit and taproot active from block 0 on regtest), started on 127.0.0.1
 * with a temporary data directory and stopped afterwards. Everything goes through scripts (`raw()`
 * descriptors), so the same harness drives a real bitcoind given by URL (`connectCoreNode`).
 *
 * The faucet is a P2WPKH key of the harness's own; its coins are signed with @scure/btc-signer, never with
 * the wallet code under test.
 */

export const defaultLitecoindPath = '/usr/lib/litecoin/litecoind'

/** The binary to run: `LITECOIND_PATH`, else Debian's location; undefined when not installed. */
export function litecoindPath(): string | undefined {
  const path = process.env.LITECOIND_PATH ?? defaultLitecoindPath
  return existsSync(path) ? path : undefined
}

export type RpcAuth = { username: string; password: string }

export class CoreRpcError extends Error {
  override name = 'CoreRpcError'
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

export type CoreRpc = <T = unknown>(method: string, params?: unknown[]) => Promise<T>

/** A minimal Bitcoin Core JSON-RPC client (HTTP basic auth). */
export function coreRpc(url: string, auth?: RpcAuth): CoreRpc {
  const parsed = new URL(url)
  const username = auth?.username ?? decodeURIComponent(parsed.username)
  const password = auth?.password ?? decodeURIComponent(parsed.password)
  parsed.username = ''
  parsed.password = ''
  const endpoint = parsed.toString()
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`
  let id = 0
  return async <T>(method: string, params: unknown[] = []) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ jsonrpc: '1.0', id: ++id, method, params }),
    })
    const text = await response.text()
    let body: { result?: T; error?: { code: number; message: string } | null }
    try {
      body = JSON.parse(text)
    } catch {
      throw new CoreRpcError(response.status, `HTTP ${response.status}: ${text.slice(0, 200)}`)
    }
    if (body.error) throw new CoreRpcError(body.error.code, body.error.message)
    return body.result as T
  }
}

export type CoreNode = {
  /** JSON-RPC URL without credentials. */
  url: string
  auth: RpcAuth
  rpc: CoreRpc
  /** `litecoind` or `bitcoind`, from `getnetworkinfo.subversion`. */
  flavour: 'litecoind' | 'bitcoind'
  /** Pays `sats` to `script` from the faucet and mines it (1 block). Returns the outpoint. */
  fund(script: Uint8Array, sats: bigint | number): Promise<{ txid: string; vout: number }>
  /** Mines `n` blocks to the faucet. */
  mine(n?: number): Promise<string[]>
  /** Core's `testmempoolaccept` for one raw transaction. */
  testMempoolAccept(raw: Uint8Array | string): Promise<{ allowed: boolean; reason?: string; txid: string }>
  stop(): Promise<void>
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

/**
 * Starts `litecoind -regtest` on 127.0.0.1 (random RPC port, temporary datadir, no P2P, no wallet) and
 * waits until its RPC answers. Throws when the binary is missing; check `litecoindPath()` first.
 */
export async function startLitecoind(
  options: { binary?: string; startupTimeoutMs?: number } = {},
): Promise<CoreNode> {
  const binary = options.binary ?? litecoindPath()
  if (!binary) throw new Error(`litecoind not found at ${process.env.LITECOIND_PATH ?? defaultLitecoindPath}`)
  const datadir = await mkdtemp(join(tmpdir(), 'wallet-rpc-litecoind-'))
  const auth = {
    username: 'wallet-rpc',
    password: bytesToHex(sha256(new TextEncoder().encode(datadir))).slice(0, 32),
  }
  let child: ChildProcess | undefined
  let exited = false
  let stderr = ''
  try {
    const port = await freePort()
    child = spawn(
      binary,
      [
        '-regtest',
        `-datadir=${datadir}`,
        '-server=1',
        '-listen=0',
        '-dnsseed=0',
        '-connect=0',
        '-disablewallet=1',
        '-txindex=1',
        '-printtoconsole=0',
        '-rpcbind=127.0.0.1',
        '-rpcallowip=127.0.0.1',
        `-rpcport=${port}`,
        `-rpcuser=${auth.username}`,
        `-rpcpassword=${auth.password}`,
        '-fallbackfee=0.0002',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    )
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000)
    })
    child.once('exit', () => {
      exited = true
    })
    const url = `http://127.0.0.1:${port}/`
    const rpc = coreRpc(url, auth)
    const deadline = Date.now() + (options.startupTimeoutMs ?? 30_000)
    for (;;) {
      if (exited) throw new Error(`litecoind exited during startup: ${stderr.trim()}`)
      try {
        await rpc('getblockchaininfo')
        break
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`litecoind did not answer: ${(error as Error).message}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const process_ = child
    const stop = async () => {
      if (!exited) {
        const done = new Promise<void>((resolve) => process_.once('exit', () => resolve()))
        try {
          await rpc('stop')
        } catch {
          process_.kill('SIGTERM')
        }
        const timer = setTimeout(() => process_.kill('SIGKILL'), 15_000)
        await done
        clearTimeout(timer)
      }
      await rm(datadir, { recursive: true, force: true })
    }
    return await withFaucet(url, auth, rpc, stop)
  } catch (error) {
    if (child && !exited) child.kill('SIGKILL')
    await rm(datadir, { recursive: true, force: true })
    throw error
  }
}

/** The same API over an already running regtest node (e.g. a real bitcoind at `BITCOIND_RPC_URL`). */
export async function connectCoreNode(url: string, auth?: RpcAuth): Promise<CoreNode> {
  const parsed = new URL(url)
  const credentials = auth ?? {
    username: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  }
  parsed.username = ''
  parsed.password = ''
  const rpc = coreRpc(parsed.toString(), credentials)
  const info = await rpc<{ chain: string }>('getblockchaininfo')
  if (info.chain !== 'regtest') throw new Error(`refusing to use a ${info.chain} node for tests`)
  return withFaucet(parsed.toString(), credentials, rpc, async () => {})
}

const faucetKey = sha256(new TextEncoder().encode('wallet-rpc devchains faucet'))
const faucetPubkey = secp256k1.getPublicKey(faucetKey, true)
const faucetScript = btc.p2wpkh(faucetPubkey).script

type Coin = { txid: string; vout: number; value: bigint }

async function withFaucet(
  url: string,
  auth: RpcAuth,
  rpc: CoreRpc,
  stop: () => Promise<void>,
): Promise<CoreNode> {
  const network = await rpc<{ subversion: string }>('getnetworkinfo')
  const flavour = /litecoin/i.test(network.subversion) ? 'litecoind' : 'bitcoind'
  const faucetDescriptor = await descriptorOf(rpc, faucetScript)
  const mine = (n = 1) => rpc<string[]>('generatetodescriptor', [n, faucetDescriptor])

  // Coins of the faucet we may spend: the change of the last funding, or a mature coinbase.
  let change: Coin | undefined
  const matureCoinbases: Coin[] = []
  const refill = async () => {
    const hashes = await mine(101)
    const block = await rpc<{ tx: { txid: string; vout: { value: number; n: number }[] }[] }>('getblock', [
      hashes[0],
      2,
    ])
    const coinbase = block.tx[0]!
    matureCoinbases.push({
      txid: coinbase.txid,
      vout: 0,
      value: BigInt(Math.round(coinbase.vout[0]!.value * 1e8)),
    })
  }
  // Serialized: two fundings must not spend the same faucet coin.
  let queue: Promise<unknown> = Promise.resolve()

  const fundNow = async (script: Uint8Array, sats: bigint): Promise<{ txid: string; vout: number }> => {
    const fee = 1_000n
    let coin = change && change.value >= sats + fee + 1_000n ? change : undefined
    if (!coin) {
      if (matureCoinbases.length === 0) await refill()
      coin = matureCoinbases.shift()!
      if (coin.value < sats + fee + 1_000n) throw new Error(`faucet coin too small for ${sats} sats`)
    }
    const tx = new btc.Transaction()
    tx.addInput({
      txid: coin.txid,
      index: coin.vout,
      witnessUtxo: { script: faucetScript, amount: coin.value },
    })
    tx.addOutput({ script, amount: sats })
    tx.addOutput({ script: faucetScript, amount: coin.value - sats - fee })
    tx.sign(faucetKey)
    tx.finalize()
    const txid = await rpc<string>('sendrawtransaction', [tx.hex])
    change = { txid, vout: 1, value: coin.value - sats - fee }
    await mine(1)
    return { txid, vout: 0 }
  }

  return {
    url,
    auth,
    rpc,
    flavour,
    mine,
    fund: (script, sats) => {
      const run = queue.then(() => fundNow(script, BigInt(sats)))
      queue = run.catch(() => undefined)
      return run
    },
    async testMempoolAccept(raw) {
      const hex = typeof raw === 'string' ? raw : bytesToHex(raw)
      const [result] = await rpc<{ txid: string; allowed: boolean; 'reject-reason'?: string }[]>(
        'testmempoolaccept',
        [[hex]],
      )
      return result!.allowed
        ? { allowed: true, txid: result!.txid }
        : { allowed: false, txid: result!.txid, reason: result!['reject-reason'] ?? 'rejected' }
    },
    stop,
  }
}

/** `raw(<hex>)#checksum`: Core requires the checksum for generatetodescriptor. */
async function descriptorOf(rpc: CoreRpc, script: Uint8Array): Promise<string> {
  const info = await rpc<{ descriptor: string }>('getdescriptorinfo', [`raw(${bytesToHex(script)})`])
  return info.descriptor
}
