import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { bitcoinCore } from '../../src/bip122/providers/bitcoinCore.js'
import { isOutcomeUnknown, WalletRpcError } from '../../src/core/errors.js'

// The bitcoinCore() provider against a scripted JSON-RPC endpoint on 127.0.0.1, for what a live node
// cannot be made to do on demand (auth failures, timeouts, concurrent scans). The same provider runs
// against litecoind in litecoind.test.ts.

type Call = { method: string; params: unknown[] }
type Handler = (call: Call) => { result?: unknown; error?: { code: number; message: string } } | 'hang'

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = undefined
})

async function fakeCore(
  handler: Handler,
  status = 200,
): Promise<{ url: string; calls: Call[]; requests: number[] }> {
  const calls: Call[] = []
  /** Per HTTP request, how many calls it carried (1 for a plain call). */
  const requests: number[] = []
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      if (status !== 200) {
        response.writeHead(status).end()
        return
      }
      const parsed = JSON.parse(body) as (Call & { id: number }) | (Call & { id: number })[]
      requests.push(Array.isArray(parsed) ? parsed.length : 1)
      const answer = (call: Call & { id: number }) => {
        calls.push({ method: call.method, params: call.params })
        const reply = handler(call)
        return reply === 'hang'
          ? reply
          : { id: call.id, result: reply.result ?? null, error: reply.error ?? null }
      }
      const replies = Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)
      if (replies === 'hang' || (Array.isArray(replies) && replies.includes('hang'))) return
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(replies))
    })
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/`, calls, requests }
}

const auth = { username: 'rpcuser', password: 'super-secret-password' }
const addressA = 'bcrt1q6rz28mcfaxtmd6v789l9rrlrusdprr9pz3cppk'
const scriptA = '0014d0c4a3ef09e997b6e99e397e518fe3e41a118ca1'
const addressB = 'bcrt1q9u62588spffmq4dzjxsr5l297znf3z6jkgnhsw'
const scriptB = '00142f34aa1cf00a53b055a291a03a7d45f0a6988b52'
/** bech32m of witness v1 and 32 bytes of 0x11 on regtest. */
const taprootAddress = 'bcrt1pzyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zyg3zygsqysakq'

async function failure(promise: Promise<unknown>): Promise<WalletRpcError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(WalletRpcError)
    return error as WalletRpcError
  }
  throw new Error('expected a failure')
}

describe('bitcoinCore provider', () => {
  it('merges concurrent scans into raw() descriptors and drops coins a mempool transaction spends', async () => {
    const core = await fakeCore((call) => {
      if (call.method === 'scantxoutset') {
        const descriptors = call.params[1] as string[]
        const unspents = [
          { txid: 'aa'.repeat(32), vout: 0, scriptPubKey: scriptA, amount: 0.0005, height: 7 },
          { txid: 'bb'.repeat(32), vout: 1, scriptPubKey: scriptA, amount: 0.25, height: 8 },
          { txid: 'cc'.repeat(32), vout: 2, scriptPubKey: scriptB, amount: 1.5, height: 9 },
        ].filter((u) => descriptors.includes(`raw(${u.scriptPubKey})`))
        return { result: { success: true, unspents } }
      }
      if (call.method === 'gettxout')
        return { result: call.params[0] === 'bb'.repeat(32) ? null : { value: 1 } }
      return { error: { code: -32601, message: 'Method not found' } }
    })
    const provider = bitcoinCore({ url: core.url, auth })
    const [a, b, a2] = await Promise.all([
      provider.utxos(addressA),
      provider.utxos(addressB),
      provider.utxos(addressA),
    ])
    expect(a).toEqual([{ txid: 'aa'.repeat(32), vout: 0, value: 50_000, confirmed: true, blockHeight: 7 }])
    expect(a2).toEqual(a)
    expect(b).toEqual([
      { txid: 'cc'.repeat(32), vout: 2, value: 150_000_000, confirmed: true, blockHeight: 9 },
    ])
    const scans = core.calls.filter((call) => call.method === 'scantxoutset')
    expect(scans.length).toBeLessThanOrEqual(2)
    const descriptors = [...new Set(scans.flatMap((scan) => scan.params[1] as string[]))].sort()
    expect(descriptors).toEqual([`raw(${scriptA})`, `raw(${scriptB})`].sort())
  })

  it('fee rates: estimatesmartfee in sat/vB, the node floor when there is no estimate', async () => {
    const core = await fakeCore((call) => {
      if (call.method === 'estimatesmartfee') {
        return call.params[0] === 6
          ? { result: { feerate: 0.00012, blocks: 6 } }
          : { result: { errors: ['Insufficient data'], blocks: 0 } }
      }
      if (call.method === 'getmempoolinfo') return { result: { mempoolminfee: 0.00001 } }
      if (call.method === 'getnetworkinfo') return { result: { relayfee: 0.00002 } }
      return { error: { code: -32601, message: 'Method not found' } }
    })
    const rates = await bitcoinCore({ url: core.url, auth }).feeRates()
    expect(rates['6']).toBeCloseTo(12)
    expect(rates['1']).toBeCloseTo(2)
  })

  it('a refused broadcast is -32603 with the node reason, sent once', async () => {
    const core = await fakeCore(() => ({ error: { code: -26, message: 'min relay fee not met, 100 < 141' } }))
    const error = await failure(bitcoinCore({ url: core.url, auth }).broadcast(Uint8Array.of(1, 2, 3)))
    expect(error.code).toBe(-32603)
    expect(error.data).toEqual({ reason: 'sendrawtransaction: min relay fee not met, 100 < 141' })
    expect(core.calls.filter((call) => call.method === 'sendrawtransaction')).toHaveLength(1)
  })

  it('bad credentials: -32603 naming the HTTP status, never the password', async () => {
    const core = await fakeCore(() => ({ result: null }), 401)
    const error = await failure(bitcoinCore({ url: core.url, auth }).utxos(addressA))
    expect(error.data).toEqual({ reason: 'bitcoind HTTP 401' })
    expect(JSON.stringify({ data: error.data, message: error.message })).not.toContain('super-secret')
  })

  it('a node that does not answer: -32603 after the timeout, not retried', async () => {
    const core = await fakeCore(() => 'hang')
    const error = await failure(
      bitcoinCore({ url: core.url, auth, broadcastTimeoutMs: 300 }).broadcast(Uint8Array.of(1)),
    )
    expect(error.data).toEqual({ reason: 'bitcoind did not answer within 300 ms' })
    // The node may have it: marked so (the journal keeps its bytes, its coins stay spent); a lost read is not.
    expect(isOutcomeUnknown(error)).toBe(true)
    expect(core.calls).toHaveLength(1)
  })

  it('a P2TR address: its script, with no ECC library set in bitcoinjs-lib (it once needed one)', async () => {
    const taproot = `5120${'11'.repeat(32)}`
    const core = await fakeCore((call) => {
      if (call.method === 'scantxoutset') return { result: { success: true, unspents: [] } }
      return { error: { code: -32601, message: 'Method not found' } }
    })
    expect(await bitcoinCore({ url: core.url, auth }).utxos(taprootAddress)).toEqual([])
    expect(core.calls[0]!.params[1]).toEqual([`raw(${taproot})`])
  })

  it('an unreachable node and an address it cannot read', async () => {
    const unreachable = bitcoinCore({ url: 'http://127.0.0.1:1/', auth })
    const lostRead = await failure(unreachable.feeRates())
    expect(lostRead.data).toEqual({ reason: 'bitcoind unreachable' })
    expect(isOutcomeUnknown(lostRead)).toBe(false)
    expect((await failure(unreachable.utxos('not-an-address'))).data).toMatchObject({
      reason: expect.stringContaining('not an address'),
    })
  })

  describe('rawTransactions: JSON-RPC batches of 250', () => {
    const txids = Array.from({ length: 600 }, (_, i) => i.toString(16).padStart(64, '0'))
    const rawOf = (txid: string) => `02${txid.slice(-4)}`
    const getRaw = (call: Call) =>
      call.params[0] === txids[417]
        ? { error: { code: -5, message: 'No such mempool or blockchain transaction' } }
        : { result: rawOf(call.params[0] as string) }

    it('on a node with a transaction index: by txid alone, in order', async () => {
      const core = await fakeCore((call) => {
        if (call.method === 'getindexinfo')
          return { result: { txindex: { synced: true, best_block_height: 9 } } }
        if (call.method === 'getrawtransaction') return getRaw(call)
        return { error: { code: -32601, message: 'Method not found' } }
      })
      const provider = bitcoinCore({ url: core.url, auth })
      const asked = txids.filter((_, i) => i !== 417)
      const raws = await provider.rawTransactions!(asked)
      expect(raws.map((raw) => Buffer.from(raw).toString('hex'))).toEqual(asked.map(rawOf))
      expect(core.requests).toEqual([1, 250, 250, 99])
      expect(core.calls.filter((call) => call.method === 'getrawtransaction')[0]!.params).toEqual([
        asked[0],
        false,
      ])
      // One failed transaction fails the batch, named.
      const error = await failure(provider.rawTransactions!(txids))
      expect(error.data).toEqual({
        reason: `getrawtransaction ${txids[417]}: No such mempool or blockchain transaction`,
      })
    })

    it('on a node without one: the block hash of each height a scan saw, read in one batch first', async () => {
      const core = await fakeCore((call) => {
        if (call.method === 'scantxoutset') {
          const unspents = txids.slice(0, 300).map((txid, i) => ({
            txid,
            vout: 0,
            scriptPubKey: scriptA,
            amount: 0.0001,
            height: 100 + (i % 3),
          }))
          return { result: { success: true, unspents } }
        }
        if (call.method === 'gettxout') return { result: { value: 0.0001 } }
        if (call.method === 'getblockhash') return { result: `${call.params[0]}`.padStart(64, 'b') }
        if (call.method === 'getrawtransaction') return getRaw(call)
        return { error: { code: -32601, message: 'Method not found' } }
      })
      const provider = bitcoinCore({ url: core.url, auth })
      await provider.utxos(addressA)
      const before = core.requests.length
      const asked = [...txids.slice(0, 300), ...txids.slice(300, 310)]
      const raws = await provider.rawTransactions!(asked)
      expect(raws.map((raw) => Buffer.from(raw).toString('hex'))).toEqual(asked.map(rawOf))
      // getindexinfo, then the three heights' hashes in one request, then the transactions in two.
      expect(core.requests.slice(before)).toEqual([1, 3, 250, 60])
      const calls = core.calls.filter((call) => call.method === 'getrawtransaction')
      expect(calls[0]!.params).toEqual([asked[0], false, '100'.padStart(64, 'b')])
      expect(calls.at(-1)!.params).toEqual([asked.at(-1), false])
    })
  })
})
