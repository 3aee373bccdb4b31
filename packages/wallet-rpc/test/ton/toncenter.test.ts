import { Cell } from '@ton/core'
import { describe, expect, it } from 'vitest'
import { ProviderError } from '../../src/core/errors.js'
import type { JsonRpcFailure, JsonRpcSuccess } from '../../src/core/jsonrpc.js'
import { hasHiddenCharacters } from '../../src/core/text.js'
import { normalizedMessageHash, toncenter } from '../../src/ton/index.js'
import { plainDestination, request, tonWallet, vectors } from './fixtures.js'

type Call = { url: URL; method: string; headers: Record<string, string>; body: unknown }

/** A fetch that answers like toncenter API v2 and records what it was asked. */
function fakeToncenter(answers: Record<string, (call: Call) => unknown>, status = 200) {
  const calls: Call[] = []
  const fetch = (async (input: URL | string | Request, init?: RequestInit) => {
    const url = new URL(String(input))
    const call: Call = {
      url,
      method: init?.method ?? 'GET',
      headers: Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>)),
      body: init?.body === undefined ? undefined : JSON.parse(String(init.body)),
    }
    calls.push(call)
    const name = url.pathname.split('/').at(-1)!
    const answer = answers[name]
    return new Response(
      JSON.stringify(answer ? answer(call) : { ok: false, error: 'Not Found', code: 404 }),
      {
        status: answer ? status : 404,
        headers: { 'content-type': 'application/json' },
      },
    )
  }) as typeof globalThis.fetch
  return { fetch, calls }
}

const address = '0:d22ce1556a6359cddcb82ee95c95c08110591145e67b5ac70108b030dcf839de'

