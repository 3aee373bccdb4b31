import type { Clock } from 'wallet-rpc'
import type { PaySandboxControl } from './control.js'
import type { FaultPlan, FaultRecord } from './faults.js'
import type { ActionLayout } from './gatewayOptions.js'
import type { LiveModeOptions } from './live/setup.js'
import type { EventType, PaymentEvent, TokenConfig, WebhookDelivery, WebhookEndpoint } from './model.js'
import type { FeeConfig } from './state.js'
import type { ChainReader } from './verifyResults.js'

/** The API version this sandbox describes (the spec's version). */
export const sandboxApiVersion = '2026-02-18'
/** The version `@walletconnect/pay` 1.1.0 sends (`WCP-Version`, `Api-Version`); the sandbox knows it by default. */
export const walletClientApiVersion = '2026-02-19.preview'

export type PaySandboxOptions = {
  /** TCP port on 127.0.0.1; default 0 (a free port chosen by the OS). */
  port?: number
  /** The test key to accept (must start with `svc_test_`); default a fresh random one. */
  apiKey?: string
  /** Public app id accepted on wallet routes (gateway, list) with any `Client-Id`; default a fresh `app_test_…`. */
  appId?: string
  /** Name of the merchant created at start (its id is `merchantId`); default 'Sandbox Merchant'. */
  merchantName?: string
  /** Icon of that merchant (the checkout page shows it only when https); default none. */
  merchantIconUrl?: string
  /** Base of buyer payment links (`<checkoutUrl>/<pay_id>`); default `https://pay.sandbox.test`. */
  checkoutUrl?: string
  /**
   * Public base where the sandbox's own pages are reached when it sits behind TLS or a tunnel: `gatewayUrl` is
   * `<portalUrl>/<pay_id>`, the checkout page. Default: the sandbox's URL (`http://127.0.0.1:<port>`).
   */
  portalUrl?: string
  /** Timestamps, expiry and webhook timestamps read this clock (ms); default `Date.now`. */
  clock?: Clock
  /** Known API versions, oldest first; default `['2026-02-18', '2026-02-19.preview']`. */
  versions?: readonly string[]
  /**
   * The partner's pinned version (default and downgrade floor); default `2026-02-18` with the default versions,
   * else the newest of `versions`.
   */
  pinnedVersion?: string
  /** How long a payment waits for the buyer; default 15 minutes. */
  paymentTtlMs?: number
  /** How long an option route stays valid (capped by the payment's expiry); default 5 minutes. */
  routeTtlMs?: number
  /** `pollInMs` suggested while not final; default 1000. */
  pollInMs?: number
  /** Largest accepted `maxPollMs` on confirm; default 60000. */
  maxLongPollMs?: number
  /** After a valid confirm the payment is processing; it succeeds after this many ms (null: only by control). Default 1000. */
  processingMs?: number | null
  /** A succeeded payment settles after this many ms (null: only by `control.settle`). Default 1000. */
  settlementMs?: number | null
  /** Multiplies webhook retry back-off (0.001 turns the 5 s retry into 5 ms); default 1. */
  timeScale?: number
  /** A webhook attempt fails without a complete 2xx within this time; default 15000 (the spec). */
  deliveryTimeoutMs?: number
  /** Registers the test-mode webhook endpoint at start (http allowed only to loopback hosts). */
  webhookUrl?: string
  /** Event types the endpoint receives; default all seven. */
  webhookEvents?: readonly EventType[]
  /** Token per CAIP-2 chain, overriding the built-in USDC table. */
  tokens?: Readonly<Record<string, TokenConfig>>
  /** Offer a (made-up) USDC-style token on EVM chains not in the table, e.g. anvil's 31337; default true. */
  anyEvmChain?: boolean
  /** 'approve-then-build' (default): option = [approval tx, build → signature]; 'single-build': [build → both]. */
  actionLayout?: ActionLayout
  /**
   * CAIP-2 chain → RPC URL or viem public client. With one, confirm fetches each `eth_sendTransaction` hash and
   * checks it cryptographically (hash of the re-serialised signed transaction, recovered signer, to, calldata).
   * Without one, a hash is checked for form only.
   */
  chains?: Readonly<Record<string, ChainReader>>
  /**
   * Offer a Solana option beside the EVM one: an SPL token (USDC-style, 6 decimals unless said) on a Solana
   * runtime at `rpcUrl` (e.g. the demo's litesvm facade). The wallet signs with `solana_signTransaction`; the
   * sandbox checks the signed transaction is exactly the one it built and submits it itself.
   */
  solana?: {
    rpcUrl: string
    mint: string
    chainId?: string
    decimals?: number
    symbol?: string
    name?: string
    networkName?: string
  }
  /** Fee per payment (`base_plus_percent`); default none (`fee: null`). */
  fee?: FeeConfig | null
  /**
   * Keep the state (keys, merchants, payments, idempotency keys, webhook endpoint, secrets, pending deliveries) in
   * an fsynced append-only journal in this directory, and take it over at start. Default: in memory only.
   */
  dataDir?: string
  /** The fault mode: duplicates, reordering, late answers, rotations, gateway 5xx/409/410, held long polls. */
  faults?: FaultPlan
  /**
   * Live mode beside test mode: a `svc_…` key whose payments are real transfers on the given chains, checked on
   * the chain before `succeeded`, settled by a real transfer from a sandbox-held treasury. Its own merchants,
   * settlements, webhook endpoint and payments (journaled in `dataDir/live`). See the README's "Live mode".
   */
  live?: LiveModeOptions
  /**
   * The explorer's listing file (`/v3/wallets|dapps|hybrid|all`): `{ "listings": [ … ] }` with logos in
   * `logos/` beside it (this package's README, Explorer). Default: the sample shipped with the sandbox.
   * Checked at start; a broken file throws naming the field.
   */
  explorerListing?: string
}

