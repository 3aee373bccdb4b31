import type {
  WebhookClaim,
  WebhookReceiverStore,
  WebhookRecordRequest,
  WebhookRecordResult,
} from '../webhook/store.js'
import {
  createPgPool,
  type Database,
  databaseOf,
  isRetryable,
  type PGliteLike,
  type PgPoolLike,
  type Query,
  type SqlRow,
} from './database.js'
import { type WebhookStoreNames, type WebhookStoreTables, webhookStoreTables } from './schema.js'

export type PostgresWebhookStoreOptions = WebhookStoreNames & {
  /**
   * A `pg` Pool (anything whose `connect()` hands out clients with `query` and `release`) or a PGlite instance
   * (anything with `query` and `transaction`). The store never ends a pool it was given.
   */
  pool?: PgPoolLike | PGliteLike
  /** Instead of `pool`: the store makes its own `pg` Pool (`npm install pg`), ended by `close()`. */
  connectionString?: string
  /** The size of the pool made from `connectionString`; default `pg`'s (10). */
  poolSize?: number
  /** Default true: `ready()` creates the tables when missing. False: never any DDL (`webhookStoreMigration()`). */
  createTables?: boolean
  /**
   * Expired event ids are deleted by `record` now and then: every `every`-th call (default 100) deletes at most
   * `limit` (default 500) of them, after its own transaction. `false`: only `prune()` does.
   */
  autoPrune?: false | { every?: number; limit?: number }
}

export type PostgresWebhookStore = WebhookReceiverStore & {
  /**
   * Creates the tables when missing (unless `createTables: false`) and checks they are the store's. Idempotent,
   * and safe when several instances start at once (an advisory lock serialises the DDL). Every other method
   * waits for it, so calling it at start only makes a misconfiguration fail there rather than on a delivery.
   */
  ready(): Promise<void>
  /**
   * Deletes event ids whose `keepUntil` has passed at `now` (default `Date.now()`), at most `limit` (default all),
   * in batches of 1000, each its own short transaction: for a cron job. Returns how many were deleted.
   * Per-payment rows are never pruned: a fulfilment must never repeat.
   */
  prune(options?: { now?: number; limit?: number }): Promise<number>
  /** A payment's state, as `createMemoryWebhookStore`'s `highestVersion` and `fulfilment` tell it. */
  payment(paymentId: string): Promise<{ highestVersion?: number; fulfilment: 'none' | 'claimed' | 'done' }>
  /** Ends the pool the store made from `connectionString`; a pool it was given is left open. */
  close(): Promise<void>
}

/** A serialization failure or deadlock runs the transaction again, up to this many runs in all. */
const maxRuns = 5
const pruneBatch = 1000

/**
 * A `WebhookReceiverStore` on Postgres (or PGlite), so several receiver instances on one database fulfil each
 * payment once and a restarted one remembers. The semantics are exactly `createMemoryWebhookStore`'s, each
 * method one transaction; the times are the request's own (the receiver's clock), never the database's.
 *
 * ```ts
 * import { postgresWebhookStore } from 'wallet-rpc/pay/postgres'
 * const store = postgresWebhookStore({ connectionString: process.env.DATABASE_URL })
 * await store.ready()
 * const receiver = createWebhookReceiver({ secrets, onPayment, store })
 * ```
 */
