import { utf8ToBytes } from '@noble/hashes/utils.js'
import { base64 } from '@scure/base'
import { markOutcomeUnknown, ProviderError } from '../../core/errors.js'
import { timeoutSignal } from '../../core/http.js'
import { decodeAddress } from '../chains.js'
import { fromHex, toHex } from '../transaction/bytes.js'
import { parseTransaction } from '../transaction/transaction.js'
import type { AddressActivity, ChainProvider, FeeRates, Utxo } from '../types.js'

/**
 * A chain provider over the Bitcoin Core JSON-RPC, using script descriptors only (`raw(<script hex>)`
 * with `scantxoutset`), so it needs no wallet and no address index and works unchanged against any
 * Bitcoin-Core-derived node whatever its address format (a user's own bitcoind, or Litecoin Core in
 * regtest, whose addresses differ but whose scripts do not).
 *
 * What it can and cannot see, because the node keeps no per-script history:
 * - `utxos`: confirmed UTXOs from the UTXO set, minus those a mempool transaction spends
 *   (checked with `gettxout … include_mempool`); unconfirmed outputs are not reported.
 * - `addressActivity`: "used" when the script has UTXOs now or was seen by this provider before (in an
 *   earlier scan or as an output of a transaction broadcast through it). A script whose coins were all
 *   spent elsewhere before this provider ever saw it reads as unused.
 * - `scantxoutset` walks the whole UTXO set per call: instant on regtest, minutes on mainnet. Concurrent
 *   requests are merged into one scan.
 */
export type BitcoinCoreOptions = {
  /** JSON-RPC endpoint, e.g. `http://127.0.0.1:18443/`. Credentials in the URL are used when `auth` is absent. */
  url: string
  auth?: { username: string; password: string }
  /** Per-call timeout for reads, default 60 s (a scan can take a while on a big UTXO set). */
  timeoutMs?: number
  /** Timeout for `sendrawtransaction`, default 30 s. A timed-out broadcast is reported, never retried. */
  broadcastTimeoutMs?: number
}

export type BitcoinCoreProvider = ChainProvider & {
  /** Core's `testmempoolaccept` for one transaction: would the node accept it now? */
  testMempoolAccept(
    rawTransaction: Uint8Array,
  ): Promise<{ allowed: true } | { allowed: false; reason: string }>
}

type RpcRequest = { method: string; params: unknown[] }
type RpcReply = { result?: unknown; error?: { code: number; message: string } | null; id?: number }

/**
 * Any network's address as its output script (the node's own address format may differ: Litecoin Core in
 * regtest). Not bitcoinjs-lib's `address.toOutputScript`: for a P2TR address it needs the process-global
 * `initEccLib`, so a P2TR address failed until something else in the process had set it.
 */
function scriptOfAddress(address: string): Uint8Array {
  const decoded = decodeAddress(address)
  if (decoded === undefined) throw new ProviderError(`not an address this provider understands: ${address}`)
  return decoded.scriptPubKey
}

const satoshis = (coins: number) => Math.round(coins * 1e8)
/** Calls per JSON-RPC batch when reading many transactions (a parent can be large: keep a reply bounded). */
const transactionsPerBatch = 250

