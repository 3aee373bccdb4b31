import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parsePaySandboxArgs } from '../src/cli/paySandbox.js'
import { type PaySandbox, startPaySandbox } from '../src/index.js'

/**
 * The explorer interface's contract (spec, "Explorer interface"), over HTTP against the sandbox serving its
 * sample listing: every endpoint, every parameter rule valid and broken, ETag revalidation, and the listing
 * file option. The sample (src/explorer/sample/listings.json) has 2 wallets, 4 dApps, 1 hybrid.
 */

const WALLET = 'Sandbox Wallet'
const HARBOR = 'Harbor Wallet'
const SWAP = 'Sandbox Swap'
const MARKET = 'Satoshi Market'
const TONPOST = 'Tonpost'
const BRIDGE = 'Bridge Hub'
const LENDING = 'Legacy Lending'
const sampleDir = new URL('../src/explorer/sample/', import.meta.url)

let sandbox: PaySandbox
beforeAll(async () => {
  sandbox = await startPaySandbox()
})
afterAll(() => sandbox.stop())

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON reply bodies field by field
type Json = any
type Reply = { status: number; headers: Headers; text: string; body: Json }

async function get(path: string, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(`${sandbox.url}${path}`, { headers })
  const text = await response.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, headers: response.headers, text, body }
}

/** Names of the listings a listing endpoint returns, in order. */
async function names(path: string): Promise<string[]> {
  const reply = await get(path)
  expect(reply.status, reply.text).toBe(200)
  return Object.values(reply.body.listings as Record<string, { name: string }>).map((listing) => listing.name)
}

/** A 400 params_validation naming exactly these fields. */
async function refused(path: string, ...fields: string[]): Promise<void> {
  const reply = await get(path)
  expect({ status: reply.status, code: reply.body?.code }, path).toEqual({
    status: 400,
    code: 'params_validation',
  })
  expect(reply.body.issues.map((issue: { field: string }) => issue.field).sort(), path).toEqual(
    [...fields].sort(),
  )
  for (const field of fields) expect(reply.body.message).toContain(`${field}:`)
}

const q = (path: string, query = '') => `${path}?projectId=demo${query}`

