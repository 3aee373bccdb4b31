/**
 * The few things the store needs from a Postgres driver, over the two shapes it accepts: a `pg` Pool (anything
 * whose `connect()` hands out clients with `query` and `release`) or a PGlite instance (anything with `query`
 * and `transaction`). Neither driver is imported here; `pg` only when the store makes its own pool.
 */

export type SqlRow = Record<string, unknown>
export type SqlResult = { rows: SqlRow[] }

/** A client a `pg` Pool hands out. */
export type PgClientLike = {
  query(text: string, values?: unknown[]): Promise<SqlResult>
  /** `release(error)` (truthy) destroys the client instead of returning it to the pool. */
  release(destroy?: boolean | Error): void
}

/** A `pg` Pool, or any pool shaped like it (`@neondatabase/serverless`'s Pool, a wrapper with metrics). */
export type PgPoolLike = {
  connect(): Promise<PgClientLike>
  end?(): Promise<void>
}

/** A PGlite instance (`@electric-sql/pglite`), or anything with its `query` and `transaction`. */
export type PGliteLike = {
  query(text: string, values?: unknown[]): Promise<SqlResult>
  transaction<T>(
    callback: (tx: { query(text: string, values?: unknown[]): Promise<SqlResult> }) => Promise<T>,
  ): Promise<T>
}

export type Query = (text: string, values?: unknown[]) => Promise<SqlRow[]>

export type Database = {
  /** `work` inside BEGIN … COMMIT on one connection (READ COMMITTED: the store locks the rows it decides on). */
  transaction<T>(work: (query: Query) => Promise<T>): Promise<T>
  /** One statement, on its own (autocommit). */
  query: Query
  /** Ends the pool when the store made it. */
  end(): Promise<void>
}

const isPGlite = (pool: PgPoolLike | PGliteLike): pool is PGliteLike =>
  typeof (pool as PGliteLike).transaction === 'function' && typeof (pool as PGliteLike).query === 'function'

export function databaseOf(pool: PgPoolLike | PGliteLike, ownsPool: boolean): Database {
  if (isPGlite(pool)) {
    return {
      // PGlite has one connection; its transaction() holds it exclusively until the callback settles.
      transaction: (work) =>
        pool.transaction(async (tx) => {
          await tx.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED')
          return work(async (text, values) => (await tx.query(text, values)).rows)
        }),
      query: async (text, values) => (await pool.query(text, values)).rows,
      end: async () => undefined,
    }
  }
  if (typeof pool?.connect !== 'function')
    throw new TypeError(
      'postgresWebhookStore: pool must be a pg Pool (connect() → client) or a PGlite instance (query, transaction)',
    )
  const connect = async () => {
    const client = await pool.connect()
    if (typeof client?.query !== 'function' || typeof client.release !== 'function')
      throw new TypeError(
        'postgresWebhookStore: pool.connect() must hand out clients with query() and release() (a pg Pool, not a Client)',
      )
    return client
  }
  return {
    transaction: async (work) => {
      const client = await connect()
      let broken: Error | undefined
      try {
        await client.query('BEGIN ISOLATION LEVEL READ COMMITTED')
        const result = await work(async (text, values) => (await client.query(text, values)).rows)
        await client.query('COMMIT')
        return result
      } catch (error) {
        // A connection that cannot even roll back is not given to the next caller.
        await client.query('ROLLBACK').catch((rollbackFailed: unknown) => {
          broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed))
        })
        throw error
      } finally {
        client.release(broken)
      }
    },
    query: async (text, values) => {
      const client = await connect()
      let broken: Error | undefined
      try {
        return (await client.query(text, values)).rows
      } catch (error) {
        // An error with a SQLSTATE leaves the connection usable; anything else may have broken it: not reused.
        if (isConnectionError(error)) broken = error as Error
        throw error
      } finally {
        client.release(broken)
      }
    },
    end: async () => {
      if (ownsPool) await pool.end?.()
    },
  }
}

/** SQLSTATE class 08 (connection exception), or a socket error without a SQLSTATE. */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code !== 'string' || code.startsWith('08') || code.startsWith('E')
}

/** 40001 serialization_failure, 40P01 deadlock_detected: the transaction did nothing and may simply run again. */
export function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return code === '40001' || code === '40P01'
}

/** The `pg` module, loaded only when the store is given a `connectionString`. */
export type LoadPg = () => Promise<unknown>

type PgModule = { Pool?: PgPoolConstructor; default?: { Pool?: PgPoolConstructor } }
type PgPoolConstructor = new (config: {
  connectionString: string
  max?: number
}) => PgPoolLike & { on?(event: 'error', listener: (error: Error) => void): unknown }

export const loadPg: LoadPg = () => import('pg')

export async function createPgPool(
  connectionString: string,
  max: number | undefined,
  load: LoadPg = loadPg,
): Promise<PgPoolLike> {
  let module: PgModule
  try {
    module = (await load()) as PgModule
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND')
      throw new Error(
        "postgresWebhookStore({ connectionString }) needs the 'pg' package: npm install pg (or pass your own pool)",
        { cause: error },
      )
    throw error
  }
  const Pool = module.default?.Pool ?? module.Pool
  if (Pool === undefined) throw new Error("postgresWebhookStore: the 'pg' package has no Pool export")
  const pool = new Pool({ connectionString, ...(max === undefined ? {} : { max }) })
  // An idle client whose server went away emits 'error' on the pool; unheard, Node ends the process. pg has
  // already dropped that client, and the next query reports its own error.
  pool.on?.('error', () => undefined)
  return pool
}
