import { type PaySandbox, startPaySandbox } from '@wallet-rpc/pay-sandbox'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createExplorerClient,
  type ExplorerClientOptions,
  ExplorerError,
  type ExplorerFetch,
  type ExplorerListingParams,
} from '../../src/explorer/index.js'

/**
 * The `wallet-rpc/explorer` client against the real sandbox server (127.0.0.1, port 0): typed answers equal
 * to the wire's, the parameter rules checked before sending, paging, ETag/TTL caching, and a typed
 * ExplorerError for every failure.
 */

let sandbox: PaySandbox
beforeAll(async () => {
  sandbox = await startPaySandbox()
})
afterAll(() => sandbox.stop())

type Sent = { url: string; ifNoneMatch: string | undefined; status: number }

/** A client over the real fetch that records every request it sends and the status it got. */
function client(options: Partial<ExplorerClientOptions> = {}) {
  const sent: Sent[] = []
  const recording: ExplorerFetch = async (url, init) => {
    const response = await fetch(url, init)
    sent.push({ url, ifNoneMatch: init.headers['if-none-match'], status: response.status })
    return response
  }
  return {
    explorer: createExplorerClient({ baseUrl: sandbox.url, projectId: 'demo', fetch: recording, ...options }),
    sent,
  }
}

async function failure(promise: Promise<unknown>): Promise<ExplorerError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(ExplorerError)
  return error as ExplorerError
}

const names = (page: { listings: Record<string, { name: string }> }) =>
  Object.values(page.listings).map((l) => l.name)