export function bitcoinCore(options: BitcoinCoreOptions): BitcoinCoreProvider {
  const parsed = new URL(options.url)
  const username = options.auth?.username ?? decodeURIComponent(parsed.username)
  const password = options.auth?.password ?? decodeURIComponent(parsed.password)
  parsed.username = ''
  parsed.password = ''
  const endpoint = parsed.toString()
  const authorization = `Basic ${base64.encode(utf8ToBytes(`${username}:${password}`))}`
  const readTimeout = options.timeoutMs ?? 60_000
  const broadcastTimeout = options.broadcastTimeoutMs ?? 30_000
  let nextId = 0

  async function post(body: unknown, timeoutMs: number): Promise<unknown> {
    let response: Response
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify(body),
        signal: timeoutSignal(timeoutMs),
      })
    } catch (error) {
      const name = (error as Error).name
      const failure = new ProviderError(
        name === 'TimeoutError' ? `bitcoind did not answer within ${timeoutMs} ms` : 'bitcoind unreachable',
        { cause: error },
      )
      // A broadcast that timed out or lost its connection may have reached the node.
      throw (body as RpcRequest).method === 'sendrawtransaction' ? markOutcomeUnknown(failure) : failure
    }
    const text = await response.text()
    try {
      return JSON.parse(text)
    } catch {
      // Core answers 401 with an empty body for bad credentials; never echo the request.
      throw new ProviderError(`bitcoind HTTP ${response.status}`)
    }
  }

  async function call<T>(method: string, params: unknown[], timeoutMs = readTimeout): Promise<T> {
    const reply = (await post({ jsonrpc: '1.0', id: ++nextId, method, params }, timeoutMs)) as RpcReply
    if (reply.error) throw new ProviderError(`${method}: ${reply.error.message}`)
    return reply.result as T
  }

  async function batch(requests: RpcRequest[]): Promise<RpcReply[]> {
    if (requests.length === 0) return []
    const first = nextId + 1
    nextId += requests.length
    const replies = (await post(
      requests.map((request, i) => ({ jsonrpc: '1.0', id: first + i, ...request })),
      readTimeout,
    )) as RpcReply[]
    if (!Array.isArray(replies)) throw new ProviderError('bitcoind answered a batch with a single reply')
    const byId = new Map(replies.map((reply) => [reply.id, reply]))
    return requests.map((_, i) => byId.get(first + i) ?? { error: { code: -1, message: 'missing reply' } })
  }

  // Scripts known to have been used, and block heights of UTXOs seen (getrawtransaction needs the block
  // hash when the node has no -txindex).
  const seenScripts = new Set<string>()
  const heights = new Map<string, number>()

  // One scan at a time (Core refuses concurrent scans); requests arriving meanwhile share the next scan.
  type ScanWaiter = { script: string; resolve: (utxos: Utxo[]) => void; reject: (error: unknown) => void }
  let pending: ScanWaiter[] = []
  let scanning = false

  type Unspent = { txid: string; vout: number; scriptPubKey: string; amount: number; height: number }

  async function runScans(): Promise<void> {
    if (scanning) return
    scanning = true
    try {
      while (pending.length > 0) {
        const waiters = pending
        pending = []
        try {
          const scripts = [...new Set(waiters.map((waiter) => waiter.script))]
          const result = await call<{ success: boolean; unspents: Unspent[] }>('scantxoutset', [
            'start',
            scripts.map((script) => `raw(${script})`),
          ])
          if (!result.success) throw new ProviderError('scantxoutset did not complete')
          const unspent = await unspentInMempool(result.unspents)
          for (const waiter of waiters) {
            waiter.resolve(
              unspent
                .filter((utxo) => utxo.scriptPubKey === waiter.script)
                .map((utxo) => ({
                  txid: utxo.txid,
                  vout: utxo.vout,
                  value: satoshis(utxo.amount),
                  confirmed: true,
                  blockHeight: utxo.height,
                })),
            )
          }
        } catch (error) {
          for (const waiter of waiters) waiter.reject(error)
        }
      }
    } finally {
      scanning = false
    }
  }

  /** Drops UTXOs a mempool transaction already spends. */
  async function unspentInMempool(unspents: Unspent[]): Promise<Unspent[]> {
    const kept: Unspent[] = []
    for (let start = 0; start < unspents.length; start += 500) {
      const chunk = unspents.slice(start, start + 500)
      const replies = await batch(chunk.map((u) => ({ method: 'gettxout', params: [u.txid, u.vout, true] })))
      replies.forEach((reply, i) => {
        if (reply.error) throw new ProviderError(`gettxout: ${reply.error.message}`)
        if (reply.result !== null) kept.push(chunk[i]!)
      })
    }
    for (const utxo of kept) {
      seenScripts.add(utxo.scriptPubKey)
      heights.set(utxo.txid, utxo.height)
    }
    return kept
  }

  function scan(script: string): Promise<Utxo[]> {
    return new Promise<Utxo[]>((resolve, reject) => {
      pending.push({ script, resolve, reject })
      void runScans()
    })
  }

  const feeTargets = [1, 2, 3, 6, 12, 24, 144, 504, 1008]

  /**
   * Whether the node keeps a transaction index (`getindexinfo`, Core 0.21+): then `getrawtransaction` finds
   * any transaction by txid. Without one it needs the block hash, and then reads and searches that whole
   * block for each transaction (seconds for a thousand parents in one large block).
   */
  let txIndex: Promise<boolean> | undefined
  const hasTxIndex = () => {
    txIndex ??= call<{ txindex?: { synced?: boolean } }>('getindexinfo', ['txindex']).then(
      (info) => info.txindex?.synced === true,
      () => false,
    )
    return txIndex
  }

  /**
   * `getrawtransaction` for each txid, `transactionsPerBatch` to a JSON-RPC batch (one HTTP request); on a
   * node without a transaction index, with the block hash where a scan saw the coin's height, those hashes
   * read in one batch first.
   */
  async function rawTransactions(txids: readonly string[]): Promise<Uint8Array[]> {
    for (const txid of txids) if (!/^[0-9a-f]{64}$/.test(txid)) throw new ProviderError('invalid txid')
    const indexed = await hasTxIndex()
    const heightOf = (txid: string) => (indexed ? undefined : heights.get(txid))
    const blockHashes = new Map<number, string>()
    const neededHeights = [...new Set(txids.map(heightOf).filter((height) => height !== undefined))]
    for (let start = 0; start < neededHeights.length; start += transactionsPerBatch) {
      const chunk = neededHeights.slice(start, start + transactionsPerBatch)
      const replies = await batch(chunk.map((height) => ({ method: 'getblockhash', params: [height] })))
      replies.forEach((reply, i) => {
        if (reply.error || typeof reply.result !== 'string')
          throw new ProviderError(`getblockhash ${chunk[i]}: ${reply.error?.message ?? 'no hash'}`)
        blockHashes.set(chunk[i]!, reply.result)
      })
    }
    const raws: Uint8Array[] = []
    for (let start = 0; start < txids.length; start += transactionsPerBatch) {
      const chunk = txids.slice(start, start + transactionsPerBatch)
      const replies = await batch(
        chunk.map((txid) => {
          const height = heightOf(txid)
          const params: unknown[] = [txid, false]
          if (height !== undefined) params.push(blockHashes.get(height))
          return { method: 'getrawtransaction', params }
        }),
      )
      replies.forEach((reply, i) => {
        if (reply.error || typeof reply.result !== 'string')
          throw new ProviderError(
            `getrawtransaction ${chunk[i]}: ${reply.error?.message ?? 'no transaction'}`,
          )
        raws.push(fromHex(reply.result))
      })
    }
    return raws
  }

  return {
    async utxos(address: string): Promise<Utxo[]> {
      return scan(toHex(scriptOfAddress(address)))
    },

    async addressActivity(address: string): Promise<AddressActivity> {
      const script = toHex(scriptOfAddress(address))
      const utxos = await scan(script)
      return { txCount: utxos.length > 0 ? utxos.length : seenScripts.has(script) ? 1 : 0 }
    },

    async feeRates(): Promise<FeeRates> {
      const replies = await batch([
        ...feeTargets.map((target) => ({ method: 'estimatesmartfee', params: [target] })),
        { method: 'getmempoolinfo', params: [] },
        { method: 'getnetworkinfo', params: [] },
      ])
      const mempool = replies[feeTargets.length]?.result as { mempoolminfee?: number } | undefined
      const network = replies[feeTargets.length + 1]?.result as { relayfee?: number } | undefined
      // BTC/kvB → sat/vB is × 1e5. With no estimate (a fresh regtest), the node's own floor.
      const floor = Math.max(1, (mempool?.mempoolminfee ?? 0) * 1e5, (network?.relayfee ?? 0) * 1e5)
      const rates: FeeRates = {}
      feeTargets.forEach((target, i) => {
        const estimate = replies[i]?.result as { feerate?: number } | undefined
        rates[String(target)] = Math.max(floor, (estimate?.feerate ?? 0) * 1e5)
      })
      return rates
    },

    async rawTransaction(txid: string): Promise<Uint8Array> {
      if (!/^[0-9a-f]{64}$/.test(txid)) throw new ProviderError('invalid txid')
      const height = (await hasTxIndex()) ? undefined : heights.get(txid)
      const params: unknown[] = [txid, false]
      if (height !== undefined) params.push(await call<string>('getblockhash', [height]))
      return fromHex(await call<string>('getrawtransaction', params))
    },

    rawTransactions,

    async broadcast(rawTransaction: Uint8Array): Promise<string> {
      const txid = await call<string>('sendrawtransaction', [toHex(rawTransaction)], broadcastTimeout)
      // Remember the scripts we paid so discovery counts them as used even before they confirm.
      markOutputsSeen(rawTransaction, seenScripts)
      return txid
    },

    async testMempoolAccept(rawTransaction: Uint8Array) {
      const [result] = await call<{ allowed: boolean; 'reject-reason'?: string }[]>('testmempoolaccept', [
        [toHex(rawTransaction)],
      ])
      if (!result) throw new ProviderError('testmempoolaccept returned nothing')
      return result.allowed
        ? { allowed: true }
        : { allowed: false, reason: result['reject-reason'] ?? 'rejected' }
    },
  }
}

function markOutputsSeen(raw: Uint8Array, seen: Set<string>): void {
  try {
    for (const output of parseTransaction(raw).outputs) seen.add(toHex(output.script))
  } catch {
    // Not ours to validate here; the node already accepted it.
  }
}
