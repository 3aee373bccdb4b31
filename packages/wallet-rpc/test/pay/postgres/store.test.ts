import { readFileSync } from 'node:fs'
import { PGlite } from '@electric-sql/pglite'
import fc from 'fast-check'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPgPool, type PgPoolLike } from '../../../src/pay/postgres/database.js'
import {
  type PostgresWebhookStore,
  postgresWebhookStore,
  webhookStoreMigration,
} from '../../../src/pay/postgres/index.js'
import {
  createMemoryWebhookStore,
  type WebhookClaim,
  type WebhookRecordRequest,
} from '../../../src/pay/webhook/store.js'
import { findPostgres, type PostgresServer, startPostgres } from './server.js'

/**
 * `postgresWebhookStore` against the contract `createMemoryWebhookStore` defines: the same random sequences of
 * `record` / `fulfilled` / `release` calls (same clock, ids, expiries and leases crossed) give the same answers
 * and leave the same per-payment state, on a real Postgres and on PGlite. Then what only a database can get
 * wrong: concurrent transactions on one payment and one event id, several instances creating the tables at
 * once, the DDL and identifiers, retries, pruning, and the pool it owns or not.
 */

const bin = findPostgres('Postgres webhook store')
let server: PostgresServer | undefined
let pglite: PGlite
const pools: pg.Pool[] = []

beforeAll(async () => {
  pglite = await PGlite.create()
  if (bin !== undefined) server = await startPostgres(bin)
}, 120_000)

afterAll(async () => {
  for (const pool of pools) await pool.end()
  await pglite?.close()
  await server?.stop()
}, 60_000)

const pgPool = () => {
  const pool = new pg.Pool({ connectionString: server!.url, max: 10 })
  // As pg asks of every pool: an idle client the server ends (its shutdown after the last test) is an 'error'
  // event, which unheard ends the process.
  pool.on('error', () => undefined)
  pools.push(pool)
  return pool
}

type Handle = {
  store: PostgresWebhookStore
  schema: string
  /** A pool (or PGlite) for another store on the same database and schema. */
  pool: () => pg.Pool | PGlite
  /** One statement outside the store, for the test's own look at the tables. */
  sql: (text: string) => Promise<Array<Record<string, unknown>>>
  /** Rows in one of the store's tables. */
  count: (table: 'events' | 'payments') => Promise<number>
}

function handle(schema: string, pool: () => pg.Pool | PGlite, store: PostgresWebhookStore): Handle {
  const sql = async (text: string) =>
    pool === pglitePool ? (await pglite.query<Record<string, unknown>>(text)).rows : await rawQuery(text)
  return {
    store,
    schema,
    pool,
    sql,
    count: async (table) =>
      Number((await sql(`SELECT count(*)::int AS n FROM ${schema}.wallet_rpc_webhook_${table}`))[0]!.n),
  }
}
const pglitePool = () => pglite

type Backend = { name: string; available: () => boolean; open: () => Promise<Handle> }
const backends: Backend[] = [
  {
    name: 'Postgres',
    available: () => bin !== undefined,
    open: async () => {
      const schema = await server!.freshSchema()
      return handle(schema, pgPool, postgresWebhookStore({ pool: pgPool(), schema }))
    },
  },
  {
    name: 'PGlite',
    available: () => true,
    open: async () => {
      const schema = `s${Math.random().toString(36).slice(2, 10)}`
      return handle(schema, pglitePool, postgresWebhookStore({ pool: pglite, schema }))
    },
  },
]

const second = 1000
const start = Date.UTC(2026, 10, 25, 3, 0, 0)

type Step =
  | {
      kind: 'record'
      event: number
      payment: number | undefined
      version: number | undefined
      fulfillable: boolean
      advance: number
      keep: number
      lease: number
    }
  | { kind: 'fulfilled' | 'release'; claim: number; forged: boolean }

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('record' as const),
      event: fc.integer({ min: 0, max: 5 }),
      payment: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined, freq: 6 }),
      version: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined, freq: 5 }),
      fulfillable: fc.boolean(),
      // Whole seconds, zero included: the clock often lands exactly on a keepUntil or a leaseUntil.
      advance: fc.integer({ min: 0, max: 3 }),
      keep: fc.integer({ min: 0, max: 6 }),
      lease: fc.integer({ min: 0, max: 3 }),
    }),
    weight: 3,
  },
  fc.record({
    kind: fc.constantFrom('fulfilled' as const, 'release' as const),
    claim: fc.nat(),
    forged: fc.boolean(),
  }),
)