describe('explorer client: listings', () => {
  it('returns the same listings the wire carries, typed', async () => {
    const { explorer } = client()
    for (const type of ['wallets', 'dapps', 'hybrid', 'all'] as const) {
      const wire = await (await fetch(`${sandbox.url}/v3/${type}?projectId=demo`)).json()
      expect(await explorer.listings(type)).toEqual(wire)
    }
    expect(names(await explorer.wallets())).toEqual(['Sandbox Wallet', 'Harbor Wallet'])
    expect(names(await explorer.hybrid())).toEqual(['Bridge Hub'])
    const page = await explorer.dapps({ chains: ['eip155:1'], sdks: ['sign_v2'], entries: 1, page: 1 })
    expect(page.count).toBe(1)
    expect(page.total).toBe(1)
    expect(names(page)).toEqual(['Sandbox Swap'])
    expect(names(await explorer.all({ search: 'wallet', platforms: ['mac'] }))).toEqual(['Harbor Wallet'])
    expect(names(await explorer.all({ version: 1 }))).toEqual([
      'Harbor Wallet',
      'Bridge Hub',
      'Legacy Lending',
    ])
  })

  it('refuses a broken parameter rule before sending, with the same issues the server gives', async () => {
    const cases: Array<[ExplorerListingParams, string]> = [
      [{ entries: 5 }, 'entries=5'],
      [{ page: 2 }, 'page=2'],
      [{ entries: 0, page: 1 }, 'entries=0&page=1'],
      [{ entries: 1.5, page: 1 }, 'entries=1.5&page=1'],
      [{ search: '  ' }, 'search=%20%20'],
      [{ ids: [] }, 'ids='],
      [{ chains: ['ethereum'] }, 'chains=ethereum'],
      [{ platforms: ['tv' as 'ios'] }, 'platforms=tv'],
      [{ sdks: ['sign_v9' as 'sign_v2'] }, 'sdks=sign_v9'],
      [{ standards: ['EIP-712'] }, 'standards=EIP-712'],
      [{ version: 3 as 2 }, 'version=3'],
      [{ version: 2, sdks: ['sign_v2'] }, 'version=2&sdks=sign_v2'],
    ]
    const { explorer, sent } = client()
    for (const [params, query] of cases) {
      const error = await failure(explorer.all(params))
      expect(error.kind, query).toBe('invalid_params')
      const wire = (await (await fetch(`${sandbox.url}/v3/all?projectId=demo&${query}`)).json()) as {
        issues: unknown
        message: string
      }
      expect(error.issues, query).toEqual(wire.issues)
      expect(error.message).toBe(wire.message)
    }
    expect(sent).toEqual([])
  })

  it('refuses a list element holding a comma (it would silently become two)', async () => {
    const { explorer, sent } = client()
    const error = await failure(explorer.all({ ids: ['a,b'] }))
    expect(error.kind).toBe('invalid_params')
    expect(error.issues).toEqual([{ field: 'ids', message: 'value 1 must be a string without a comma' }])
    const badProject = await failure(
      createExplorerClient({ baseUrl: sandbox.url, projectId: 'has space' }).all(),
    )
    expect(badProject.issues.map((issue) => issue.field)).toEqual(['projectId'])
    expect(sent).toEqual([])
  })

  it('client and server agree on every generated parameter set (accepted by one iff by the other)', async () => {
    const element = fc.oneof(
      fc.constantFrom('eip155:1', 'ios', 'injected', 'sign_v1', 'eip-712', 'x', '', 'ton:-3'),
      fc.string({ maxLength: 6 }),
    )
    const params = fc.record(
      {
        entries: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double()),
        page: fc.integer({ min: -1, max: 4 }),
        search: fc.string({ maxLength: 8 }),
        ids: fc.array(element, { maxLength: 3 }),
        chains: fc.array(element, { maxLength: 3 }),
        platforms: fc.array(element, { maxLength: 3 }),
        sdks: fc.array(element, { maxLength: 3 }),
        standards: fc.array(element, { maxLength: 3 }),
        version: fc.constantFrom(1, 2, 3, 0),
      },
      { requiredKeys: [] },
    )
    const { explorer } = client({ ttlMs: 0 })
    const outcomes = new Set<boolean>()
    await fc.assert(
      fc.asyncProperty(params, async (generated) => {
        const typed = generated as ExplorerListingParams
        const accepted = await explorer.all(typed).then(
          () => true,
          (error: ExplorerError) => {
            expect(error.kind).toBe('invalid_params')
            return false
          },
        )
        const query = Object.entries(generated)
          .map(
            ([name, value]) =>
              `${name}=${encodeURIComponent(Array.isArray(value) ? value.join(',') : String(value))}`,
          )
          .join('&')
        const wire = await fetch(`${sandbox.url}/v3/all?projectId=demo&${query}`)
        const commaInside = Object.values(generated).some(
          (value) => Array.isArray(value) && value.some((e) => e.includes(',')),
        )
        if (!commaInside) expect(wire.status === 200, query).toBe(accepted)
        else expect(accepted).toBe(false)
        outcomes.add(accepted)
      }),
      { numRuns: 150, examples: [[{}], [{ chains: ['eip155:1'], entries: 2, page: 1 }]] },
    )
    expect([...outcomes].sort()).toEqual([false, true])
  })
})

describe('explorer client: paging', () => {
  it('iterates every matching listing once, a page at a time, as the loop asks', async () => {
    const { explorer, sent } = client()
    const seen: string[] = []
    for await (const listing of explorer.iterate('all', { pageSize: 2 })) seen.push(listing.name)
    expect(seen).toEqual(names(await explorer.all()))
    expect(sent.filter((request) => request.url.includes('entries=2'))).toHaveLength(4)

    const dapps: string[] = []
    for await (const listing of explorer.iterate('dapps', { chains: ['eip155:1'], pageSize: 1 }))
      dapps.push(listing.name)
    expect(dapps).toEqual(['Sandbox Swap', 'Legacy Lending'])

    const nothing: string[] = []
    for await (const listing of explorer.iterate('all', { search: 'no such name' }))
      nothing.push(listing.name)
    expect(nothing).toEqual([])
  })

  it('is its own iterator: next() by hand walks the same listings, then stays done without fetching', async () => {
    const { explorer, sent } = client()
    const iterator = explorer.iterate('all', { pageSize: 2 })
    expect(iterator[Symbol.asyncIterator]()).toBe(iterator)
    expect(sent).toEqual([])
    const byHand: string[] = []
    for (let step = await iterator.next(); !step.done; step = await iterator.next())
      byHand.push(step.value.name)
    expect(byHand).toEqual(names(await explorer.all()))
    const requests = sent.length
    expect(await iterator.next()).toEqual({ done: true, value: undefined })
    expect(sent).toHaveLength(requests)
    // One pass, like a generator: a for-await over a spent iterator sees nothing.
    for await (const listing of iterator) byHand.push(listing.name)
    expect(byHand).toHaveLength(names(await explorer.all()).length)
  })

  it('stops early without fetching more when the loop breaks', async () => {
    const { explorer, sent } = client()
    for await (const listing of explorer.iterate('all', { pageSize: 3 })) {
      expect(listing.name).toBe('Sandbox Wallet')
      break
    }
    expect(sent).toHaveLength(1)
  })

  it('rejects the loop with a typed error for a bad page size or a page parameter', async () => {
    const { explorer, sent } = client()
    const drain = async (params: Parameters<typeof explorer.iterate>[1]) => {
      for await (const _ of explorer.iterate('all', params)) {
        // nothing
      }
    }
    expect((await failure(drain({ pageSize: 0 }))).issues.map((issue) => issue.field)).toEqual(['entries'])
    expect((await failure(drain({ page: 2 } as never))).kind).toBe('invalid_params')
    expect(sent).toEqual([])
  })
})