describe('toncenter provider', () => {
  it('sends URL credentials as Basic authorization, never in the URL or an error', async () => {
    const { fetch, calls } = fakeToncenter({
      runGetMethod: () => ({ ok: true, result: { exit_code: 0, stack: [['num', '0x7']] } }),
    })
    const provider = toncenter('https://bob:hunter2@ton.example/api/v2', { fetch })
    expect(await provider.getSeqno(address)).toBe(7)
    expect(calls[0]?.url.href).toBe(`https://ton.example/api/v2/runGetMethod`)
    expect(calls[0]?.headers.authorization).toBe(`Basic ${Buffer.from('bob:hunter2').toString('base64')}`)
    const failing = toncenter('https://bob:hunter2@ton.example/api/v2', {
      fetch: (async () => {
        throw new TypeError('fetch failed for https://bob:hunter2@ton.example/api/v2/runGetMethod')
      }) as typeof globalThis.fetch,
    })
    const error = await failing.getSeqno(address).catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(ProviderError)
    expect(JSON.stringify((error as ProviderError).data)).not.toContain('hunter2')
  })

  it('reads account state, balance and seqno with the API key header', async () => {
    const { fetch, calls } = fakeToncenter({
      getAddressInformation: () => ({
        ok: true,
        result: { '@type': 'raw.fullAccountState', balance: '1500', state: 'active' },
      }),
      runGetMethod: () => ({ ok: true, result: { gas_used: 499, stack: [['num', '0x2a']], exit_code: 0 } }),
    })
    const provider = toncenter('https://testnet.toncenter.com/api/v2/jsonRPC', { apiKey: 'k3y', fetch })
    expect(await provider.getAccount(address)).toEqual({ state: 'active', balance: 1500n })
    expect(await provider.getSeqno(address)).toBe(42)
    expect(calls[0]!.url.toString()).toBe(
      `https://testnet.toncenter.com/api/v2/getAddressInformation?address=${encodeURIComponent(address)}`,
    )
    expect(calls[0]!.headers['x-api-key']).toBe('k3y')
    expect(calls[1]!).toMatchObject({ method: 'POST', body: { address, method: 'seqno', stack: [] } })
  })

  it('maps uninitialized accounts and refuses malformed answers', async () => {
    const { fetch } = fakeToncenter({
      getAddressInformation: () => ({ ok: true, result: { balance: '0', state: 'uninitialized' } }),
      runGetMethod: () => ({ ok: true, result: { stack: [], exit_code: -13 } }),
    })
    const provider = toncenter('https://toncenter.com/api/v2/', { fetch })
    expect(await provider.getAccount(address)).toEqual({ state: 'uninit', balance: 0n })
    await expect(provider.getSeqno(address)).rejects.toBeInstanceOf(ProviderError)
  })

  it('reports HTTP and API errors as ProviderError without the API key', async () => {
    const { fetch } = fakeToncenter(
      { getAddressInformation: () => ({ ok: false, error: 'Ratelimit exceed', code: 429 }) },
      429,
    )
    const provider = toncenter('https://toncenter.com/api/v2', { apiKey: 'secret-key', fetch })
    const error = (await provider.getAccount(address).catch((e: unknown) => e)) as ProviderError
    expect(error).toBeInstanceOf(ProviderError)
    expect(error.data).toEqual({ reason: 'toncenter getAddressInformation: HTTP 429, Ratelimit exceed' })
    expect(JSON.stringify(error.data)).not.toContain('secret-key')
    const unreachable = toncenter('http://127.0.0.1:9', {
      fetch: (async () => {
        throw new TypeError('fetch failed')
      }) as typeof globalThis.fetch,
    })
    await expect(unreachable.getSeqno(address)).rejects.toThrow(ProviderError)
  })

  it("toncenter's error text reaches the dapp as one bounded, printable line", async () => {
    const words = `exit code \u202e33\u0000\u001b[2J\r\n${'x'.repeat(5000)}`
    const { fetch } = fakeToncenter({ getAddressInformation: () => ({ ok: false, error: words }) }, 500)
    const error = (await toncenter('https://toncenter.com/api/v2', { fetch })
      .getAccount(address)
      .catch((e: unknown) => e)) as ProviderError
    const { reason } = error.data as { reason: string }
    expect(reason.startsWith('toncenter getAddressInformation: HTTP 500, exit code \\u{202E}33\\u{0}')).toBe(
      true,
    )
    expect(hasHiddenCharacters(reason) || /[\t\n\r]/.test(reason)).toBe(false)
    expect(reason.length).toBeLessThan(600)
  })

  it('ton_sendMessage over toncenter: broadcasts the BoC once and checks the returned hash', async () => {
    let expectedHash = ''
    const { fetch, calls } = fakeToncenter({
      getAddressInformation: () => ({ ok: true, result: { balance: '5000000000', state: 'uninitialized' } }),
      sendBocReturnHash: (call) => {
        const boc = (call.body as { boc: string }).boc
        expectedHash = Buffer.from(normalizedMessageHash(Cell.fromBase64(boc))).toString('base64')
        return {
          ok: true,
          result: {
            '@type': 'raw.extMessageInfo',
            hash: Cell.fromBase64(boc).hash().toString('base64'),
            hash_norm: expectedHash,
          },
        }
      },
    })
    const { rpc } = tonWallet({
      providers: { 'ton:-239': toncenter('https://toncenter.com/api/v2', { fetch }) },
    })
    const golden = vectors('external-messages.json')
    const response = await rpc.handle({
      chainId: 'ton:-239',
      request: request('ton_sendMessage', golden.request),
    })
    const boc = (response as JsonRpcSuccess<string>).result
    expect(boc).toBe(golden.cases[1].boc)
    const broadcasts = calls.filter((call) => call.url.pathname.endsWith('/sendBocReturnHash'))
    expect(broadcasts).toHaveLength(1)
    expect((broadcasts[0]!.body as { boc: string }).boc).toBe(boc)
    expect(expectedHash).not.toBe('')
  })

  it('ton_sendMessage over toncenter: a hash that does not match ours is an error, never retried', async () => {
    const { fetch, calls } = fakeToncenter({
      getAddressInformation: () => ({ ok: true, result: { balance: '5000000000', state: 'uninitialized' } }),
      sendBocReturnHash: () => ({ ok: true, result: { hash: Buffer.alloc(32, 9).toString('base64') } }),
    })
    const { rpc } = tonWallet({
      providers: { 'ton:-239': toncenter('https://toncenter.com/api/v2', { fetch }) },
    })
    const response = (await rpc.handle({
      chainId: 'ton:-239',
      request: request('ton_sendMessage', { messages: [{ address: plainDestination, amount: '1' }] }),
    })) as JsonRpcFailure
    expect(response.error.code).toBe(-32603)
    expect(calls.filter((call) => call.url.pathname.endsWith('/sendBocReturnHash'))).toHaveLength(1)
  })
})