describe.each(backends)('postgresWebhookStore on $name', (backend) => {
  describe.skipIf(!backend.available())('', () => {
    it('property: the same calls give the same answers and the same per-payment state as the memory store', async () => {
      const { store, schema, sql } = await backend.open()
      await store.ready()
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
          await sql(`TRUNCATE ${schema}.wallet_rpc_webhook_events, ${schema}.wallet_rpc_webhook_payments`)
          const memory = createMemoryWebhookStore()
          let now = start
          const claims: Array<{ paymentId: string; claim: WebhookClaim }> = []
          for (const [index, current] of steps.entries()) {
            if (current.kind === 'record') {
              now += current.advance * second
              const request: WebhookRecordRequest = {
                eventId: `evt_${current.event}`,
                claimToken: `token_${index}`,
                ...(current.payment === undefined ? {} : { paymentId: `pay_${current.payment}` }),
                ...(current.version === undefined ? {} : { version: current.version }),
                fulfillable: current.fulfillable,
                now,
                keepUntil: now + current.keep * second,
                leaseUntil: now + current.lease * second,
              }
              const expected = await memory.record(request)
              expect(await store.record(request), `step ${index}`).toEqual(expected)
              if (expected.fulfil && request.paymentId !== undefined)
                claims.push({
                  paymentId: request.paymentId,
                  claim: { eventId: request.eventId, token: request.claimToken },
                })
            } else {
              const chosen = claims[current.claim % Math.max(claims.length, 1)]
              if (chosen === undefined) continue
              const claim = current.forged ? { ...chosen.claim, token: 'forged' } : chosen.claim
              await memory[current.kind](chosen.paymentId, claim)
              await store[current.kind](chosen.paymentId, claim)
            }
          }
          for (const payment of [0, 1, 2].map((n) => `pay_${n}`)) {
            const expected = memory.highestVersion(payment)
            expect(await store.payment(payment)).toEqual({
              ...(expected === undefined ? {} : { highestVersion: expected }),
              fulfilment: memory.fulfilment(payment),
            })
          }
        }),
        { numRuns: 100 },
      )
    }, 300_000)

    it('prune deletes only expired event ids, in bounded batches; record prunes now and then; payments stay', async () => {
      const { store, count } = await backend.open()
      for (let index = 0; index < 30; index++)
        await store.record({
          eventId: `evt_${index}`,
          claimToken: `t${index}`,
          paymentId: `pay_${index % 3}`,
          version: index,
          fulfillable: false,
          now: start,
          keepUntil: start + (index < 20 ? 10 : 1000) * second,
          leaseUntil: start + second,
        })
      expect(await count('events')).toBe(30)
      expect(await store.prune({ now: start + 10 * second, limit: 7 })).toBe(7)
      expect(await store.prune({ now: start + 10 * second })).toBe(13)
      expect(await store.prune({ now: start + 10 * second })).toBe(0)
      expect(await count('events')).toBe(10)
      expect(await count('payments')).toBe(3)
      // The ids pruned are forgotten: seen again, they are new (and stale by version).
      expect(
        await store.record({
          eventId: 'evt_0',
          claimToken: 'again',
          paymentId: 'pay_0',
          version: 0,
          fulfillable: false,
          now: start + 11 * second,
          keepUntil: start + 20 * second,
          leaseUntil: start + 12 * second,
        }),
      ).toEqual({ event: 'new', version: 'stale', fulfil: false })
    })

    it('record deletes a bounded batch of expired ids every Nth call, never more than its limit', async () => {
      const { store: base, schema, pool, count } = await backend.open()
      const store = postgresWebhookStore({ pool: pool(), schema, autoPrune: { every: 5, limit: 3 } })
      const countEvents = () => count('events')
      const request = (index: number, now: number): WebhookRecordRequest => ({
        eventId: `evt_${index}`,
        claimToken: `t${index}`,
        fulfillable: false,
        now,
        keepUntil: now + second,
        leaseUntil: now + second,
      })
      // Ten ids that expire, recorded through the store without pruning (calls 1–10 of a store with its own count).
      for (let index = 0; index < 10; index++) await base.record(request(index, start))
      const later = start + 60 * second
      // Call 1 of the pruning store prunes (3), calls 2–5 do not, call 6 prunes again (3).
      await store.record(request(100, later))
      expect(await countEvents()).toBe(10 + 1 - 3)
      for (let index = 101; index < 105; index++) await store.record(request(index, later))
      expect(await countEvents()).toBe(8 + 4)
      await store.record(request(105, later))
      expect(await countEvents()).toBe(12 + 1 - 3)
    })
  })
})