describe('explorer client: chains and logos', () => {
  it('reads /v3/chains with testnets and namespaces', async () => {
    const { explorer } = client()
    const chains = await explorer.chains({ namespaces: ['ton', 'solana'], testnets: false })
    expect(Object.keys(chains.chains)).toEqual(['ton:-239', 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'])
    expect((await explorer.chains()).chains['eip155:11155111']?.testnet).toBe(true)
    expect((await failure(explorer.chains({ namespaces: ['EIP155'] }))).issues[0]?.field).toBe('namespaces')
  })

  it('builds logo URLs the server answers, and refuses bad sizes and ids', async () => {
    const { explorer } = client()
    const [listing] = Object.values((await explorer.dapps({ search: 'swap' })).listings)
    const url = explorer.logoUrl('sm', listing!.image_id)
    expect(url).toBe(listing!.image_url.sm)
    const logo = await fetch(url)
    expect(logo.headers.get('content-type')).toBe('image/svg+xml')
    expect(() => explorer.logoUrl('xl' as 'sm', listing!.image_id)).toThrow(ExplorerError)
    expect(() => explorer.logoUrl('md', '../secret')).toThrow(/image_id/)
  })
})

describe('explorer client: caching', () => {
  it('serves a fresh answer from memory, then revalidates with If-None-Match once the TTL passed', async () => {
    let now = 1_000_000
    const { explorer, sent } = client({ ttlMs: 30_000, clock: () => now })
    const first = await explorer.wallets()
    expect(await explorer.wallets()).toEqual(first)
    expect(sent).toHaveLength(1)
    expect(sent[0]!.ifNoneMatch).toBeUndefined()

    now += 30_000
    expect(await explorer.wallets()).toEqual(first)
    expect(sent).toHaveLength(2)
    expect(sent[1]!.ifNoneMatch).toMatch(/^"/)
    expect(sent[1]!.status).toBe(304)

    // The 304 renewed the entry.
    now += 10_000
    await explorer.wallets()
    expect(sent).toHaveLength(2)
  })

  it('ttlMs 0 revalidates every call; different parameters are different entries; clearCache forgets', async () => {
    const { explorer, sent } = client({ ttlMs: 0 })
    await explorer.dapps()
    await explorer.dapps()
    await explorer.dapps({ search: 'swap' })
    expect(sent.map((request) => request.status)).toEqual([200, 304, 200])
    explorer.clearCache()
    await explorer.dapps()
    expect(sent[3]).toMatchObject({ status: 200, ifNoneMatch: undefined })
  })

  it('keeps at most maxCacheEntries, dropping the least recently used', async () => {
    const { explorer, sent } = client({ maxCacheEntries: 2 })
    await explorer.wallets()
    await explorer.dapps()
    await explorer.wallets()
    await explorer.hybrid() // drops dapps
    await explorer.wallets()
    await explorer.dapps()
    expect(sent.map((request) => new URL(request.url).pathname)).toEqual([
      '/v3/wallets',
      '/v3/dapps',
      '/v3/hybrid',
      '/v3/dapps',
    ])
  })

  it('a returned answer is the caller’s own: changing it does not change the cache', async () => {
    const { explorer } = client()
    const page = await explorer.wallets()
    page.count = 99
    expect((await explorer.wallets()).count).toBe(2)
  })
})

describe('explorer client: failures are typed', () => {
  const fake = (answer: ExplorerFetch, options: Partial<ExplorerClientOptions> = {}) =>
    createExplorerClient({ baseUrl: 'https://explorer.test', projectId: 'demo', fetch: answer, ...options })

  it('network: a refused connection', async () => {
    const gone = await startPaySandbox()
    await gone.stop()
    const error = await failure(createExplorerClient({ baseUrl: gone.url, projectId: 'demo' }).wallets())
    expect(error.kind).toBe('network')
    expect(error.message).not.toContain('projectId')
    expect(error.cause).toBeInstanceOf(Error)
  })

  it('network: a fetch that throws synchronously, or with a non-Error', async () => {
    expect(
      (
        await failure(
          fake(() => {
            throw new TypeError('boom')
          }).wallets(),
        )
      ).kind,
    ).toBe('network')
    expect((await failure(fake(() => Promise.reject('string reason')).wallets())).kind).toBe('network')
  })

  it('timeout: bounded even when the fetch ignores its abort signal', async () => {
    const error = await failure(fake(() => new Promise(() => {}), { timeoutMs: 20 }).wallets())
    expect(error.kind).toBe('timeout')
    expect(error.message).toContain('20 ms')
  })

  it('timeout: a body that never finishes', async () => {
    const stalled: ExplorerFetch = async () =>
      new Response(
        new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode('{')) }),
      )
    expect((await failure(fake(stalled, { timeoutMs: 20 }).wallets())).kind).toBe('timeout')
  })

  it('aborted: the caller’s signal, before or during the call', async () => {
    const controller = new AbortController()
    const pending = fake(() => new Promise(() => {})).wallets({}, { signal: controller.signal })
    controller.abort()
    expect((await failure(pending)).kind).toBe('aborted')
    expect(
      (await failure(fake(() => new Promise(() => {})).wallets({}, { signal: AbortSignal.abort() }))).kind,
    ).toBe('aborted')
  })

  it('http: the status, and the code and issues of the error body when there is one', async () => {
    const body = JSON.stringify({
      message: 'nope',
      code: 'params_validation',
      issues: [{ field: 'chains', message: 'bad' }],
    })
    const error = await failure(fake(async () => new Response(body, { status: 400 })).wallets())
    expect(error).toMatchObject({
      kind: 'http',
      status: 400,
      code: 'params_validation',
      issues: [{ field: 'chains', message: 'bad' }],
    })
    const proxy = await failure(
      fake(async () => new Response('<html>bad gateway</html>', { status: 502 })).wallets(),
    )
    expect(proxy).toMatchObject({ kind: 'http', status: 502, code: undefined, issues: [] })
  })

  it('malformed_response: not JSON, or not the documented shape', async () => {
    for (const text of [
      'not json',
      '{}',
      '{"listings":[],"count":0,"total":0}',
      '{"listings":{"a":{"id":"b"}},"count":1,"total":1}',
    ]) {
      const error = await failure(fake(async () => new Response(text, { status: 200 })).wallets())
      expect(error.kind, text).toBe('malformed_response')
    }
    expect(
      (await failure(fake(async () => new Response('{"chains":{"x":{}},"count":1}')).chains())).kind,
    ).toBe('malformed_response')
  })

  it('refuses a base URL that is not http(s) at construction', () => {
    expect(() => createExplorerClient({ baseUrl: 'ftp://x', projectId: 'demo' })).toThrow(TypeError)
    expect(() => createExplorerClient({ baseUrl: 'https://x/?q=1', projectId: 'demo' })).toThrow(TypeError)
  })
})
