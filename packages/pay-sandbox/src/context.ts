import type { IncomingHttpHeaders } from 'node:http'
import type { PublicClient } from 'viem'
import type { Clock } from 'wallet-rpc'
import type { ExplorerData } from './explorer/data.js'
import type { Faults } from './faults.js'
import type { ActionLayout } from './gatewayOptions.js'
import type { Reply } from './http.js'
import type { LiveEngine } from './live/engine.js'
import type { Persist, SolanaTokenOption, TokenConfig } from './model.js'
import type { SandboxState } from './state.js'
import type { WebhookDispatcher } from './webhookDelivery.js'

/** The resolved configuration every route reads. */
export type SandboxConfig = {
  apiKey: string
  appId: string
  clock: Clock
  versions: readonly string[]
  pinnedVersion: string
  checkoutUrl: string
  /** Public base of the sandbox's pages (`--checkout-url` behind TLS or a tunnel); null: its own URL. */
  portalUrl: string | null
  pollInMs: number
  maxLongPollMs: number
  routeTtlMs: number
  processingMs: number | null
  settlementMs: number | null
  tokens: Readonly<Record<string, TokenConfig>>
  anyEvmChain: boolean
  actionLayout: ActionLayout
  /** The Solana option (an SPL token on a runtime the sandbox submits to), or none. */
  solana: SolanaTokenOption | null
  /** What the explorer interface (`/v3/…`) serves, the same in both modes. */
  explorer: ExplorerData
}

export type SandboxContext = {
  config: SandboxConfig
  state: SandboxState
  webhooks: WebhookDispatcher
  /** The fault mode (inactive unless `--faults`, the `faults` option or `PUT /_sandbox/faults` set a plan). */
  faults: Faults
  readers: ReadonlyMap<number, PublicClient>
  /** Replies of POSTs that carried an Idempotency-Key, by route and key. */
  idempotency: Map<string, { fingerprint: string; reply: Reply }>
  /** The sandbox's own base URL (for collectData web-view pages). */
  baseUrl: () => string
  /** Writes to the durable journal (`--data DIR`); absent when the sandbox runs in memory. */
  persist?: Persist
  /** Live mode only: verifies payments on the chain and settles them with real transfers. */
  live?: LiveEngine
}

export type RequestContext = {
  method: string
  path: string
  params: Readonly<Record<string, string>>
  query: URLSearchParams
  headers: IncomingHttpHeaders
  /** Parsed JSON body; undefined when the request had none. */
  body: unknown
  /** Raw request body text (for form posts of the collect page). */
  rawBody: string
  version: string
  sandbox: SandboxContext
}

export type { Reply } from './http.js'

/** `wallet` accepts `Api-Key` or `App-Id` + `Client-Id` (the spec's wallet authentication); `none` is public. */
export type Auth = 'apiKey' | 'wallet' | 'none'

export type Route = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** Segments starting with `:` are parameters. */
  path: string
  auth: Auth
  handle: (context: RequestContext) => Reply | Promise<Reply>
}

export function header(context: RequestContext, name: string): string | undefined {
  const value = context.headers[name.toLowerCase()]
  if (Array.isArray(value)) return value.length === 1 ? value[0] : undefined
  return typeof value === 'string' && value.length > 0 ? value : undefined
}

export const ok = (body: unknown, status = 200): Reply => ({ status, body })

/** Where buyers open the sandbox's pages (`gatewayUrl` is `<portalBase>/<pay_id>`): `portalUrl`, else its URL. */
export const portalBase = (sandbox: SandboxContext): string => sandbox.config.portalUrl ?? sandbox.baseUrl()
