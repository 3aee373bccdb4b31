import {
  type BitcoinRegtest,
  type OrdIndex,
  serveOrd,
  startBitcoinRegtest,
} from '@wallet-rpc/devchains/bitcoinRegtest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readCoinAssets } from '../../../src/bip122/assets/lookup.js'
import { ordServer, parseExactJson } from '../../../src/bip122/assets/ordServer.js'

// ordServer() against the ord-compatible index of devchains over the embedded regtest chain (the same JSON
// shapes and quirks as ord 0.27), and against ord's own documented answers.

let chain: BitcoinRegtest
let ord: OrdIndex
beforeAll(async () => {
  chain = await startBitcoinRegtest()
  ord = await serveOrd(chain.chain)
})
afterAll(async () => {
  await ord.stop()
  await chain.stop()
})

const script = (byte: number) => Uint8Array.from([0x00, 0x14, ...Array(20).fill(byte)])
const fund = (sats: number, confirm = true) => {
  const { txid, vout } = chain.chain.fund(script(0x11), sats, { confirm })
  return { txid, vout, key: `${txid}:${vout}` }
}
const requestsSince = (before: number) => ord.requests().slice(before)

describe('ordServer', () => {
  it('reads inscriptions and runes (a u128 amount exactly), with Accept: application/json on every request', async () => {
    const coin = fund(10_000)
    const id = ord.inscribe(coin, 0)
    const huge = 2n ** 100n + 7n
    ord.addRunes(coin, { name: 'UNCOMMON•GOODS', id: '840000:3', amount: huge, divisibility: 2, symbol: '⧉' })
    const before = ord.requests().length
    const answer = (await ordServer(ord.url).outputs([coin.key])).get(coin.key)
    expect(answer).toEqual({
      indexed: true,
      value: 10_000,
      spent: false,
      inscriptions: [{ id }],
      runes: [{ rune: 'UNCOMMON•GOODS', amount: huge, divisibility: 2, symbol: '⧉' }],
      satRanges: undefined,
    })
    expect(requestsSince(before)).toEqual([
      { method: 'POST', path: '/outputs', accept: 'application/json', outpoints: 1 },
    ])
  })

  it('asks in bounded batches', async () => {
    const coins = Array.from({ length: 25 }, () => fund(1000))
    const before = ord.requests().length
    const found = await ordServer(ord.url, { batchSize: 10 }).outputs(coins.map((coin) => coin.key))
    expect(found.size).toBe(25)
    expect(
      requestsSince(before)
        .map((request) => request.outpoints)
        .sort(),
    ).toEqual([10, 10, 5])
  })

  it('a batch answered 404 (one outpoint unknown to ord) is asked again one by one; the unknown one stays unanswered', async () => {
    const coins = [fund(1000), fund(2000)]
    const unknown = `${'ab'.repeat(32)}:0`
    const before = ord.requests().length
    const found = await ordServer(ord.url).outputs([coins[0]!.key, unknown, coins[1]!.key])
    expect([...found.keys()].sort()).toEqual([coins[0]!.key, coins[1]!.key].sort())
    const paths = requestsSince(before).map((request) => `${request.method} ${request.path}`)
    expect(paths[0]).toBe('POST /outputs')
    expect(paths.slice(1).sort()).toEqual(
      [`GET /output/${coins[0]!.key}`, `GET /output/${coins[1]!.key}`, `GET /output/${unknown}`].sort(),
    )
  })

  it('an unconfirmed output answers indexed:false and looks empty: the wallet judges it unknown', async () => {
    const coin = fund(5000, false)
    const provider = ordServer(ord.url)
    expect((await provider.outputs([coin.key])).get(coin.key)).toMatchObject({
      indexed: false,
      inscriptions: [],
      runes: [],
    })
    const judged = await readCoinAssets(provider, [{ outpoint: coin.key, value: 5000n }])
    expect(judged.get(coin.key)).toEqual({
      known: false,
      reason: 'not indexed yet (unconfirmed, or the index is behind the chain)',
    })
    chain.mine(1)
  })

  it('runes: null (no --index-runes) stays unknown, never empty', async () => {
    const coin = fund(5000)
    ord.configure({ indexRunes: false })
    try {
      const provider = ordServer(ord.url)
      expect((await provider.outputs([coin.key])).get(coin.key)?.runes).toBeUndefined()
      const judged = await readCoinAssets(provider, [{ outpoint: coin.key, value: 5000n }])
      expect(judged.get(coin.key)).toMatchObject({ known: false, reason: expect.stringContaining('runes') })
    } finally {
      ord.configure({ indexRunes: true })
    }
  })

  it('with details: each inscription offset from its satpoint, each rune id from /rune/<name>', async () => {
    const coin = fund(20_000)
    const first = ord.inscribe(coin, 0)
    const second = ord.inscribe(coin, 12_345)
    ord.addRunes(coin, { name: 'DOG•GO•TO•THE•MOON', id: '840000:3', amount: 5n })
    const before = ord.requests().length
    const answer = (await ordServer(ord.url).outputs([coin.key], { details: true })).get(coin.key)
    expect(answer?.inscriptions).toEqual([
      { id: first, offset: 0 },
      { id: second, offset: 12_345 },
    ])
    expect(answer?.runes).toEqual([
      { rune: 'DOG•GO•TO•THE•MOON', amount: 5n, divisibility: 0, symbol: undefined, id: '840000:3' },
    ])
    expect(
      requestsSince(before)
        .map((request) => request.path)
        .sort(),
    ).toEqual(
      ['/outputs', `/inscription/${first}`, `/inscription/${second}`, '/rune/DOG•GO•TO•THE•MOON'].sort(),
    )
    expect(requestsSince(before).every((request) => request.accept === 'application/json')).toBe(true)
  })

  it('sat ranges (with --index-sats) are passed on and rare sats found in them', async () => {
    const coin = fund(1000)
    ord.configure({ indexSats: true })
    try {
      // 500 sats ending at block 1's first sat, then 500 more: the uncommon sat 5e9 sits at offset 999.
      ord.setSatRanges(coin, [
        [4_999_999_500, 4_999_999_999],
        [5_000_000_000 - 1, 5_000_000_000 + 1],
        [2_000_000_000, 2_000_000_499],
      ])
      const provider = ordServer(ord.url)
      const judged = await readCoinAssets(provider, [{ outpoint: coin.key, value: 1000n }])
      expect(judged.get(coin.key)).toMatchObject({
        known: true,
        satRangesKnown: true,
        rareSats: [{ sat: 5_000_000_000, offset: 500, rarity: 'uncommon' }],
      })
    } finally {
      ord.configure({ indexSats: false })
    }
  })

  it('a 500 is retried; a server that hangs ends at the deadline; a disabled JSON API is a reason, not "empty"', async () => {
    const coin = fund(1000)
    ord.injectFault({ kind: 'http500' })
    expect((await ordServer(ord.url, { retryDelayMs: 1 }).outputs([coin.key])).has(coin.key)).toBe(true)

    ord.injectFault({ kind: 'hang' })
    const hung = ordServer(ord.url, { timeoutMs: 200, deadlineMs: 300, retries: 0 })
    await expect(hung.outputs([coin.key])).rejects.toMatchObject({
      data: {
        reason: expect.stringMatching(/^ord server 127\.0\.0\.1:\d+: POST \/outputs: request timed out$/),
      },
    })

    ord.configure({ jsonApi: false })
    try {
      const judged = await readCoinAssets(ordServer(ord.url), [{ outpoint: coin.key, value: 1000n }])
      expect(judged.get(coin.key)).toEqual({
        known: false,
        reason: expect.stringMatching(/could not be read: .*POST \/outputs: HTTP 406$/),
      })
    } finally {
      ord.configure({ jsonApi: true })
    }
  })
})

