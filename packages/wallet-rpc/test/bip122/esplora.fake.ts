import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeUtxo = { txid: string; vout: number; value: number; confirmed?: boolean }

/**
 * A recorded-style Esplora served on 127.0.0.1 (random port): address stats, UTXOs, raw transactions, fee
 * estimates and POST /tx, from in-memory state the test sets. Answers exactly the shapes of
 * Blockstream/esplora API.md. Counts requests per route so tests can assert retries and single broadcasts.
 */
export class FakeEsplora {
  readonly history = new Map<string, number>()
  readonly utxos = new Map<string, FakeUtxo[]>()
  readonly transactions = new Map<string, string>()
  readonly requests: string[] = []
  broadcastAnswer: { status: number; body: string } = { status: 200, body: '' }
  private server: Server | undefined
  url = ''

  /** Funds `address` with one UTXO (and counts a transaction in its history). */
  fund(address: string, utxo: FakeUtxo): void {
    this.utxos.set(address, [...(this.utxos.get(address) ?? []), utxo])
    this.history.set(address, (this.history.get(address) ?? 0) + 1)
  }

  /** Spends every UTXO of `address` (history keeps the address "used"). */
  spendAll(address: string): void {
    this.utxos.set(address, [])
    this.history.set(address, (this.history.get(address) ?? 0) + 1)
  }

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = []
      request.on('data', (chunk: Buffer) => chunks.push(chunk))
      request.on('end', () => {
        const path = new URL(request.url ?? '/', 'http://x').pathname
        this.requests.push(`${request.method} ${path}`)
        const reply = (status: number, body: unknown) => {
          response.writeHead(status, {
            'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
          })
          response.end(typeof body === 'string' ? body : JSON.stringify(body))
        }
        if (request.method === 'POST' && path === '/tx') {
          return reply(this.broadcastAnswer.status, this.broadcastAnswer.body)
        }
        const utxoRoute = /^\/address\/([^/]+)\/utxo$/.exec(path)
        if (utxoRoute) {
          const address = decodeURIComponent(utxoRoute[1]!)
          return reply(
            200,
            (this.utxos.get(address) ?? []).map((utxo) => ({
              txid: utxo.txid,
              vout: utxo.vout,
              value: utxo.value,
              status:
                utxo.confirmed === false ? { confirmed: false } : { confirmed: true, block_height: 100 },
            })),
          )
        }
        const addressRoute = /^\/address\/([^/]+)$/.exec(path)
        if (addressRoute) {
          const address = decodeURIComponent(addressRoute[1]!)
          const txCount = this.history.get(address) ?? 0
          return reply(200, {
            address,
            chain_stats: {
              funded_txo_count: txCount,
              funded_txo_sum: 0,
              spent_txo_count: 0,
              spent_txo_sum: 0,
              tx_count: txCount,
            },
            mempool_stats: {
              funded_txo_count: 0,
              funded_txo_sum: 0,
              spent_txo_count: 0,
              spent_txo_sum: 0,
              tx_count: 0,
            },
          })
        }
        const txRoute = /^\/tx\/([0-9a-f]{64})\/hex$/.exec(path)
        if (txRoute) {
          const hex = this.transactions.get(txRoute[1]!)
          return hex ? reply(200, hex) : reply(404, 'Transaction not found')
        }
        if (path === '/fee-estimates') return reply(200, { '1': 20.5, '6': 10, '144': 1.01 })
        return reply(404, 'not found')
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this.url
  }

  async stop(): Promise<void> {
    const server = this.server
    if (!server) return
    this.server = undefined
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
