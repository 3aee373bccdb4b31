import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import fc from 'fast-check'
import { recoverTransactionAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChainAccess } from '../../src/eip155/provider.js'
import { httpProvider } from '../../src/eip155/providers/http.js'
import { recoverTransactionSender } from '../../src/eip155/recoverSigner.js'

/** A JSON-RPC node double whose answer per method the test sets; it records what it was sent. */
const answers = new Map<string, (params: unknown[]) => unknown>()
const seen: Array<{ body: { method: string; params: unknown[] }; authorization: string | undefined }> = []
let url = ''
const server = createServer(async (request: IncomingMessage, response) => {
  let text = ''
  for await (const chunk of request) text += chunk
  const body = JSON.parse(text) as { id: number; method: string; params: unknown[] }
  seen.push({ body, authorization: request.headers.authorization })
  const answer = answers.get(body.method)
  if (answer === undefined) {
    response.end(
      JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32601, message: 'method not found' } }),
    )
    return
  }
  const result = answer(body.params)
  response.end(
    result === 'garbage'
      ? 'not json'
      : JSON.stringify({ jsonrpc: '2.0', id: body.id, ...(result as object) }),
  )
})

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

describe('httpProvider and ChainAccess over plain JSON-RPC', () => {
  it("checks the chain id once, reads quantities, and passes the node's own error words on", async () => {
    answers.set('eth_chainId', () => ({ result: '0x1' }))
    answers.set('eth_getTransactionCount', () => ({ result: '0x2a' }))
    answers.set('eth_estimateGas', () => ({ error: { code: 3, message: 'execution reverted: nope' } }))
    const chain = new ChainAccess(1, httpProvider(url))
    expect(await chain.pendingNonce('0x0000000000000000000000000000000000000001')).toBe(42)
    await expect(
      chain.estimateGas({
        from: '0x0000000000000000000000000000000000000001',
        to: undefined,
        value: 5n,
        data: '0x',
        fees: { gasPrice: 7n },
      }),
    ).rejects.toMatchObject({ data: { reason: 'execution reverted: nope' } })
    const estimate = seen.find((entry) => entry.body.method === 'eth_estimateGas')!
    expect(estimate.body.params).toEqual([
      { from: '0x0000000000000000000000000000000000000001', value: '0x5', data: '0x', gasPrice: '0x7' },
    ])
    expect(seen.filter((entry) => entry.body.method === 'eth_chainId')).toHaveLength(1)
  })

  it('refuses a provider serving another chain, and answers that are not quantities', async () => {
    answers.set('eth_chainId', () => ({ result: '0x5' }))
    await expect(new ChainAccess(1, httpProvider(url)).gasPrice()).rejects.toMatchObject({
      data: { reason: 'provider serves chain 5, configured as eip155:1' },
    })
    answers.set('eth_chainId', () => ({ result: '0x1' }))
    answers.set('eth_gasPrice', () => ({ result: 'lots' }))
    await expect(new ChainAccess(1, httpProvider(url)).gasPrice()).rejects.toMatchObject({
      data: { reason: 'the node answered something other than a quantity' },
    })
    answers.set('eth_gasPrice', () => 'garbage')
    await expect(new ChainAccess(1, httpProvider(url)).gasPrice()).rejects.toThrow()
  })

  it('falls back to gas price minus base fee where eth_maxPriorityFeePerGas is missing', async () => {
    answers.set('eth_chainId', () => ({ result: '0x1' }))
    answers.delete('eth_maxPriorityFeePerGas')
    answers.set('eth_gasPrice', () => ({ result: '0x64' }))
    answers.set('eth_getBlockByNumber', () => ({ result: { gasLimit: '0x1c9c380', baseFeePerGas: '0x5a' } }))
    expect(await new ChainAccess(1, httpProvider(url)).maxPriorityFeePerGas()).toBe(10n)
  })

  it('sends URL credentials as a Basic header and never repeats the URL or its secrets in an error', async () => {
    answers.set('eth_chainId', () => ({ result: '0x1' }))
    answers.set('eth_gasPrice', () => ({ result: '0x1' }))
    const withSecret = url.replace('http://', 'http://alice:s3cret@')
    await new ChainAccess(1, httpProvider(`${withSecret}/?apikey=k3y`)).gasPrice()
    expect(seen.at(-1)!.authorization).toBe(`Basic ${btoa('alice:s3cret')}`)
    const closed = httpProvider('http://alice:s3cret@127.0.0.1:1/?apikey=k3y')
    const error = await new ChainAccess(1, closed).gasPrice().catch((caught: Error) => caught)
    expect(JSON.stringify({ error, message: String(error) })).not.toMatch(/s3cret|k3y|127\.0\.0\.1/)
    expect(error).toMatchObject({ code: -32603, data: { reason: expect.any(String) } })
  })

  it('an injected fetch carries every call instead of the global one', async () => {
    const calls: Array<{ url: string; body: { method: string; params: unknown[] } }> = []
    const injected = (async (target: string | URL | Request, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as { id: number; method: string; params: unknown[] }
      calls.push({ url: String(target), body })
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: '0x7a69' }))
    }) as typeof fetch
    const provider = httpProvider('https://user:secret@rpc.example/v1', { fetch: injected })
    expect(await provider.request({ method: 'eth_chainId' })).toBe('0x7a69')
    expect(calls).toEqual([
      { url: 'https://rpc.example/v1', body: { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] } },
    ])
  })

  it('a node that never answers fails the call after timeoutMs; a broadcast says it may have been sent', async () => {
    const silent = createServer(() => {}) // takes the request and never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const provider = httpProvider(`http://127.0.0.1:${(silent.address() as AddressInfo).port}`, {
        timeoutMs: 200,
      })
      await expect(provider.request({ method: 'eth_gasPrice' })).rejects.toMatchObject({
        message: 'request timed out',
      })
      await expect(
        provider.request({ method: 'eth_sendRawTransaction', params: ['0x02'] }),
      ).rejects.toMatchObject({
        message: 'broadcast outcome unknown (it may have been sent): request timed out',
      })
    } finally {
      silent.closeAllConnections()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
    expect(() => httpProvider(url, { timeoutMs: 0 })).toThrow('timeoutMs must be a positive integer')
  })
})

describe('recoverTransactionSender', () => {
  it("agrees with viem's recoverTransactionAddress on random signed transactions of every type", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }).filter((key) => key.some((byte) => byte !== 0)),
        fc.constantFrom('legacy', 'eip2930', 'eip1559'),
        fc.bigInt({ min: 0n, max: 10n ** 24n }),
        async (key, type, value) => {
          const hex = `0x${Buffer.from(key).toString('hex')}` as const
          let account: ReturnType<typeof privateKeyToAccount>
          try {
            account = privateKeyToAccount(hex)
          } catch {
            return // beyond the curve order
          }
          const fees = type === 'eip1559' ? { maxFeePerGas: 3n, maxPriorityFeePerGas: 1n } : { gasPrice: 3n }
          const signed = await account.signTransaction({
            type,
            chainId: 1,
            nonce: 1,
            gas: 21000n,
            to: '0x0000000000000000000000000000000000000002',
            value,
            ...fees,
          } as never)
          expect(recoverTransactionSender(signed)).toBe(
            await recoverTransactionAddress({ serializedTransaction: signed as never }),
          )
          expect(recoverTransactionSender(signed)).toBe(account.address)
        },
      ),
      { numRuns: 30 },
    )
    expect(() => recoverTransactionSender('0x02c0')).toThrow()
  })
})