async function rawQuery(sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: server!.url })
  await client.connect()
  try {
    return (await client.query(sql)).rows
  } finally {
    await client.end()
  }
}

const day = 86_400_000

describe.skipIf(bin === undefined)(
  'on Postgres: what concurrent transactions and instances could get wrong',
  () => {
    it('four instances recording one payment at once: exactly one claim; one event id at once: exactly one new', async () => {
      const schema = await server!.freshSchema()
      const stores = [0, 1, 2, 3].map(() => postgresWebhookStore({ pool: pgPool(), schema }))
      await Promise.all(stores.map((store) => store.ready()))
      for (let round = 0; round < 8; round++) {
        const paymentId = `pay_${round}`
        // Eight events of one payment, each delivered three times, all saying succeeded, all at once.
        const requests = Array.from({ length: 24 }, (_, index) => ({
          eventId: `evt_${round}_${index % 8}`,
          claimToken: `t${round}_${index}`,
          paymentId,
          version: index % 8,
          fulfillable: true,
          now: start,
          keepUntil: start + day,
          leaseUntil: start + 60 * second,
        }))
        const results = await Promise.all(
          requests.map((request, index) => stores[index % 4]!.record(request)),
        )
        expect(results.filter((result) => result.fulfil)).toHaveLength(1)
        expect(results.filter((result) => result.event === 'new')).toHaveLength(8)
        expect(await stores[0]!.payment(paymentId)).toEqual({ highestVersion: 7, fulfilment: 'claimed' })
        // An event that is not about a payment, twelve times at once: one `new`.
        const bare = await Promise.all(
          Array.from({ length: 12 }, (_, index) =>
            stores[index % 4]!.record({
              eventId: `evt_refund_${round}`,
              claimToken: '',
              fulfillable: false,
              now: start,
              keepUntil: start + day,
              leaseUntil: start,
            }),
          ),
        )
        expect(bare.filter((result) => result.event === 'new')).toHaveLength(1)
      }
    })

    it('eight instances starting at once on a database without the schema all get ready (the advisory lock)', async () => {
      for (let round = 0; round < 4; round++) {
        const schema = `race_${process.pid}_${round}`
        const stores = Array.from({ length: 8 }, () => postgresWebhookStore({ pool: pgPool(), schema }))
        await Promise.all(stores.map((store) => store.ready()))
        await Promise.all(stores.map((store) => store.ready()))
        expect(
          await stores[0]!.record({
            eventId: 'evt_1',
            claimToken: 't',
            paymentId: 'pay_1',
            version: 0,
            fulfillable: true,
            now: start,
            keepUntil: start + day,
            leaseUntil: start + second,
          }),
        ).toEqual({ event: 'new', version: 'newer', fulfil: true })
      }
    })

    it('webhookStoreMigration() is the DDL ready() runs; with createTables: false the store runs none and says what to run', async () => {
      const made = await server!.freshSchema()
      await postgresWebhookStore({ pool: pgPool(), schema: made, tablePrefix: 'hooks_' }).ready()
      const migrated = `migrated_${process.pid}`
      await rawQuery(webhookStoreMigration({ schema: migrated, tablePrefix: 'hooks_' }))
      await rawQuery(webhookStoreMigration({ schema: migrated, tablePrefix: 'hooks_' }))
      const columns = async (schema: string) =>
        rawQuery(
          `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
         WHERE table_schema = '${schema}' ORDER BY table_name, ordinal_position`,
        )
      expect(await columns(migrated)).toEqual(await columns(made))
      expect((await columns(migrated)).length).toBe(8)

      const seen: string[] = []
      const watched = (): PgPoolLike => {
        const pool = pgPool()
        return {
          connect: async () => {
            const client = await pool.connect()
            return {
              query: (text: string, values?: unknown[]) => {
                seen.push(text)
                return client.query(text, values)
              },
              release: (destroy?: boolean | Error) => client.release(destroy),
            }
          },
        }
      }
      const missing = await server!.freshSchema()
      await expect(
        postgresWebhookStore({ pool: watched(), schema: missing, createTables: false }).ready(),
      ).rejects.toThrow(/do not exist \(createTables: false\): run webhookStoreMigration\(\) first/)
      const store = postgresWebhookStore({
        pool: watched(),
        schema: migrated,
        tablePrefix: 'hooks_',
        createTables: false,
      })
      await store.ready()
      await store.record({
        eventId: 'evt_1',
        claimToken: 't',
        fulfillable: false,
        now: start,
        keepUntil: start + day,
        leaseUntil: start,
      })
      expect(seen.length).toBeGreaterThan(3)
      expect(seen.filter((text) => /\bCREATE\b/i.test(text))).toEqual([])

      // A table of the merchant's own under the store's names is not taken for the store's.
      const foreign = await server!.freshSchema()
      await rawQuery(`CREATE TABLE ${foreign}.wallet_rpc_webhook_events (id int)`)
      await rawQuery(`CREATE TABLE ${foreign}.wallet_rpc_webhook_payments (id int)`)
      await expect(postgresWebhookStore({ pool: pgPool(), schema: foreign }).ready()).rejects.toThrow(
        /is not the webhook store's table/,
      )
    })

    it('connectionString: the store makes its own pg pool and close() ends it; a pool it was given stays open', async () => {
      const schema = await server!.freshSchema()
      const application = `close_test_${process.pid}`
      const own = postgresWebhookStore({
        connectionString: `${server!.url}?application_name=${application}`,
        schema,
      })
      await own.ready()
      const connected = async () =>
        Number(
          (
            await rawQuery(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = '${application}'`,
            )
          )[0]!.n,
        )
      expect(await connected()).toBeGreaterThan(0)
      await own.close()
      for (let waited = 0; (await connected()) > 0 && waited < 100; waited++)
        await new Promise((resolve) => setTimeout(resolve, 50))
      expect(await connected()).toBe(0)

      const pool = pgPool()
      const given = postgresWebhookStore({ pool, schema })
      await given.ready()
      await given.close()
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
    })
  },
)

describe('options, identifiers, retries (no server needed)', () => {
  it('schema and tablePrefix are checked (lower case, digits, _), bounded to 63-byte names, and quoted', () => {
    for (const schema of ['x"; DROP TABLE y; --', 'Billing', '1st', '', 'a b'])
      expect(() => postgresWebhookStore({ pool: pglite, schema }), schema).toThrow(
        /schema must be lower-case letters, digits and _/,
      )
    for (const tablePrefix of ['hooks-', 'Hooks_', ''])
      expect(() => postgresWebhookStore({ pool: pglite, tablePrefix }), tablePrefix).toThrow(
        /tablePrefix must be/,
      )
    expect(() => postgresWebhookStore({ pool: pglite, tablePrefix: 'p'.repeat(47) })).toThrow(/at most 46/)
    expect(() => postgresWebhookStore({ pool: pglite, tablePrefix: 'p'.repeat(46) })).not.toThrow()
    expect(() => postgresWebhookStore({ pool: pglite, schema: 's'.repeat(64) })).toThrow(/at most 63/)
    const ddl = webhookStoreMigration({ schema: 'billing', tablePrefix: 'hooks_' })
    expect(ddl).toContain('CREATE SCHEMA IF NOT EXISTS "billing"')
    expect(ddl).toContain('CREATE TABLE IF NOT EXISTS "billing"."hooks_events"')
    expect(ddl).toContain('CREATE TABLE IF NOT EXISTS "billing"."hooks_payments"')
    expect(webhookStoreMigration()).toContain('"public"."wallet_rpc_webhook_payments"')
    expect(webhookStoreMigration()).not.toContain('CREATE SCHEMA')
  })

  it('the DDL in src/pay/README.md is webhookStoreMigration() with the default names, verbatim', () => {
    const readme = readFileSync(new URL('../../../src/pay/README.md', import.meta.url), 'utf8')
    const block = /The DDL \(`webhookStoreMigration\(\)`, default names\):\n\n```sql\n([^`]*)```/.exec(readme)
    expect(block?.[1]).toBe(webhookStoreMigration())
  })

  it('exactly one of pool and connectionString; a pg Client given as the pool is refused, naming the fix', async () => {
    expect(() => postgresWebhookStore({})).toThrow(/exactly one of pool and connectionString/)
    expect(() => postgresWebhookStore({ pool: pglite, connectionString: 'postgres://x' })).toThrow(
      /exactly one/,
    )
    expect(() => postgresWebhookStore({ pool: {} as PgPoolLike })).not.toThrow()
    await expect(postgresWebhookStore({ pool: {} as PgPoolLike }).ready()).rejects.toThrow(
      /must be a pg Pool/,
    )
    const client = { connect: async () => undefined } as unknown as PgPoolLike
    await expect(postgresWebhookStore({ pool: client }).ready()).rejects.toThrow(/a pg Pool, not a Client/)
  })

  it("connectionString without the 'pg' package installed fails with an error that names it", async () => {
    const missing = async () => {
      throw Object.assign(new Error("Cannot find package 'pg' imported from …"), {
        code: 'ERR_MODULE_NOT_FOUND',
      })
    }
    await expect(createPgPool('postgres://127.0.0.1/x', undefined, missing)).rejects.toThrow(
      "needs the 'pg' package: npm install pg",
    )
    const pool = await createPgPool('postgres://127.0.0.1:1/x', 1)
    expect(typeof pool.connect).toBe('function')
    await pool.end?.()
  })

  it('a serialization failure or a deadlock is retried inside the store a few times, then thrown; other errors at once', async () => {
    const schema = `retry_${process.pid}`
    const log: string[] = []
    const failures = new Map<string, { code: string; left: number }>()
    // A pg-shaped pool over PGlite (one client at a time), failing the statements the test names.
    const pool: PgPoolLike = {
      connect: async () => ({
        query: async (text: string, values?: unknown[]) => {
          log.push(text.split(/\s/)[0]!)
          for (const [prefix, failure] of failures)
            if (text.startsWith(prefix) && failure.left > 0) {
              failure.left--
              throw Object.assign(new Error(`injected ${failure.code}`), { code: failure.code })
            }
          return pglite.query(text, values)
        },
        release: () => undefined,
      }),
    }
    const store = postgresWebhookStore({ pool, schema, autoPrune: false })
    await store.ready()
    const request = (eventId: string): WebhookRecordRequest => ({
      eventId,
      claimToken: `t_${eventId}`,
      paymentId: 'pay_1',
      version: Number(eventId.slice(4)),
      fulfillable: false,
      now: start,
      keepUntil: start + day,
      leaseUntil: start + second,
    })
    const begins = () => log.filter((statement) => statement === 'BEGIN').length

    log.length = 0
    failures.set('COMMIT', { code: '40001', left: 2 })
    expect(await store.record(request('evt_1'))).toEqual({ event: 'new', version: 'newer', fulfil: false })
    expect(begins()).toBe(3)

    log.length = 0
    failures.set('COMMIT', { code: '40P01', left: 99 })
    await expect(store.record(request('evt_2'))).rejects.toMatchObject({ code: '40P01' })
    expect(begins()).toBe(5)
    // Every run was rolled back: the id was not remembered.
    failures.clear()
    expect(await store.record(request('evt_2'))).toEqual({ event: 'new', version: 'newer', fulfil: false })

    log.length = 0
    failures.set('INSERT', { code: '23514', left: 1 })
    await expect(store.record(request('evt_3'))).rejects.toMatchObject({ code: '23514' })
    expect(begins()).toBe(1)
    expect(log).toContain('ROLLBACK')
  })
})