describe('explorer: listing endpoints', () => {
  it('serve each type: wallets, dApps, hybrids, and everything in /v3/all', async () => {
    expect(await names(q('/v3/wallets'))).toEqual([WALLET, HARBOR])
    expect(await names(q('/v3/dapps'))).toEqual([SWAP, MARKET, TONPOST, LENDING])
    expect(await names(q('/v3/hybrid'))).toEqual([BRIDGE])
    expect(await names(q('/v3/all'))).toEqual([WALLET, HARBOR, SWAP, MARKET, TONPOST, BRIDGE, LENDING])
  })

  it('key listings by id, with count, total, versions and absolute logo URLs', async () => {
    const reply = await get(q('/v3/dapps', '&search=swap'))
    expect(reply.headers.get('content-type')).toBe('application/json')
    expect(reply.body.count).toBe(1)
    expect(reply.body.total).toBe(1)
    const [id, listing] = Object.entries(reply.body.listings)[0] as [string, Json]
    expect(listing).toMatchObject({
      id,
      name: SWAP,
      homepage: 'https://swap.sandbox.example',
      app_type: 'dapp',
      chains: ['eip155:1', 'eip155:137', 'eip155:42161'],
      sdks: ['sign_v2'],
      versions: ['2'],
      standards: ['eip-712'],
    })
    expect(listing.image_url.md).toBe(`${sandbox.url}/v3/logo/md/${listing.image_id}?projectId=demo`)
    const logo = await fetch(listing.image_url.lg)
    expect(logo.status).toBe(200)
    expect(await logo.text()).toContain('width="256" height="256"')
  })

  it('require projectId on every endpoint, of a sane form', async () => {
    for (const path of ['/v3/wallets', '/v3/dapps', '/v3/hybrid', '/v3/all', '/v3/chains']) {
      await refused(path, 'projectId')
      await refused(`${path}?projectId=`, 'projectId')
      await refused(`${path}?projectId=a%20b`, 'projectId')
    }
    await refused('/v3/logo/sm/43ce3b99-07fe-4973-82a9-607000b5116a', 'projectId')
  })

  it('page only with entries and entries only with page, both whole numbers from 1', async () => {
    await refused(q('/v3/all', '&entries=2'), 'page')
    await refused(q('/v3/all', '&page=1'), 'entries')
    await refused(q('/v3/all', '&entries=0&page=1'), 'entries')
    await refused(q('/v3/all', '&entries=2&page=-1'), 'page')
    await refused(q('/v3/all', '&entries=2.5&page=1'), 'entries')
    await refused(q('/v3/all', '&entries=x&page=y'), 'entries', 'page')
    await refused(q('/v3/all', '&entries=01&page=1'), 'entries')
  })

  it('page through every entry exactly once; past the end is an empty page with the total', async () => {
    const seen: string[] = []
    for (let page = 1; page <= 4; page++) {
      const reply = await get(q('/v3/all', `&entries=2&page=${page}`))
      expect(reply.body.total).toBe(7)
      expect(reply.body.count).toBe(page === 4 ? 1 : 2)
      seen.push(...Object.values(reply.body.listings as Record<string, { name: string }>).map((l) => l.name))
    }
    expect(seen).toEqual(await names(q('/v3/all')))
    const beyond = await get(q('/v3/all', '&entries=2&page=9'))
    expect(beyond.body).toEqual({ listings: {}, count: 0, total: 7 })
  })

  it('search: names containing the query, case-insensitively; never empty', async () => {
    expect(await names(q('/v3/all', '&search=WALLET'))).toEqual([WALLET, HARBOR])
    expect(await names(q('/v3/all', '&search=%20hub%20'))).toEqual([BRIDGE])
    expect(await names(q('/v3/all', '&search=nothing-like-it'))).toEqual([])
    await refused(q('/v3/all', '&search='), 'search')
    await refused(q('/v3/all', `&search=${'a'.repeat(257)}`), 'search')
  })

  it('ids: /v3/all returns those entries; elements must be ids and non-empty', async () => {
    const all = (await get(q('/v3/all'))).body.listings as Record<string, { name: string }>
    const byName = Object.fromEntries(Object.values(all).map((listing: Json) => [listing.name, listing.id]))
    expect(await names(q('/v3/all', `&ids=${byName[TONPOST]},${byName[HARBOR]}`))).toEqual([HARBOR, TONPOST])
    expect(await names(q('/v3/wallets', `&ids=${byName[TONPOST]},${byName[HARBOR]}`))).toEqual([HARBOR])
    expect(await names(q('/v3/all', '&ids=unknown-id'))).toEqual([])
    await refused(q('/v3/all', `&ids=${byName[HARBOR]},`), 'ids')
    await refused(q('/v3/all', '&ids=has%20space'), 'ids')
    await refused(q('/v3/all', '&ids=12345'), 'ids')
    await refused(q('/v3/all', `&ids=${Array.from({ length: 101 }, (_, i) => `id${i}`).join(',')}`), 'ids')
  })

  it('chains: listings supporting at least one of the CAIP-2 ids', async () => {
    expect(await names(q('/v3/all', '&chains=eip155:137'))).toEqual([WALLET, SWAP])
    expect(await names(q('/v3/all', '&chains=eip155:10,ton:-3'))).toEqual([HARBOR, TONPOST])
    expect(await names(q('/v3/dapps', '&chains=bip122:000000000933ea01ad0ee984209779ba'))).toEqual([MARKET])
    expect(await names(q('/v3/all', '&chains=eip155:424242'))).toEqual([])
    await refused(q('/v3/all', '&chains=ethereum'), 'chains')
    await refused(q('/v3/all', '&chains=eip155:1,,eip155:137'), 'chains')
    await refused(q('/v3/all', '&chains=EIP155:1'), 'chains')
  })

  it('platforms: at least one of ios, android, mac, injected', async () => {
    expect(await names(q('/v3/all', '&platforms=injected'))).toEqual([HARBOR, BRIDGE])
    expect(await names(q('/v3/all', '&platforms=android,mac'))).toEqual([WALLET, HARBOR])
    await refused(q('/v3/all', '&platforms=windows'), 'platforms')
    await refused(q('/v3/all', '&platforms=IOS'), 'platforms')
  })

  it('sdks: at least one of sign_v1, sign_v2, auth_v1', async () => {
    expect(await names(q('/v3/all', '&sdks=sign_v1'))).toEqual([HARBOR, BRIDGE, LENDING])
    expect(await names(q('/v3/all', '&sdks=auth_v1'))).toEqual([WALLET])
    expect(await names(q('/v3/all', '&sdks=auth_v1,sign_v1'))).toEqual([WALLET, HARBOR, BRIDGE, LENDING])
    await refused(q('/v3/all', '&sdks=sign_v3'), 'sdks')
  })

  it('standards: at least one (eip-712, eip-3085)', async () => {
    expect(await names(q('/v3/all', '&standards=eip-3085'))).toEqual([WALLET, BRIDGE])
    expect(await names(q('/v3/all', '&standards=eip-712'))).toEqual([WALLET, HARBOR, SWAP, LENDING])
    await refused(q('/v3/all', '&standards=EIP712'), 'standards')
  })

  it('version: deprecated, still honoured as sign_vN, said so in headers; 1 or 2 only; not with sdks', async () => {
    expect(await names(q('/v3/all', '&version=1'))).toEqual(await names(q('/v3/all', '&sdks=sign_v1')))
    expect(await names(q('/v3/all', '&version=2'))).toEqual(await names(q('/v3/all', '&sdks=sign_v2')))
    const reply = await get(q('/v3/all', '&version=2'))
    expect(reply.headers.get('deprecation')).toBe('true')
    expect(reply.headers.get('warning')).toContain('use sdks')
    expect((await get(q('/v3/all', '&sdks=sign_v2'))).headers.get('deprecation')).toBeNull()
    await refused(q('/v3/all', '&version=3'), 'version')
    await refused(q('/v3/all', '&version=2&sdks=sign_v2'), 'version')
  })

  it('combine filters: every given filter must hold', async () => {
    expect(await names(q('/v3/all', '&chains=eip155:1&sdks=sign_v1&platforms=injected'))).toEqual([
      HARBOR,
      BRIDGE,
    ])
    expect(await names(q('/v3/all', '&chains=eip155:1&search=lend&entries=5&page=1'))).toEqual([LENDING])
  })

  it('refuse unknown and repeated parameters, naming each', async () => {
    await refused(q('/v3/all', '&chain=eip155:1'), 'chain')
    await refused(q('/v3/all', '&chains=eip155:1&chains=eip155:137'), 'chains')
    await refused(q('/v3/all', '&testnets=true'), 'testnets')
    await refused('/v3/all?projectId=demo&projectId=other', 'projectId')
    await refused('/v3/dapps?entries=1&platforms=tv', 'projectId', 'page', 'platforms')
  })
})

