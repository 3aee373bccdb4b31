import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaySandbox, startPaySandbox } from '../src/index.js'
import { api, buyer, createPayment, expectError, payByHand, stranger, usd } from './helpers.js'

let sandbox: PaySandbox
let call: ReturnType<typeof api>
let now = Date.UTC(2026, 1, 18, 12)
const ids: Record<string, string> = {}

beforeAll(async () => {
  sandbox = await startPaySandbox({
    clock: () => now,
    processingMs: null,
    settlementMs: null,
    fee: { fixed: '10', percentage: '0.4' },
  })
  call = api(sandbox)
  // Five payments one minute apart, with distinct amounts, buyers, chains and states.
  const plan: Array<[string, string, () => Promise<void>]> = [
    ['a', '1000', async () => {}],
    [
      'b',
      '3000',
      async () => {
        await payByHand(sandbox, ids.b!, { account: buyer, chainId: 8453 })
        sandbox.control.succeed(ids.b!)
        sandbox.control.settle(ids.b!)
      },
    ],
    [
      'c',
      '2000',
      async () => {
        await payByHand(sandbox, ids.c!, { account: stranger, chainId: 1 })
        sandbox.control.succeed(ids.c!)
      },
    ],
    ['d', '5000', async () => sandbox.control.cancel(ids.d!)],
    ['e', '4000', async () => sandbox.control.expire(ids.e!)],
  ]
  for (const [name, value, settle] of plan) {
    ids[name] = await createPayment(sandbox, `ORDER-${name.toUpperCase()}-2026`, usd(value))
    await settle()
    now += 60_000
  }
})
afterAll(() => sandbox.stop())

const list = (query: string) => call('GET', `/v1/payments${query}`)
const idsOf = (body: { data: Array<{ paymentId: string }> }) => body.data.map((item) => item.paymentId)
const at = (minute: number) => new Date(Date.UTC(2026, 1, 18, 12, minute)).toISOString()