export function postgresWebhookStore(options: PostgresWebhookStoreOptions): PostgresWebhookStore {
  const tables = webhookStoreTables(options)
  const given = options.pool
  const connectionString = options.connectionString
  if ((given === undefined) === (connectionString === undefined))
    throw new TypeError('postgresWebhookStore: pass exactly one of pool and connectionString')
  if (connectionString !== undefined && (typeof connectionString !== 'string' || connectionString === ''))
    throw new TypeError('postgresWebhookStore: connectionString must be a non-empty string')
  const autoPrune =
    options.autoPrune === false
      ? undefined
      : { every: options.autoPrune?.every ?? 100, limit: options.autoPrune?.limit ?? 500 }
  if (autoPrune !== undefined && !(isCount(autoPrune.every) && isCount(autoPrune.limit)))
    throw new TypeError('postgresWebhookStore: autoPrune.every and autoPrune.limit must be whole numbers ≥ 1')

  let database: Promise<Database> | undefined
  const open = () => {
    database ??=
      given !== undefined
        ? Promise.resolve().then(() => databaseOf(given, false))
        : createPgPool(connectionString!, options.poolSize).then((pool) => databaseOf(pool, true))
    return database
  }

  let prepared: Promise<Database> | undefined
  const ready = () => {
    if (prepared === undefined) {
      const attempt = open().then(async (db) => {
        await prepare(db, tables, options.createTables ?? true)
        return db
      })
      prepared = attempt
      // A failure (the database not up yet) is not remembered: the next call tries again.
      attempt.catch(() => {
        if (prepared === attempt) prepared = undefined
      })
    }
    return prepared
  }

  /** Runs `work` again on a serialization failure or deadlock, after a short random pause. */
  const withRetry = async <T>(work: (db: Database) => Promise<T>): Promise<T> => {
    const db = await ready()
    for (let run = 1; ; run++) {
      try {
        return await work(db)
      } catch (error) {
        if (run >= maxRuns || !isRetryable(error)) throw error
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** run))
      }
    }
  }

  const { events, payments } = tables
  const deleteExpired = (query: Query, now: number, limit: number) =>
    query(
      // SKIP LOCKED: never wait for (or deadlock with) a record that is overwriting one of these ids right now.
      `WITH gone AS (
        DELETE FROM ${events} WHERE event_id IN (
          SELECT event_id FROM ${events} WHERE keep_until <= $1 ORDER BY keep_until LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS deleted FROM gone`,
      [now, limit],
    ).then((rows) => Number(rows[0]?.deleted ?? 0))

  let records = 0
  const record = async (request: WebhookRecordRequest): Promise<WebhookRecordResult> => {
    checkRequest(request)
    const result = await withRetry((db) => db.transaction((query) => recordIn(query, tables, request)))
    if (autoPrune !== undefined && records++ % autoPrune.every === 0) {
      // Housekeeping after the decision is committed: its failure must not fail the delivery.
      await withRetry((db) => deleteExpired(db.query, request.now, autoPrune.limit)).catch(() => undefined)
    }
    return result
  }

  const holds = `payment_id = $1 AND fulfilment = 'claimed' AND claim_event = $2 AND claim_token = $3`

  return {
    record,
    fulfilled: async (paymentId, claim) => {
      checkClaim(paymentId, claim)
      await withRetry((db) =>
        db.query(
          `UPDATE ${payments} SET fulfilment = 'done', claim_token = NULL, lease_until = NULL WHERE ${holds}`,
          [paymentId, claim.eventId, claim.token],
        ),
      )
    },
    release: async (paymentId, claim) => {
      checkClaim(paymentId, claim)
      // One statement: the claim is dropped and its event id forgotten together, or neither.
      await withRetry((db) =>
        db.query(
          `WITH released AS (
            UPDATE ${payments} SET fulfilment = NULL, claim_event = NULL, claim_token = NULL, lease_until = NULL
            WHERE ${holds} RETURNING 1)
          DELETE FROM ${events} WHERE event_id = $2 AND EXISTS (SELECT 1 FROM released)`,
          [paymentId, claim.eventId, claim.token],
        ),
      )
    },
    ready: async () => {
      await ready()
    },
    prune: async ({ now = Date.now(), limit = Number.POSITIVE_INFINITY } = {}) => {
      if (!Number.isFinite(now)) throw new TypeError('prune: now must be a finite number (ms)')
      if (!(limit === Number.POSITIVE_INFINITY || isCount(limit) || limit === 0))
        throw new TypeError('prune: limit must be a whole number ≥ 0')
      let deleted = 0
      while (deleted < limit) {
        const batch = Math.min(pruneBatch, limit - deleted)
        const gone = await withRetry((db) => deleteExpired(db.query, now, batch))
        deleted += gone
        if (gone < batch) break
      }
      return deleted
    },
    payment: async (paymentId) => {
      const [row] = await withRetry((db) =>
        db.query(`SELECT highest_version, fulfilment FROM ${payments} WHERE payment_id = $1`, [paymentId]),
      )
      const { highestVersion, fulfilment } = paymentOf(row)
      return { ...(highestVersion === undefined ? {} : { highestVersion }), fulfilment: fulfilment ?? 'none' }
    },
    close: async () => {
      const db = database
      database = undefined
      prepared = undefined
      if (db !== undefined) await (await db.catch(() => undefined))?.end()
    },
  }
}

