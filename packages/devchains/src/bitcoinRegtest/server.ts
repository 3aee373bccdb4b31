import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import type { OutputRecord, RegtestChain, TransactionRecord } from './chain.js'
import { outputKind, TransactionRejected } from './validate.js'

/**
 * The Esplora HTTP API (Blockstream/esplora `API.md`) over a `RegtestChain`, on 127.0.0.1. It serves the
 * subset a wallet uses: addresses and script hashes (stats, UTXOs, history), transactions (JSON, hex,
 * raw, status, outspends), broadcast, fee estimates, the tip and the mempool.
 */

/** One-shot faults for the next `POST /tx`, so tests can prove a wallet never retries and reports why. */
export type BroadcastFault =
  | { kind: 'http500'; message?: string }
  | { kind: 'wrongTxid' }
  /** Accept the transaction but never answer (the client must time out). */
  | { kind: 'hang' }

export type EsploraServer = {
  url: string
  /** Counts `POST /tx` requests, accepted or not. */
  broadcastCount(): number
  injectBroadcastFault(fault: BroadcastFault): void
  close(): Promise<void>
}

const maxBodyBytes = 8 * 1024 * 1024

export async function serveEsplora(
  chain: RegtestChain,
  options: { port?: number } = {},
): Promise<EsploraServer> {
  const faults: BroadcastFault[] = []
  const hanging = new Set<ServerResponse>()
  let broadcasts = 0

  const status = (record: TransactionRecord) => {
    if (record.blockHeight === undefined) return { confirmed: false }
    const block = chain.blocks[record.blockHeight]!
    return { confirmed: true, block_height: block.height, block_hash: block.hash, block_time: block.time }
  }

  const outputJson = (script: Uint8Array, value: bigint) => {
    const address = chain.addressOf(script)
    const kind = outputKind(script)
    const type = {
      p2pkh: 'p2pkh',
      p2sh: 'p2sh',
      p2wpkh: 'v0_p2wpkh',
      p2wsh: 'v0_p2wsh',
      p2tr: 'v1_p2tr',
      op_return: 'op_return',
      nonstandard: 'unknown',
    }[kind]
    return {
      scriptpubkey: bytesToHex(script),
      scriptpubkey_type: type,
      ...(address === undefined ? {} : { scriptpubkey_address: address }),
      value: Number(value),
    }
  }

  const txJson = (record: TransactionRecord) => {
    const tx = record.parsed
    const funding = record.spends.length === 0
    return {
      txid: tx.txid,
      version: tx.version,
      locktime: tx.locktime,
      vin: tx.inputs.map((input) => {
        const prevout = chain.outputs.get(`${input.txid}:${input.vout}`)
        return {
          txid: input.txid,
          vout: input.vout,
          prevout: funding || !prevout ? null : outputJson(prevout.script, prevout.value),
          scriptsig: bytesToHex(input.scriptSig),
          witness: input.witness.map(bytesToHex),
          is_coinbase: false,
          sequence: input.sequence,
        }
      }),
      vout: tx.outputs.map((output) => outputJson(output.script, output.value)),
      size: tx.raw.length,
      weight: tx.weight,
      fee: Number(record.fee),
      status: status(record),
    }
  }

  const utxoJson = (output: OutputRecord) => ({
    txid: output.txid,
    vout: output.vout,
    value: Number(output.value),
    status: status(chain.transactions.get(output.txid)!),
  })

  const statsOf = (script: Uint8Array) => {
    const empty = () => ({
      funded_txo_count: 0,
      funded_txo_sum: 0,
      spent_txo_count: 0,
      spent_txo_sum: 0,
      tx_count: 0,
    })
    const chainStats = empty()
    const mempoolStats = empty()
    const chainTxs = new Set<string>()
    const mempoolTxs = new Set<string>()
    for (const output of chain.outputsOf(script)) {
      const confirmed = chain.isConfirmed(output.txid)
      const stats = confirmed ? chainStats : mempoolStats
      stats.funded_txo_count++
      stats.funded_txo_sum += Number(output.value)
      ;(confirmed ? chainTxs : mempoolTxs).add(output.txid)
      if (output.spentBy !== undefined) {
        const spentConfirmed = chain.isConfirmed(output.spentBy)
        const spentStats = spentConfirmed ? chainStats : mempoolStats
        spentStats.spent_txo_count++
        spentStats.spent_txo_sum += Number(output.value)
        ;(spentConfirmed ? chainTxs : mempoolTxs).add(output.spentBy)
      }
    }
    chainStats.tx_count = chainTxs.size
    mempoolStats.tx_count = mempoolTxs.size
    return { chain_stats: chainStats, mempool_stats: mempoolStats, txids: [...mempoolTxs, ...chainTxs] }
  }

  const scriptOfHash = (scripthash: string): Uint8Array | undefined => {
    // Esplora's script hash is sha256(scriptPubKey), hex in natural order.
    for (const record of chain.outputs.values()) {
      if (bytesToHex(sha256(record.script)) === scripthash) return record.script
    }
    return undefined
  }

  const routes: Array<[RegExp, (match: RegExpExecArray) => unknown]> = [
    [/^\/blocks\/tip\/height$/, () => String(chain.height)],
    [/^\/blocks\/tip\/hash$/, () => chain.tip.hash],
    [
      /^\/block-height\/(\d+)$/,
      (m) => {
        const block = chain.blocks[Number(m[1])]
        if (!block) throw new NotFound('Block not found')
        return block.hash
      },
    ],
    [
      /^\/fee-estimates$/,
      () =>
        Object.fromEntries(
          ['1', '2', '3', '4', '5', '6', '10', '20', '25', '144', '504', '1008'].map((t) => [
            t,
            chain.feeRate,
          ]),
        ),
    ],
    [
      /^\/mempool$/,
      () => {
        const records = [...chain.mempool].map((txid) => chain.transactions.get(txid)!)
        return {
          count: records.length,
          vsize: records.reduce((sum, r) => sum + r.parsed.vsize, 0),
          total_fee: records.reduce((sum, r) => sum + Number(r.fee), 0),
          fee_histogram: [],
        }
      },
    ],
    [/^\/mempool\/txids$/, () => [...chain.mempool]],
    [
      /^\/(address|scripthash)\/([^/]+)$/,
      (m) => {
        const script = scriptFromRoute(m[1]!, m[2]!)
        const { txids: _txids, ...stats } = statsOf(script)
        return m[1] === 'address' ? { address: m[2], ...stats } : { scripthash: m[2], ...stats }
      },
    ],
    [
      /^\/(address|scripthash)\/([^/]+)\/utxo$/,
      (m) => chain.utxosOf(scriptFromRoute(m[1]!, m[2]!)).map(utxoJson),
    ],
    [
      /^\/(address|scripthash)\/([^/]+)\/txs$/,
      (m) =>
        statsOf(scriptFromRoute(m[1]!, m[2]!))
          .txids.slice(0, 50)
          .map((txid) => txJson(chain.transactions.get(txid)!)),
    ],
    [/^\/tx\/([0-9a-f]{64})$/, (m) => txJson(transaction(m[1]!))],
    [/^\/tx\/([0-9a-f]{64})\/hex$/, (m) => bytesToHex(transaction(m[1]!).raw)],
    [/^\/tx\/([0-9a-f]{64})\/raw$/, (m) => Buffer.from(transaction(m[1]!).raw)],
    [/^\/tx\/([0-9a-f]{64})\/status$/, (m) => status(transaction(m[1]!))],
    [
      /^\/tx\/([0-9a-f]{64})\/outspends$/,
      (m) => transaction(m[1]!).parsed.outputs.map((_, vout) => outspend(m[1]!, vout)),
    ],
    [/^\/tx\/([0-9a-f]{64})\/outspend\/(\d+)$/, (m) => outspend(m[1]!, Number(m[2]))],
  ]

  function transaction(txid: string): TransactionRecord {
    const record = chain.transactions.get(txid)
    if (!record) throw new NotFound('Transaction not found')
    return record
  }

  function outspend(txid: string, vout: number) {
    const output = chain.outputs.get(`${txid}:${vout}`)
    if (!output) throw new NotFound('Output not found')
    if (output.spentBy === undefined) return { spent: false }
    const spender = chain.transactions.get(output.spentBy)!
    const vin = spender.parsed.inputs.findIndex((input) => input.txid === txid && input.vout === vout)
    return { spent: true, txid: spender.txid, vin, status: status(spender) }
  }

  function scriptFromRoute(kind: string, value: string): Uint8Array {
    if (kind === 'address') {
      try {
        return chain.scriptOf(decodeURIComponent(value))
      } catch {
        throw new BadRequest(`Invalid Bitcoin address`)
      }
    }
    if (!/^[0-9a-f]{64}$/.test(value)) throw new BadRequest('Invalid scripthash')
    return scriptOfHash(value) ?? new Uint8Array([0x6a, 0xff]) // unknown: a script with no outputs
  }

  async function broadcast(request: IncomingMessage, response: ServerResponse): Promise<void> {
    broadcasts++
    const body = (await readBody(request)).trim()
    const fault = faults.shift()
    if (fault?.kind === 'http500') {
      send(response, 500, fault.message ?? 'Internal Server Error')
      return
    }
    let txid: string
    try {
      if (!/^(?:[0-9a-fA-F]{2})+$/.test(body)) throw new TransactionRejected('TX decode failed')
      txid = chain.submit(hexToBytes(body))
    } catch (error) {
      if (!(error instanceof TransactionRejected)) throw error
      // Esplora relays the node's error as text.
      send(
        response,
        400,
        `sendrawtransaction RPC error: ${JSON.stringify({ code: -26, message: error.reason })}`,
      )
      return
    }
    if (fault?.kind === 'hang') {
      hanging.add(response)
      return
    }
    send(response, 200, fault?.kind === 'wrongTxid' ? bytesToHex(sha256(hexToBytes(txid))) : txid)
  }

  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const path = url.pathname.replace(/^\/api(?=\/)/, '')
    const handle = async () => {
      if (request.method === 'POST' && path === '/tx') return broadcast(request, response)
      if (request.method !== 'GET') throw new NotFound('Not found')
      for (const [pattern, route] of routes) {
        const match = pattern.exec(path)
        if (!match) continue
        const result = route(match)
        if (result instanceof Uint8Array) {
          response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(result)
        } else if (typeof result === 'string') {
          send(response, 200, result)
        } else {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result))
        }
        return
      }
      throw new NotFound('Not found')
    }
    handle().catch((error: unknown) => {
      if (error instanceof HttpError) send(response, error.status, error.message)
      else send(response, 500, error instanceof Error ? error.message : 'Internal Server Error')
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    broadcastCount: () => broadcasts,
    injectBroadcastFault: (fault) => {
      faults.push(fault)
    },
    close: async () => {
      for (const response of hanging) response.destroy()
      hanging.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}
class NotFound extends HttpError {
  constructor(message: string) {
    super(404, message)
  }
}
class BadRequest extends HttpError {
  constructor(message: string) {
    super(400, message)
  }
}

function send(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'content-type': 'text/plain' }).end(text)
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let length = 0
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length
    if (length > maxBodyBytes) throw new BadRequest('body too large')
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}