describe('GET /v1/payments results', () => {
  it('defaults: newest first, limit 50, nextCursor null, stats over every match', async () => {
    const reply = await list('')
    expect(reply.status).toBe(200)
    expect(idsOf(reply.body)).toEqual([ids.e, ids.d, ids.c, ids.b, ids.a])
    expect(reply.body.nextCursor).toBeNull()
    expect(reply.body.stats).toEqual({
      totalRevenue: [{ amount: 50, currency: 'USD' }],
      totalTransactions: 5,
      totalCustomers: 2,
    })
  })

  it('list items follow the spec: settled, fees, token, buyer, transaction, cancelled listed as failed', async () => {
    const { body } = await list('')
    const byId = new Map(body.data.map((item: { paymentId: string }) => [item.paymentId, item]))
    expect(byId.get(ids.b)).toEqual({
      paymentId: ids.b,
      merchant: { id: sandbox.merchantId, name: 'Sandbox Merchant', iconUrl: null },
      referenceId: 'ORDER-B-2026',
      status: 'succeeded',
      isTerminal: true,
      fiatAmount: {
        unit: 'iso4217/USD',
        value: '3000',
        display: { assetSymbol: 'USD', assetName: 'US Dollar', decimals: 2 },
      },
      tokenAmount: {
        unit: 'caip19/eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        value: '30000000',
        display: { assetSymbol: 'USDC', assetName: 'USD Coin', decimals: 6, networkName: 'Base' },
      },
      buyer: { accountCaip10: `eip155:8453:${buyer.address}` },
      transaction: { networkId: '8453', hash: `0x${'ab'.repeat(32)}` },
      fees: {
        total: { unit: 'iso4217/USD', value: '22', display: expect.any(Object) },
        fixed: { unit: 'iso4217/USD', value: '10', display: expect.any(Object) },
        percentage: '0.4',
      },
      settlement: {
        settled: true,
        amount: { unit: 'iso4217/USD', value: '2978', display: expect.any(Object) },
        txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
      createdAt: at(1),
      lastUpdatedAt: at(1),
      settledAt: at(1),
    })
    expect(byId.get(ids.c)).toMatchObject({ status: 'succeeded', settlement: { settled: false } })
    expect(byId.get(ids.c)).not.toHaveProperty('settledAt')
    expect(byId.get(ids.d)).toMatchObject({ status: 'failed', isTerminal: true })
    expect(byId.get(ids.a)).not.toHaveProperty('settlement')
    expect(byId.get(ids.a)).not.toHaveProperty('buyer')
  })

  it('filters: status (repeatable), time window, referenceId substring, merchantId, token_symbol, asset, network', async () => {
    expect(idsOf((await list('?status=succeeded&status=expired')).body)).toEqual([ids.e, ids.c, ids.b])
    expect(idsOf((await list('?status=failed')).body)).toEqual([ids.d])
    expect(idsOf((await list(`?startTs=${at(1)}&endTs=${at(3)}`)).body)).toEqual([ids.c, ids.b])
    expect(idsOf((await list('?startTs=2026-02-18T13:01:00%2B01:00')).body)).toEqual([
      ids.e,
      ids.d,
      ids.c,
      ids.b,
    ])
    expect(idsOf((await list('?referenceId=der-c')).body)).toEqual([ids.c])
    expect(idsOf((await list(`?merchantId=${sandbox.merchantId}&merchantId=mrch_other`)).body)).toHaveLength(
      5,
    )
    expect(idsOf((await list('?merchantId=mrch_other')).body)).toEqual([])
    expect(idsOf((await list('?token_symbol=usdc')).body)).toEqual([ids.c, ids.b])
    expect(idsOf((await list('?asset=USDC')).body)).toEqual([ids.c, ids.b])
    expect(idsOf((await list('?network=eip155:1,eip155:10')).body)).toEqual([ids.c])
    const stats = (await list('?network=eip155:8453')).body.stats
    expect(stats).toEqual({
      totalRevenue: [{ amount: 30, currency: 'USD' }],
      totalTransactions: 1,
      totalCustomers: 1,
    })
  })

  it('sorts by amount and date in both directions', async () => {
    expect(idsOf((await list('?sortBy=amount&sortDir=asc')).body)).toEqual([
      ids.a,
      ids.c,
      ids.b,
      ids.e,
      ids.d,
    ])
    expect(idsOf((await list('?sortBy=amount')).body)).toEqual([ids.d, ids.e, ids.b, ids.c, ids.a])
    expect(idsOf((await list('?sortBy=date&sortDir=asc')).body)).toEqual([ids.a, ids.b, ids.c, ids.d, ids.e])
  })
})

describe('cursor pagination', () => {
  it('walks every page exactly once, and stays stable when payments are added between pages', async () => {
    const first = await list('?limit=2&sortDir=asc')
    expect(idsOf(first.body)).toEqual([ids.a, ids.b])
    expect(first.body.nextCursor).toEqual(expect.any(String))
    // A payment created between pages lands after the walked ones (ascending date) and is picked up at the end.
    const late = await createPayment(sandbox, 'ORDER-LATE', usd('100'))
    now += 60_000
    const seen = [...idsOf(first.body)]
    let cursor = first.body.nextCursor as string | null
    let pages = 1
    while (cursor !== null) {
      const page = await list(`?limit=2&sortDir=asc&cursor=${encodeURIComponent(cursor)}`)
      expect(page.status).toBe(200)
      expect(page.body.stats.totalTransactions).toBe(6)
      seen.push(...idsOf(page.body))
      cursor = page.body.nextCursor
      pages++
    }
    expect(seen).toEqual([ids.a, ids.b, ids.c, ids.d, ids.e, late])
    expect(pages).toBe(3)
    sandbox.control.cancel(late)
  })

  it('limit changes between pages are allowed; a cursor used with other filters is 400 invalid_params', async () => {
    const first = await list('?limit=1&sortBy=amount')
    const cursor = encodeURIComponent(first.body.nextCursor)
    expect((await list(`?limit=3&sortBy=amount&cursor=${cursor}`)).status).toBe(200)
    const moved = await list(`?limit=1&sortBy=date&cursor=${cursor}`)
    expectError(moved, 400, 'invalid_params')
    expect(moved.body).toMatchObject({
      code: 'invalid_params',
      issues: [{ field: 'cursor', message: expect.any(String) }],
    })
  })

  it('forged cursors are 400 invalid_params', async () => {
    const forged = Buffer.from(JSON.stringify({ v: 1, q: 'x', k: '1', id: 'pay_x' })).toString('base64url')
    for (const cursor of ['not*a*cursor', 'e30', forged, 'A'.repeat(600)]) {
      const reply = await list(`?cursor=${cursor}`)
      expectError(reply, 400, 'invalid_params')
    }
  })
})

describe('default limit', () => {
  it('returns 50 items by default, then the rest through the cursor', async () => {
    const many = await startPaySandbox()
    try {
      for (let index = 0; index < 53; index++) await createPayment(many, `BULK-${index}`, usd('100'))
      const manyCall = api(many)
      const first = await manyCall('GET', '/v1/payments')
      expect(first.body.data).toHaveLength(50)
      expect(first.body.stats.totalTransactions).toBe(53)
      const rest = await manyCall('GET', `/v1/payments?cursor=${encodeURIComponent(first.body.nextCursor)}`)
      expect(rest.body.data).toHaveLength(3)
      expect(rest.body.nextCursor).toBeNull()
      const all = new Set([...idsOf(first.body), ...idsOf(rest.body)])
      expect(all.size).toBe(53)
    } finally {
      await many.stop()
    }
  })
})

describe('query rules: every violation is 400 invalid_params naming the field', () => {
  const cases: Array<[string, string]> = [
    ['?limit=0', 'limit'],
    ['?limit=201', 'limit'],
    ['?limit=abc', 'limit'],
    ['?limit=1.5', 'limit'],
    ['?limit=-1', 'limit'],
    ['?startTs=2026-02-18', 'startTs'],
    ['?startTs=yesterday', 'startTs'],
    ['?endTs=2026-02-30T00:00:00Z', 'endTs'],
    ['?endTs=2026-02-18T24:00:00Z', 'endTs'],
    ['?startTs=2026-02-19T00:00:00Z&endTs=2026-02-18T00:00:00Z', 'startTs'],
    ['?token_symbol=', 'token_symbol'],
    ['?token_symbol=eip155:1/erc20:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 'token_symbol'],
    ['?asset=', 'token_symbol'],
    ['?network=1', 'network'],
    ['?network=eip155:1,', 'network'],
    ['?sortBy=price', 'sortBy'],
    ['?sortDir=up', 'sortDir'],
    ['?status=cancelled', 'status'],
    ['?status=pending', 'status'],
    ['?status=succeeded,failed', 'status'],
    ['?referenceId=ab', 'referenceId'],
    [`?referenceId=${'a'.repeat(36)}`, 'referenceId'],
    ['?referenceId=abc%3Cscript', 'referenceId'],
    ['?merchantId=', 'merchantId'],
    ['?limit=5&limit=6', 'limit'],
    ['?sortBy=date&sortBy=amount', 'sortBy'],
    ['?colour=red', 'colour'],
  ]
  for (const [query, field] of cases) {
    it(`${query} → ${field}`, async () => {
      const reply = await list(query)
      expectError(reply, 400, 'invalid_params')
      expect(reply.body.issues.map((issue: { field: string }) => issue.field)).toContain(field)
    })
  }

  it('boundary values pass: limit 1 and 200, referenceId of 3 and 35 allowed characters', async () => {
    for (const query of [
      '?limit=1',
      '?limit=200',
      '?referenceId=a/b',
      `?referenceId=${'A1 /:.,+-'.repeat(3)}AAAAAAAA`,
    ]) {
      expect((await list(query.replace(/ /g, '%20').replace(/\+/g, '%2B'))).status).toBe(200)
    }
  })

  it('reports several problems at once', async () => {
    const reply = await list('?limit=0&sortDir=sideways&status=nope')
    expect(reply.body.issues.map((issue: { field: string }) => issue.field).sort()).toEqual([
      'limit',
      'sortDir',
      'status',
    ])
  })
})
