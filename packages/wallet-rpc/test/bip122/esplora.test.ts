import { describe, expect, it } from 'vitest'
import { esplora } from '../../src/bip122/providers/esplora.js'
import { isOutcomeUnknown, ProviderError } from '../../src/core/errors.js'
import { hasHiddenCharacters } from '../../src/core/text.js'
import { FakeEsplora } from './esplora.fake.js'

type Call = { url: string; method: string; body: unknown }

/** An injected fetch answering from a script of responses (or throwing), recording every call. */
function scripted(answers: Array<Response | Error>) {
  const calls: Call[] = []
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), method: init?.method ?? 'GET', body: init?.body })
    const next = answers.shift()
    if (next === undefined) throw new Error('no more answers')
    if (next instanceof Error) throw next
    return next
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
const txid = 'ab'.repeat(32)

describe('esplora provider', () => {
  it('reads UTXOs, address activity, fee rates and raw transactions in Esplora shapes', async () => {
    const { fetch, calls } = scripted([
      json([{ txid, vout: 1, value: 5000, status: { confirmed: true, block_height: 7 } }]),
      json({ chain_stats: { tx_count: 2 }, mempool_stats: { tx_count: 1 } }),
      json({ '1': 12.5, '6': 3, '144': 1.01, junk: 'x' }),
      new Response('0200000001', { status: 200 }),
    ])
    const provider = esplora('http://esplora.test/api/', { fetch })
    expect(await provider.utxos('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu')).toEqual([
      { txid, vout: 1, value: 5000, confirmed: true, blockHeight: 7 },
    ])
    expect(await provider.addressActivity('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu')).toEqual({
      txCount: 3,
    })
    expect(await provider.feeRates()).toEqual({ '1': 12.5, '6': 3, '144': 1.01 })
    expect(await provider.rawTransaction(txid)).toEqual(Uint8Array.of(2, 0, 0, 0, 1))
    expect(calls.map((call) => `${call.method} ${call.url}`)).toEqual([
      'GET http://esplora.test/api/address/bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu/utxo',
      'GET http://esplora.test/api/address/bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      'GET http://esplora.test/api/fee-estimates',
      `GET http://esplora.test/api/tx/${txid}/hex`,
    ])
  })

  it('retries reads after network errors, 429 and 5xx, then gives up with -32603', async () => {
    const { fetch, calls } = scripted([
      new Error('ECONNRESET'),
      new Response('busy', { status: 503 }),
      json([]),
    ])
    const provider = esplora('http://esplora.test', { fetch, retryDelayMs: 0 })
    expect(await provider.utxos('addr')).toEqual([])
    expect(calls).toHaveLength(3)

    const failing = scripted([
      new Response('slow down', { status: 429 }),
      new Response('x', { status: 500 }),
      new Response('x', { status: 502 }),
    ])
    const error = await esplora('http://esplora.test', { fetch: failing.fetch, retryDelayMs: 0 })
      .utxos('addr')
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).code).toBe(-32603)
    expect(failing.calls).toHaveLength(3)
  })

  it('does not retry a 4xx read', async () => {
    const { fetch, calls } = scripted([new Response('Invalid Bitcoin address', { status: 400 })])
    await expect(esplora('http://e', { fetch, retryDelayMs: 0 }).addressActivity('x')).rejects.toMatchObject({
      code: -32603,
      data: { reason: expect.stringContaining('400 Invalid Bitcoin address') },
    })
    expect(calls).toHaveLength(1)
  })

  it('broadcasts exactly once: POST /tx with the hex body, returns the txid', async () => {
    const { fetch, calls } = scripted([new Response(`${txid}\n`, { status: 200 })])
    expect(await esplora('http://e', { fetch }).broadcast(Uint8Array.of(1, 2, 255))).toBe(txid)
    expect(calls).toEqual([{ url: 'http://e/tx', method: 'POST', body: '0102ff' }])
  })

  it('never retries a failed broadcast, and reports the node’s reason', async () => {
    for (const failure of [
      new Response('sendrawtransaction RPC error: {"code":-26,"message":"min relay fee not met"}', {
        status: 400,
      }),
      new Response('upstream', { status: 503 }),
      new Error('socket hang up'),
    ]) {
      const { fetch, calls } = scripted([failure, new Response(txid)])
      const error = await esplora('http://e', { fetch, retryDelayMs: 0 })
        .broadcast(Uint8Array.of(1))
        .catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(ProviderError)
      expect(calls).toHaveLength(1)
    }
    const { fetch } = scripted([new Response('min relay fee not met', { status: 400 })])
    await expect(esplora('http://e', { fetch }).broadcast(Uint8Array.of(1))).rejects.toMatchObject({
      code: -32603,
      data: { reason: 'broadcast rejected: 400 min relay fee not met' },
    })
    // A lost connection is not a refusal: the node may have the transaction.
    const lost = scripted([new Error('socket hang up')])
    const unknown = await esplora('http://e', { fetch: lost.fetch })
      .broadcast(Uint8Array.of(1))
      .catch((error: unknown) => error)
    expect(unknown).toMatchObject({
      code: -32603,
      data: { reason: 'broadcast outcome unknown (it may have been sent): socket hang up' },
    })
    // Marked so (the journal keeps its bytes, its coins stay spent); a refusal or a lost read is not.
    expect(isOutcomeUnknown(unknown)).toBe(true)
    const refusal = await esplora('http://e', { fetch: scripted([new Response('x', { status: 400 })]).fetch })
      .broadcast(Uint8Array.of(1))
      .catch((error: unknown) => error)
    expect(isOutcomeUnknown(refusal)).toBe(false)
    const lostRead = await esplora('http://e', {
      fetch: scripted([new Error('socket hang up')]).fetch,
      retries: 0,
    })
      .feeRates()
      .catch((error: unknown) => error)
    expect(isOutcomeUnknown(lostRead)).toBe(false)
  })

  it("the node's reject reason reaches the dapp as one bounded, printable line", async () => {
    const words = `bad-txns \u202egpj.exe\u0000\u001b[2J\r\n${'x'.repeat(5000)}`
    const { fetch } = scripted([new Response(words, { status: 400 })])
    const error = (await esplora('http://e', { fetch })
      .broadcast(Uint8Array.of(1))
      .catch((caught: unknown) => caught)) as ProviderError
    const { reason } = error.data as { reason: string }
    expect(reason.startsWith('broadcast rejected: 400 bad-txns \\u{202E}gpj.exe\\u{0}\\u{1B}')).toBe(true)
    expect(hasHiddenCharacters(reason) || /[\t\n\r]/.test(reason)).toBe(false)
    expect(reason.length).toBeLessThan(600)
  })

  it('refuses malformed answers instead of passing them on', async () => {
    const cases: Array<[Response, (provider: ReturnType<typeof esplora>) => Promise<unknown>]> = [
      [json({ not: 'an array' }), (p) => p.utxos('a')],
      [json([{ txid: 'zz', vout: 0, value: 1, status: { confirmed: true } }]), (p) => p.utxos('a')],
      [json([{ txid, vout: -1, value: 1, status: { confirmed: true } }]), (p) => p.utxos('a')],
      [json([{ txid, vout: 0, value: 1.5, status: { confirmed: true } }]), (p) => p.utxos('a')],
      [json({ chain_stats: {} }), (p) => p.addressActivity('a')],
      [new Response('not json'), (p) => p.feeRates()],
      [new Response('xyz'), (p) => p.rawTransaction(txid)],
      [new Response('not a txid'), (p) => p.broadcast(Uint8Array.of(1))],
    ]
    for (const [answer, read] of cases) {
      const { fetch } = scripted([answer])
      await expect(read(esplora('http://e', { fetch, retries: 0 }))).rejects.toBeInstanceOf(ProviderError)
    }
    await expect(
      esplora('http://e', { fetch: scripted([]).fetch }).rawTransaction('../etc'),
    ).rejects.toBeInstanceOf(ProviderError)
  })

  it('sends URL credentials as Basic authorization, never in the URL or an error', async () => {
    const { fetch, calls } = scripted([json([])])
    const seen: Array<RequestInit['headers']> = []
    const recording = ((input: string | URL | Request, init?: RequestInit) => {
      seen.push(init?.headers)
      return fetch(input, init)
    }) as typeof globalThis.fetch
    await esplora('https://wallet:p%40ss@esplora.test/api/', { fetch: recording }).utxos('a')
    expect(calls[0]!.url).toBe('https://esplora.test/api/address/a/utxo')
    expect(seen[0]).toEqual({ authorization: `Basic ${Buffer.from('wallet:p@ss').toString('base64')}` })
    // Real fetch refusing the connection (port 1 is never fetched): the reason names no credential.
    const error = await esplora('http://wallet:hunter2@127.0.0.1:1', { retries: 0 })
      .feeRates()
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ code: -32603 })
    expect(JSON.stringify((error as ProviderError).data)).not.toMatch(/hunter2|wallet:/)
    expect(() => esplora('not a url with secret')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret') }),
    )
  })

  it('talks to an Esplora served on 127.0.0.1 (real fetch)', async () => {
    const fake = new FakeEsplora()
    const url = await fake.start()
    try {
      fake.fund('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', { txid, vout: 3, value: 1234 })
      fake.broadcastAnswer = { status: 200, body: txid }
      const provider = esplora(url)
      expect(await provider.utxos('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu')).toEqual([
        { txid, vout: 3, value: 1234, confirmed: true, blockHeight: 100 },
      ])
      expect(await provider.addressActivity('bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu')).toEqual({
        txCount: 1,
      })
      expect(await provider.feeRates()).toEqual({ '1': 20.5, '6': 10, '144': 1.01 })
      expect(await provider.broadcast(Uint8Array.of(1))).toBe(txid)
      fake.broadcastAnswer = { status: 400, body: 'bad-txns-inputs-missingorspent' }
      await expect(provider.broadcast(Uint8Array.of(1))).rejects.toMatchObject({
        data: { reason: 'broadcast rejected: 400 bad-txns-inputs-missingorspent' },
      })
      expect(fake.requests.filter((request) => request === 'POST /tx')).toHaveLength(2)
    } finally {
      await fake.stop()
    }
  })

  it('rawTransactions: every one in the order asked, at most readsInFlight requests at once', async () => {
    const txids = Array.from({ length: 40 }, (_, i) => i.toString(16).padStart(64, '0'))
    let inFlight = 0
    let most = 0
    const fetch = (async (input: string | URL | Request) => {
      inFlight++
      most = Math.max(most, inFlight)
      // Answered out of order: later requests sooner.
      const txid = /\/tx\/([0-9a-f]{64})\/hex$/.exec(String(input))![1]!
      await new Promise((resolve) => setTimeout(resolve, 40 - (Number.parseInt(txid, 16) % 8) * 5))
      inFlight--
      return new Response(`02${txid.slice(-2)}`, { status: 200 })
    }) as typeof globalThis.fetch
    const raws = await esplora('http://esplora.test', { fetch, readsInFlight: 5 }).rawTransactions!(txids)
    expect(raws).toEqual(txids.map((txid) => Uint8Array.of(2, Number.parseInt(txid.slice(-2), 16))))
    expect(most).toBe(5)
    expect(() => esplora('http://esplora.test', { readsInFlight: 0 })).toThrow(/readsInFlight/)
    expect(() => esplora('http://esplora.test', { readsInFlight: 65 })).toThrow(/readsInFlight/)
  })
})