describe('explorer: /v3/chains', () => {
  async function chainsOf(
    query: string,
  ): Promise<Record<string, { id: string; name: string; testnet: boolean }>> {
    const reply = await get(q('/v3/chains', query))
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.count).toBe(Object.keys(reply.body.chains).length)
    return reply.body.chains
  }

  it('lists approved chains of every namespace, testnets by default, with honest flags', async () => {
    const chains = await chainsOf('')
    expect(chains['eip155:1']).toEqual({
      id: 'eip155:1',
      name: 'Ethereum',
      namespace: 'eip155',
      testnet: false,
    })
    expect(chains['eip155:11155111']?.testnet).toBe(true)
    expect(chains['eip155:137']?.testnet).toBe(false)
    expect(chains['bip122:000000000019d6689c085ae165831e93']?.testnet).toBe(false)
    expect(chains['bip122:000000000933ea01ad0ee984209779ba']?.testnet).toBe(true)
    expect(chains['ton:-239']?.testnet).toBe(false)
    expect(chains['ton:-3']?.testnet).toBe(true)
    expect(chains['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp']?.testnet).toBe(false)
    expect(chains['solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1']?.testnet).toBe(true)
    // Local development chains are in no registry: anvil/hardhat, bip122 regtest, the local Solana runtime.
    expect(chains['eip155:31337']).toBeUndefined()
    expect(chains['bip122:0f9188f13cb7b2c71f2a335e3a4fc328']).toBeUndefined()
    expect(chains['solana:localnet']).toBeUndefined()
    expect(Object.keys(chains).length).toBeGreaterThan(500)
    expect(await chainsOf('&testnets=true')).toEqual(chains)
  })

  it('testnets=false leaves testnets out; namespaces selects namespaces', async () => {
    const mainnets = await chainsOf('&testnets=false')
    expect(Object.values(mainnets).every((chain) => !chain.testnet)).toBe(true)
    expect(mainnets['eip155:11155111']).toBeUndefined()
    expect(mainnets['eip155:1']).toBeDefined()
    expect(Object.keys(await chainsOf('&namespaces=ton,bip122'))).toEqual([
      'bip122:000000000019d6689c085ae165831e93',
      'bip122:000000000933ea01ad0ee984209779ba',
      'ton:-239',
      'ton:-3',
    ])
    expect(Object.keys(await chainsOf('&namespaces=solana&testnets=false'))).toEqual([
      'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    ])
    expect(await chainsOf('&namespaces=cosmos')).toEqual({})
  })

  it('refuses bad testnets, namespaces and listing parameters', async () => {
    await refused(q('/v3/chains', '&testnets=yes'), 'testnets')
    await refused(q('/v3/chains', '&testnets='), 'testnets')
    await refused(q('/v3/chains', '&namespaces=EIP155'), 'namespaces')
    await refused(q('/v3/chains', '&namespaces=eip155,'), 'namespaces')
    await refused(q('/v3/chains', '&entries=1&page=1'), 'entries', 'page')
  })
})

describe('explorer: /v3/logo/:size/:image_id', () => {
  const imageId = '43ce3b99-07fe-4973-82a9-607000b5116a'

  it('serves each size as a sized SVG that cannot run anything', async () => {
    for (const [size, pixels] of [
      ['sm', 64],
      ['md', 128],
      ['lg', 256],
    ] as const) {
      const reply = await get(q(`/v3/logo/${size}/${imageId}`))
      expect(reply.status).toBe(200)
      expect(reply.headers.get('content-type')).toBe('image/svg+xml')
      expect(reply.headers.get('content-security-policy')).toContain("default-src 'none'")
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff')
      expect(reply.text).toMatch(
        new RegExp(`^<svg [^>]*viewBox="0 0 100 100" width="${pixels}" height="${pixels}">`),
      )
      expect(reply.text).toContain('<title>Sandbox Wallet</title>')
    }
  })

  it('400 for a size other than sm, md, lg or a malformed image id; 404 for an unknown one', async () => {
    await refused(q(`/v3/logo/xl/${imageId}`), 'size')
    await refused(q('/v3/logo/md/..%2Fetc'), 'image_id')
    await refused(q('/v3/logo/huge/has%20space'), 'size', 'image_id')
    await refused(q(`/v3/logo/md/${imageId}`, '&entries=1'), 'entries')
    const missing = await get(q('/v3/logo/md/00000000-0000-4000-8000-000000000000'))
    expect({ status: missing.status, code: missing.body.code }).toEqual({ status: 404, code: 'not_found' })
  })
})

describe('explorer: caching', () => {
  it('every reply has an ETag; If-None-Match with it answers 304 without a body', async () => {
    for (const path of [
      q('/v3/wallets'),
      q('/v3/chains', '&testnets=false'),
      q('/v3/logo/sm/43ce3b99-07fe-4973-82a9-607000b5116a'),
    ]) {
      const first = await get(path)
      const etag = first.headers.get('etag')
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/)
      const again = await get(path, { 'if-none-match': etag! })
      expect(again.status).toBe(304)
      expect(again.text).toBe('')
      expect(again.headers.get('etag')).toBe(etag)
      expect((await get(path, { 'if-none-match': `"other", W/${etag}` })).status).toBe(304)
      expect((await get(path, { 'if-none-match': '"stale"' })).status).toBe(200)
    }
    expect((await get(q('/v3/dapps'))).headers.get('etag')).not.toBe(
      (await get(q('/v3/wallets'))).headers.get('etag'),
    )
  })
})

