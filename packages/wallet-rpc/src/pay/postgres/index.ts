/**
 * `wallet-rpc/pay/postgres`: the webhook receiver's store on Postgres (a `pg` Pool, a connection string, or
 * PGlite), so several receiver instances on one database fulfil each payment once and a restart forgets nothing.
 * A subpath of its own so `wallet-rpc/pay` stays portable: this one is for the merchant's server, and loads no
 * driver until it is given a `connectionString` (then `pg`, an optional peer dependency).
 *
 * ```ts
 * import { createWebhookReceiver } from 'wallet-rpc/pay'
 * import { postgresWebhookStore } from 'wallet-rpc/pay/postgres'
 * const store = postgresWebhookStore({ connectionString: process.env.DATABASE_URL })
 * await store.ready()
 * const receiver = createWebhookReceiver({ secrets, onPayment, store })
 * ```
 */

export type { PGliteLike, PgClientLike, PgPoolLike, SqlResult, SqlRow } from './database.js'
export { type WebhookStoreNames, webhookStoreMigration } from './schema.js'
export {
  type PostgresWebhookStore,
  type PostgresWebhookStoreOptions,
  postgresWebhookStore,
} from './store.js'