type PaymentRow = {
  highestVersion: number | undefined
  fulfilment: 'claimed' | 'done' | undefined
  claimEvent: string | undefined
  leaseUntil: number | undefined
}

/**
 * `record` in one transaction, step for step the memory store's: the payment row is created if missing and
 * locked (`FOR UPDATE`), so every decision about one payment is taken by one transaction at a time across all
 * instances; the event id is inserted, or overwritten when its `keep_until` has passed, in one statement whose
 * `RETURNING` says whether it was new. The claim is data (a token and a lease), never a lock held while
 * `onPayment` runs.
 */
async function recordIn(
  query: Query,
  { events, payments }: WebhookStoreTables,
  request: WebhookRecordRequest,
): Promise<WebhookRecordResult> {
  const { eventId, paymentId, now } = request
  let payment: PaymentRow | undefined
  if (paymentId !== undefined) {
    await query(`INSERT INTO ${payments} (payment_id) VALUES ($1) ON CONFLICT (payment_id) DO NOTHING`, [
      paymentId,
    ])
    const [row] = await query(
      `SELECT highest_version, fulfilment, claim_event, lease_until FROM ${payments} WHERE payment_id = $1 FOR UPDATE`,
      [paymentId],
    )
    payment = paymentOf(row)
  }
  // ON CONFLICT DO UPDATE … WHERE: a remembered id is left alone (no row returned: seen), an expired one is
  // overwritten (returned: new). The conflicting row is locked either way, so two transactions inserting the
  // same id at once see one `new` and one seen.
  const fresh = await query(
    `INSERT INTO ${events} AS e (event_id, keep_until) VALUES ($1, $2)
     ON CONFLICT (event_id) DO UPDATE SET keep_until = excluded.keep_until WHERE e.keep_until <= $3
     RETURNING 1`,
    [eventId, request.keepUntil, now],
  )
  if (fresh.length === 0) {
    if (payment?.fulfilment === 'claimed' && payment.claimEvent === eventId) {
      if (payment.leaseUntil! > now) return { event: 'in_progress', version: 'none', fulfil: false }
      // The attempt that claimed it never finished (the process died): this retry takes the claim over.
      await query(`UPDATE ${payments} SET claim_token = $2, lease_until = $3 WHERE payment_id = $1`, [
        paymentId,
        request.claimToken,
        request.leaseUntil,
      ])
      return { event: 'duplicate', version: 'none', fulfil: true }
    }
    return { event: 'duplicate', version: 'none', fulfil: false }
  }
  if (paymentId === undefined || payment === undefined)
    return { event: 'new', version: 'none', fulfil: false }
  let version: WebhookRecordResult['version'] = 'none'
  if (request.version !== undefined) {
    if (payment.highestVersion === undefined || request.version > payment.highestVersion) version = 'newer'
    else version = 'stale'
  }
  // Succeeded is final, so any event saying so (even a stale one) may claim a fulfilment not yet made.
  const claimable =
    payment.fulfilment === undefined || (payment.fulfilment === 'claimed' && payment.leaseUntil! <= now)
  const fulfil = request.fulfillable && claimable
  if (version === 'newer' && fulfil)
    await query(
      `UPDATE ${payments} SET highest_version = $2, fulfilment = 'claimed', claim_event = $3, claim_token = $4,
       lease_until = $5 WHERE payment_id = $1`,
      [paymentId, request.version, eventId, request.claimToken, request.leaseUntil],
    )
  else if (version === 'newer')
    await query(`UPDATE ${payments} SET highest_version = $2 WHERE payment_id = $1`, [
      paymentId,
      request.version,
    ])
  else if (fulfil)
    await query(
      `UPDATE ${payments} SET fulfilment = 'claimed', claim_event = $2, claim_token = $3, lease_until = $4
       WHERE payment_id = $1`,
      [paymentId, eventId, request.claimToken, request.leaseUntil],
    )
  return { event: 'new', version, fulfil }
}