/** Live mode's handles (`PaySandbox.live`). */
export type PaySandboxLive = {
  apiKey: string
  appId: string
  /** The live start merchant. */
  merchantId: string
  control: PaySandboxControl
  webhooks: PaySandbox['webhooks']
  /** Where buyers pay and settlements come from. */
  treasury: { evm: string; solana: string }
  /** CAIP-2 → the live ERC-20. */
  tokens: Readonly<Record<string, TokenConfig>>
  solanaMint: string | null
  /** Live payments taken over from `dataDir/live` at start. */
  restoredPayments: number
  /** Resolves once queued settlements and webhook deliveries of live mode are done. */
  idle(): Promise<void>
}

export type PaySandbox = {
  /** Base URL, `http://127.0.0.1:<port>`. */
  url: string
  port: number
  apiKey: string
  appId: string
  /** The merchant created at start. */
  merchantId: string
  /** The checkout base that buyer links use (trust this host in `parsePaymentLink`). */
  checkoutUrl: string
  /** Where the sandbox's pages are opened (`portalUrl`, else `url`); `gatewayUrl` is `<portalUrl>/<pay_id>`. */
  portalUrl: string
  apiVersion: string
  control: PaySandboxControl
  webhooks: {
    setEndpoint(url: string, events?: readonly EventType[]): WebhookEndpoint
    endpoint(): WebhookEndpoint | null
    deleteEndpoint(): void
    /** The current `whsec_` secret (reveal). */
    secret(): string | null
    /** Every secret currently signing deliveries (after a rotation: new, then old for 24 h). */
    secrets(): string[]
    rotateSecret(): { secret: string; previousSecretExpiresAt: string }
    deliveries(): WebhookDelivery[]
    resend(deliveryId: string): WebhookDelivery | undefined
    /** Bulk resend of failed deliveries created at or after `since` (ms); returns the count. */
    resendFailed(since: number): number
    /** Queues again events since `since` (ms) that never reached the endpoint; returns the count. */
    replay(since: number): number
    /** Resolves once no delivery is pending. */
    idle(): Promise<void>
    /** Queues a dashboard-style test event (sample data, live false). */
    sendTestEvent(type: EventType): PaymentEvent
  }
  /** The journal's directory, or null when the state lives in memory only. */
  dataDir: string | null
  /** What was taken over from `dataDir` at start (counts), or null. */
  restored: { payments: number; events: number; pendingDeliveries: number; tornTail: boolean } | null
  /** Live mode (null without `options.live`); the fields above are test mode's. */
  live: PaySandboxLive | null
  /** The fault mode, per test (also over HTTP: `GET/PUT/DELETE /_sandbox/faults`). */
  faults: {
    /** Replaces the plan, resetting its counters and log; `{}` turns faults off. */
    set(plan: FaultPlan): void
    plan(): FaultPlan
    /** Every fault injected since the plan was set, in order. */
    log(): FaultRecord[]
  }
  /** Closes the server, cancels timers and deliveries, releases long polls. Safe to call twice. */
  stop(): Promise<void>
}
