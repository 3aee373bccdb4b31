/**
 * The two tables of the Postgres webhook store, named from a schema and a table prefix that are checked and
 * quoted (never spliced in raw), and their DDL: the same text `ready()` runs and `webhookStoreMigration()` hands
 * to teams that run their own migrations.
 */

export type WebhookStoreNames = {
  /** Default `public`. */
  schema?: string
  /** Default `wallet_rpc_webhook_`: the tables are `<prefix>events` and `<prefix>payments`. */
  tablePrefix?: string
}

/** The resolved, quoted names the store's SQL uses. */
export type WebhookStoreTables = {
  schema: string
  /** `"schema"."<prefix>events"`: event id → until when it is remembered. */
  events: string
  /** `"schema"."<prefix>payments"`: one row per payment, kept indefinitely. */
  payments: string
  /** The key of the advisory lock that serialises `ready()` across instances starting at once. */
  lockKey: string
  /** The DDL, one statement per entry (PGlite's `query` runs one statement at a time). */
  ddl: readonly string[]
}

/** Lower case, digits and `_`, as Postgres folds an unquoted name: the same table whether a DBA quotes it or not. */
const identifierPattern = /^[a-z_][a-z0-9_]*$/
/** NAMEDATALEN - 1: Postgres silently truncates a longer name, so two prefixes could name one table. */
const maxIdentifierBytes = 63
const longestSuffix = 'events_keep_until'

function checkIdentifier(option: string, value: unknown, reserved: number): string {
  if (typeof value !== 'string' || !identifierPattern.test(value))
    throw new TypeError(
      `postgresWebhookStore: ${option} must be lower-case letters, digits and _ (not starting with a digit), got ${JSON.stringify(value)}`,
    )
  if (value.length + reserved > maxIdentifierBytes)
    throw new TypeError(
      `postgresWebhookStore: ${option} is too long (at most ${maxIdentifierBytes - reserved} characters)`,
    )
  return value
}

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`

export function webhookStoreTables(names: WebhookStoreNames = {}): WebhookStoreTables {
  const schema = checkIdentifier('schema', names.schema ?? 'public', 0)
  const prefix = checkIdentifier(
    'tablePrefix',
    names.tablePrefix ?? 'wallet_rpc_webhook_',
    longestSuffix.length,
  )
  const events = `${quote(schema)}.${quote(`${prefix}events`)}`
  const payments = `${quote(schema)}.${quote(`${prefix}payments`)}`
  const ddl = [
    ...(schema === 'public' ? [] : [`CREATE SCHEMA IF NOT EXISTS ${quote(schema)}`]),
    `CREATE TABLE IF NOT EXISTS ${events} (
  event_id text PRIMARY KEY,
  -- Milliseconds since the epoch on the receiver's clock (never the database's now()): remembered until then.
  keep_until double precision NOT NULL
)`,
    `CREATE INDEX IF NOT EXISTS ${quote(`${prefix}events_keep_until`)} ON ${events} (keep_until)`,
    `CREATE TABLE IF NOT EXISTS ${payments} (
  payment_id text PRIMARY KEY,
  -- The highest payment_state_version processed; NULL until the first event (whose version is 0).
  highest_version bigint,
  -- NULL (not fulfilled), 'claimed' (onPayment running, until lease_until) or 'done' (for good).
  fulfilment text CHECK (fulfilment IN ('claimed', 'done')),
  claim_event text,
  claim_token text,
  -- Milliseconds since the epoch on the receiver's clock; after it the claim may be taken over.
  lease_until double precision,
  CHECK (fulfilment IS NULL OR claim_event IS NOT NULL),
  CHECK (fulfilment IS DISTINCT FROM 'claimed' OR (claim_token IS NOT NULL AND lease_until IS NOT NULL))
)`,
  ]
  return { schema, events, payments, lockKey: `wallet-rpc webhook store ${schema}.${prefix}`, ddl }
}

/**
 * The DDL the store's `ready()` runs (idempotent: `IF NOT EXISTS` throughout), as one SQL text for a migration
 * tool. Use it with `postgresWebhookStore({ ..., createTables: false })`.
 */
export function webhookStoreMigration(names: WebhookStoreNames = {}): string {
  return `${webhookStoreTables(names).ddl.join(';\n\n')};\n`
}