/** Creates the tables when missing (under an advisory lock), then checks they have the store's columns. */
async function prepare(db: Database, tables: WebhookStoreTables, createTables: boolean): Promise<void> {
  const exist = async () => {
    const [row] = await db.query(
      'SELECT to_regclass($1) IS NOT NULL AS events, to_regclass($2) IS NOT NULL AS payments',
      [tables.events, tables.payments],
    )
    return row?.events === true && row.payments === true
  }
  // Tables already there: no DDL at all, so a role without CREATE rights can run the store.
  if (!(await exist())) {
    if (!createTables)
      throw new Error(
        `postgresWebhookStore: the tables ${tables.events} and ${tables.payments} do not exist (createTables: false): run webhookStoreMigration() first`,
      )
    // Two instances running CREATE TABLE IF NOT EXISTS at once can both pass the check and one then fails on
    // the catalog's unique index: the lock makes the second wait and find the tables made.
    await db.transaction(async (query) => {
      await query('SELECT pg_advisory_xact_lock(hashtext($1))', [tables.lockKey])
      for (const statement of tables.ddl) await query(statement)
    })
  }
  try {
    await db.query(`SELECT event_id, keep_until FROM ${tables.events} LIMIT 0`)
    await db.query(
      `SELECT payment_id, highest_version, fulfilment, claim_event, claim_token, lease_until FROM ${tables.payments} LIMIT 0`,
    )
  } catch (error) {
    throw new Error(
      `postgresWebhookStore: ${tables.events} or ${tables.payments} is not the webhook store's table (choose another tablePrefix)`,
      { cause: error },
    )
  }
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1

const numberOrUndefined = (value: unknown): number | undefined =>
  value === null || value === undefined ? undefined : Number(value)

/** A payments row as the driver returns it (pg gives bigint as text; PGlite as a number). */
function paymentOf(row: SqlRow | undefined): PaymentRow {
  return {
    highestVersion: numberOrUndefined(row?.highest_version),
    fulfilment: row?.fulfilment === 'claimed' || row?.fulfilment === 'done' ? row.fulfilment : undefined,
    claimEvent: typeof row?.claim_event === 'string' ? row.claim_event : undefined,
    leaseUntil: numberOrUndefined(row?.lease_until),
  }
}

function checkRequest(request: WebhookRecordRequest): void {
  if (typeof request.eventId !== 'string' || typeof request.claimToken !== 'string')
    throw new TypeError('record: eventId and claimToken must be strings')
  if (request.paymentId !== undefined && typeof request.paymentId !== 'string')
    throw new TypeError('record: paymentId must be a string')
  for (const field of ['now', 'keepUntil', 'leaseUntil'] as const)
    if (!Number.isFinite(request[field])) throw new TypeError(`record: ${field} must be a finite number (ms)`)
  // The column is bigint: a fraction would be rounded by Postgres and compare differently from memory.
  if (request.version !== undefined && !Number.isSafeInteger(request.version))
    throw new TypeError('record: version must be a whole number')
}

function checkClaim(paymentId: string, claim: WebhookClaim): void {
  if (typeof paymentId !== 'string' || typeof claim?.eventId !== 'string' || typeof claim.token !== 'string')
    throw new TypeError('the payment id, claim.eventId and claim.token must be strings')
}