describe('explorer: malformed query strings', () => {
  const names = [
    'projectId',
    'entries',
    'page',
    'search',
    'ids',
    'chains',
    'platforms',
    'sdks',
    'standards',
    'version',
    'testnets',
    'namespaces',
    'x',
  ]
  const values = fc.oneof(
    fc.constantFrom(
      '',
      '1',
      '0',
      '-1',
      '2',
      'true',
      'false',
      'eip155:1',
      'ios,',
      ',',
      'sign_v2',
      'eip-712',
      '%',
      '%zz',
      '%00',
      '\u0000',
      'demo',
    ),
    fc.string({ maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 12 }),
  )
  const pair = fc.tuple(fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 8 })), values)
  const raw = fc.oneof(
    fc
      .array(pair, { maxLength: 6 })
      .map((pairs) =>
        pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&'),
      ),
    fc.string({ maxLength: 60 }).map((text) => text.replace(/[#\s]/g, '')),
  )

  it('never answer 500: every request is a 200 or a 400 params_validation naming fields', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/v3/wallets',
          '/v3/dapps',
          '/v3/hybrid',
          '/v3/all',
          '/v3/chains',
          '/v3/logo/md/43ce3b99-07fe-4973-82a9-607000b5116a',
        ),
        raw,
        async (path, query) => {
          let response: Response
          try {
            response = await fetch(`${sandbox.url}${path}?${query}`)
          } catch {
            return // a target the fetch implementation itself refuses to send
          }
          const text = await response.text()
          expect([200, 400], `${path}?${query}: ${text}`).toContain(response.status)
          if (response.status === 400) {
            const body = JSON.parse(text)
            expect(body.code).toBe('params_validation')
            expect(body.issues.length).toBeGreaterThan(0)
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('explorer: listing files', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'explorer-listing-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const listing = {
    id: 'my-dapp',
    name: 'My Dapp',
    description: 'mine',
    homepage: 'https://my.dapp.example',
    app_type: 'dapp',
    chains: ['eip155:1'],
    sdks: ['sign_v2'],
    platforms: [],
    standards: [],
    image_id: 'my-dapp-logo',
    updatedAt: '2026-01-01T00:00:00Z',
  }
  const logo = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" width="10"><title>m</title></svg>'

  function writeListing(
    name: string,
    file: unknown,
    logos: Record<string, string> = { 'my-dapp-logo': logo },
  ): string {
    const folder = join(dir, name)
    mkdirSync(join(folder, 'logos'), { recursive: true })
    writeFileSync(join(folder, 'listings.json'), typeof file === 'string' ? file : JSON.stringify(file))
    for (const [id, svg] of Object.entries(logos)) writeFileSync(join(folder, 'logos', `${id}.svg`), svg)
    return join(folder, 'listings.json')
  }

  it("serves the user's own file, sizing its logos", async () => {
    const own = await startPaySandbox({ explorerListing: writeListing('good', { listings: [listing] }) })
    try {
      const reply = await fetch(`${own.url}/v3/dapps?projectId=demo`)
      const body = (await reply.json()) as Json
      expect(Object.keys(body.listings)).toEqual(['my-dapp'])
      expect(body.listings['my-dapp'].versions).toEqual(['2'])
      const svg = await (await fetch(`${own.url}/v3/logo/sm/my-dapp-logo?projectId=demo`)).text()
      expect(svg).toBe(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" width="64" height="64"><title>m</title></svg>',
      )
    } finally {
      await own.stop()
    }
  })

  it('refuses a broken file at start, naming the file and the field', async () => {
    const cases: Array<[string, unknown, Record<string, string> | undefined, RegExp]> = [
      ['not-json', '{', undefined, /not valid JSON/],
      ['no-listings', {}, undefined, /listings/],
      [
        'http-homepage',
        { listings: [{ ...listing, homepage: 'http://my.dapp.example' }] },
        undefined,
        /listings\.0\.homepage: must be an https URL/,
      ],
      ['bad-type', { listings: [{ ...listing, app_type: 'game' }] }, undefined, /listings\.0\.app_type/],
      ['bad-chain', { listings: [{ ...listing, chains: ['one'] }] }, undefined, /listings\.0\.chains\.0/],
      ['extra-field', { listings: [{ ...listing, rank: 1 }] }, undefined, /rank/],
      ['twice', { listings: [listing, listing] }, undefined, /listings\.1\.id: my-dapp is listed twice/],
      ['no-logo', { listings: [listing] }, {}, /listings\.0\.image_id: logo my-dapp-logo\.svg not found/],
      [
        'script-logo',
        { listings: [listing] },
        {
          'my-dapp-logo':
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><script>alert(1)</script></svg>',
        },
        /<script>/,
      ],
      [
        'remote-logo',
        { listings: [listing] },
        {
          'my-dapp-logo':
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><image href="https://x.example/a.png"/></svg>',
        },
        /link/,
      ],
      [
        'handler-logo',
        { listings: [listing] },
        { 'my-dapp-logo': '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1" onload="x()"></svg>' },
        /event handler/,
      ],
      [
        'no-viewbox',
        { listings: [listing] },
        { 'my-dapp-logo': '<svg xmlns="http://www.w3.org/2000/svg" width="10"></svg>' },
        /viewBox/,
      ],
      ['png-logo', { listings: [listing] }, { 'my-dapp-logo': '\u0089PNG' }, /not an SVG/],
    ]
    for (const [name, file, logos, message] of cases) {
      const path = writeListing(name, file, logos)
      await expect(startPaySandbox({ explorerListing: path }), name).rejects.toThrow(message)
      await expect(startPaySandbox({ explorerListing: path }), name).rejects.toThrow(path)
    }
    await expect(startPaySandbox({ explorerListing: join(dir, 'missing.json') })).rejects.toThrow(
      /cannot be read \(ENOENT\)/,
    )
  })

  it('the sample itself is a valid listing file of the same format', () => {
    const sample = JSON.parse(readFileSync(new URL('listings.json', sampleDir), 'utf8'))
    expect(sample.listings).toHaveLength(7)
  })

  it('wallet-rpc pay-sandbox --explorer-listing FILE', () => {
    expect(parsePaySandboxArgs(['--explorer-listing', '/tmp/listing.json'])).toEqual({
      chains: {},
      explorerListing: '/tmp/listing.json',
    })
  })
})