describe("ordServer reads ord's documented answers (docs/src/guides/api.md, ord 0.27.1)", () => {
  // The POST /outputs example of the guide, verbatim (one script_pubkey in ord's older asm form).
  const documented = `[
  {
    "address": "bc1pz4kvfpurqc2hwgrq0nwtfve2lfxvdpfcdpzc6ujchyr3ztj6gd9sfr6ayf",
    "indexed": false,
    "inscriptions": [],
    "outpoint": "bc4c30829a9564c0d58e6287195622b53ced54a25711d1b86be7cd3a70ef61ed:0",
    "runes": {},
    "sat_ranges": null,
    "script_pubkey": "OP_PUSHNUM_1 OP_PUSHBYTES_32 156cc4878306157720607cdcb4b32afa4cc6853868458d7258b907112e5a434b",
    "spent": true,
    "transaction": "bc4c30829a9564c0d58e6287195622b53ced54a25711d1b86be7cd3a70ef61ed",
    "value": 10000
  },
  {
    "address": "bc1pkc2cdnm6xermt2vzxg9wwcur5prgpl6pms3xf9ydtyax5pnqsgwqvuu5cq",
    "indexed": false,
    "inscriptions": [],
    "outpoint": "bc4c30829a9564c0d58e6287195622b53ced54a25711d1b86be7cd3a70ef61ed:1",
    "runes": {},
    "sat_ranges": null,
    "script_pubkey": "5120b61586cf7a3647b5a982320ae76383a04680ff41dc2264948d593a6a0660821c",
    "spent": true,
    "transaction": "bc4c30829a9564c0d58e6287195622b53ced54a25711d1b86be7cd3a70ef61ed",
    "value": 483528
  }
]`
  const txid = 'bc4c30829a9564c0d58e6287195622b53ced54a25711d1b86be7cd3a70ef61ed'

  it('parses them, with the request ord expects', async () => {
    const seen: { url: string; init: RequestInit }[] = []
    const provider = ordServer('https://user:secret@ord.example.com/', {
      fetch: async (url, init) => {
        seen.push({ url: String(url), init: init! })
        return new Response(documented, { status: 200, headers: { 'content-type': 'application/json' } })
      },
    })
    expect(provider.name).toBe('ord server ord.example.com')
    const found = await provider.outputs([`${txid}:0`, `${txid}:1`])
    expect(found.get(`${txid}:1`)).toEqual({
      indexed: false,
      value: 483528,
      spent: true,
      inscriptions: [],
      runes: [],
      satRanges: undefined,
    })
    expect(seen).toHaveLength(1)
    expect(seen[0]!.url).toBe('https://ord.example.com/outputs')
    expect(seen[0]!.init.headers).toEqual({
      accept: 'application/json',
      'content-type': 'application/json',
      authorization: `Basic ${btoa('user:secret')}`,
    })
    expect(JSON.parse(String(seen[0]!.init.body))).toEqual([`${txid}:0`, `${txid}:1`])
  })

  it('an HTML page (what ord sends without the exact Accept header) is not taken for an answer', async () => {
    const provider = ordServer('http://ord.invalid', {
      fetch: async () => new Response('<!doctype html><html></html>', { status: 200 }),
    })
    await expect(provider.outputs([`${txid}:0`])).rejects.toMatchObject({
      data: { reason: expect.stringContaining('not JSON') },
    })
  })
})

describe('parseExactJson', () => {
  it('keeps integers past 2^53 exact and leaves strings alone', () => {
    const parsed = parseExactJson(
      '{"a":340282366920938463463374607431768211455,"b":"12345678901234567890","c":[1.5e300,-3,12],"d":"x\\"99999999999999999"}',
    )
    expect(parsed).toEqual({
      a: '340282366920938463463374607431768211455',
      b: '12345678901234567890',
      c: [1.5e300, -3, 12],
      d: 'x"99999999999999999',
    })
  })
})
