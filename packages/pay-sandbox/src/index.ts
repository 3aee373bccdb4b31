import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Clock } from 'wallet-rpc'
import { portalBase, type SandboxConfig, type SandboxContext } from './context.js'
import { createControl, type PaySandboxControl } from './control.js'
import { loadExplorerData } from './explorer/data.js'
import { type FaultPlan, type FaultRecord, Faults } from './faults.js'
import type { ActionLayout } from './gatewayOptions.js'
import { newId, newLiveApiKey, newTestApiKey } from './ids.js'
import { Journal } from './journal.js'
import type { LiveEngine } from './live/engine.js'
import { createLiveEngine, type LiveModeOptions, prepareTreasury } from './live/setup.js'
import {
  type EventType,
  eventTypes,
  type PaymentEvent,
  type Persist,
  type RestoredState,
  type SolanaTokenOption,
  type TokenConfig,
  type WebhookDelivery,
  type WebhookEndpoint,
} from './model.js'
import { routes } from './routes/index.js'
import { sampleEvent } from './routes/sampleEvent.js'
import { createSandboxServer } from './server.js'
import { type FeeConfig, SandboxState } from './state.js'
import { type ChainReader, chainReaders } from './verifyResults.js'
import { WebhookDispatcher } from './webhookDelivery.js'

export { associatedTokenAccount } from './associatedToken.js'
export type { PaySandboxControl } from './control.js'
export { type FaultPlan, type FaultRecord, type GatewayFault, parseFaultSpec } from './faults.js'
export type { ActionLayout } from './gatewayOptions.js'
export { knownTokens, sandboxCollector, sandboxSpender, sandboxTokenAddress } from './gatewayOptions.js'
export type { LiveEvmChain } from './live/engine.js'
export type { LiveModeOptions } from './live/setup.js'
export { deployLiveToken, devMnemonic, liveTokenAt } from './live/token.js'
export type { Treasury, TreasuryKeys } from './live/treasury.js'
export type {
  EventType,
  PaymentEvent,
  PaymentStatus,
  TokenConfig,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
} from './model.js'
export {
  type ReceivedWebhook,
  startWebhookReceiver,
  WebhookInbox,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from './receiver.js'
export type { FeeConfig } from './state.js'
export type { ChainReader } from './verifyResults.js'
export { retryScheduleMs } from './webhookDelivery.js'
export { eventTypes }

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
   * `logos/` beside it (src/pay/sandbox/README.md, Explorer). Default: the sample shipped with the sandbox.
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

/** Resolves once no request is in flight on `server`, or after `limitMs`. */
function whenIdle(server: Server & { inFlight?: number }, limitMs: number): Promise<void> {
  return new Promise((resolve) => {
    const started = Date.now()
    const check = () => {
      if ((server.inFlight ?? 0) === 0 || Date.now() - started >= limitMs) resolve()
      else setTimeout(check, 5).unref()
    }
    check()
  })
}

/** One mode's book: its state, deliveries, journal, control and start merchant (test, and live with `live`). */
type Mode = {
  context: SandboxContext
  state: SandboxState
  webhooks: WebhookDispatcher
  journal: Journal | undefined
  restored: RestoredState | undefined
  control: PaySandboxControl
  merchantId: string
}

/** Builds one mode from its own journal (`dataDir`, `dataDir/live` for live) with its own key and app id. */
function createMode(input: {
  kind: 'test' | 'live'
  options: PaySandboxOptions
  config: Omit<SandboxConfig, 'apiKey' | 'appId'>
  faults: Faults
  dataDir: string | undefined
  apiKey: string | undefined
  appId: string | undefined
  chains: Readonly<Record<string, ChainReader>>
  live?: (state: SandboxState, restored: RestoredState | undefined) => LiveEngine
}): Mode {
  const { options, faults, kind } = input
  let journal: Journal | undefined
  let restored: RestoredState | undefined
  if (input.dataDir !== undefined) ({ journal, restored } = Journal.open(input.dataDir))
  const persist: Persist | undefined =
    journal === undefined ? undefined : (...records) => journal.append(...records)
  const apiKey =
    input.apiKey ?? restored?.identity?.apiKey ?? (kind === 'live' ? newLiveApiKey() : newTestApiKey())
  const keyPattern = kind === 'live' ? /^svc_(?!test_)[A-Za-z0-9_]{8,128}$/ : /^svc_test_[A-Za-z0-9_]{8,128}$/
  if (!keyPattern.test(apiKey))
    throw new TypeError(`apiKey must be a ${kind === 'live' ? 'svc_' : 'svc_test_'} key`)
  const config: SandboxConfig = {
    ...input.config,
    apiKey,
    appId: input.appId ?? restored?.identity?.appId ?? newId(kind === 'live' ? 'app_' : 'app_test_'),
  }
  const { clock, settlementMs } = config
  const webhooks = new WebhookDispatcher({
    clock,
    faults,
    ...(persist === undefined ? {} : { persist }),
    timeScale: options.timeScale ?? 1,
    timeoutMs: options.deliveryTimeoutMs ?? 15_000,
  })
  let engine: LiveEngine | undefined
  const state: SandboxState = new SandboxState({
    clock,
    apiVersion: config.pinnedVersion,
    paymentTtlMs: options.paymentTtlMs ?? 15 * 60_000,
    checkoutUrl: config.checkoutUrl,
    fee: options.fee ?? null,
    live: kind === 'live',
    ...(persist === undefined ? {} : { persist }),
    onEvent: (event) => {
      webhooks.enqueue(event)
      if (event.type !== 'payment.succeeded') return
      const payment = state.payments.get(String(event.data.payment_id))
      if (payment === undefined) return
      // Live: a real transfer from the treasury. Test mode: a succeeded payment settles automatically.
      if (engine !== undefined) engine.settle(payment)
      else if (settlementMs !== null) {
        state.after(settlementMs, () => {
          if (payment.settlement === undefined) state.settle(payment)
        })
      }
    },
  })
  engine = input.live?.(state, restored)
  if (restored !== undefined) {
    state.restore(restored)
    webhooks.restore(restored)
    if (engine === undefined) rearmTimers(state, config)
    else engine.resume()
  }
  if (options.webhookUrl !== undefined && kind === 'test')
    webhooks.setEndpoint(options.webhookUrl, options.webhookEvents ?? eventTypes)
  const merchant =
    state.merchants.get(restored?.identity?.merchantId ?? '') ??
    state.createMerchant(
      options.merchantName ?? 'Sandbox Merchant',
      'merchant@sandbox.test',
      options.merchantIconUrl ?? null,
    )
  persist?.({ k: 'identity', v: { apiKey, appId: config.appId, merchantId: merchant.id } })
  const context: SandboxContext = {
    config,
    state,
    webhooks,
    faults,
    readers: chainReaders(input.chains),
    idempotency: restored?.idempotency ?? new Map(),
    baseUrl: () => '',
    ...(persist === undefined ? {} : { persist }),
    ...(engine === undefined ? {} : { live: engine }),
  }
  const control = createControl(state, engine)
  return { context, state, webhooks, journal, restored, control, merchantId: merchant.id }
}

/** The webhook operations of one mode, in code. */
function webhookFacade(mode: Mode, pinnedVersion: string): PaySandbox['webhooks'] {
  const { webhooks, state } = mode
  return {
    setEndpoint: (url, events) => webhooks.setEndpoint(url, events ?? eventTypes),
    endpoint: () => webhooks.endpoint,
    deleteEndpoint: () => webhooks.deleteEndpoint(),
    secret: () => webhooks.secret(),
    secrets: () => webhooks.validSecrets(),
    rotateSecret: () => webhooks.rotateSecret(),
    deliveries: () => webhooks.deliveries(),
    resend: (id) => webhooks.resend(id),
    resendFailed: (since) => webhooks.resendFailed(since),
    replay: (since) => webhooks.replay(state.events, since),
    idle: () => webhooks.idle(),
    sendTestEvent: (type) => {
      const event = sampleEvent(type, pinnedVersion, state.now())
      webhooks.enqueue(event)
      return event
    },
  }
}

/** Starts the payment service on 127.0.0.1: test mode, and live mode on local chains with `options.live`. */
export async function startPaySandbox(options: PaySandboxOptions = {}): Promise<PaySandbox> {
  const versions = options.versions ?? [sandboxApiVersion, walletClientApiVersion]
  const pinnedVersion =
    options.pinnedVersion ??
    (options.versions === undefined ? sandboxApiVersion : versions[versions.length - 1])
  if (pinnedVersion === undefined || !versions.includes(pinnedVersion)) {
    throw new TypeError('pinnedVersion must be one of versions')
  }
  const clock = options.clock ?? Date.now
  const shared: Omit<SandboxConfig, 'apiKey' | 'appId'> = {
    clock,
    versions,
    pinnedVersion,
    checkoutUrl: (options.checkoutUrl ?? 'https://pay.sandbox.test').replace(/\/+$/, ''),
    portalUrl: options.portalUrl === undefined ? null : options.portalUrl.replace(/\/+$/, ''),
    pollInMs: options.pollInMs ?? 1000,
    maxLongPollMs: options.maxLongPollMs ?? 60_000,
    routeTtlMs: options.routeTtlMs ?? 5 * 60_000,
    processingMs: options.processingMs === undefined ? 1000 : options.processingMs,
    settlementMs: options.settlementMs === undefined ? 1000 : options.settlementMs,
    tokens: options.tokens ?? {},
    anyEvmChain: options.anyEvmChain ?? true,
    actionLayout: options.actionLayout ?? 'approve-then-build',
    solana: options.solana === undefined ? null : solanaTokenOption(options.solana),
    explorer: loadExplorerData(options.explorerListing),
  }
  const faults = new Faults(options.faults)
  const test = createMode({
    kind: 'test',
    options,
    config: shared,
    faults,
    dataDir: options.dataDir,
    apiKey: options.apiKey,
    appId: options.appId,
    chains: options.chains ?? {},
  })
  const liveOptions = options.live
  const live =
    liveOptions === undefined
      ? undefined
      : createMode({
          kind: 'live',
          options,
          config: {
            ...shared,
            // Live options exist only where the sandbox has a chain and a token to verify payments against.
            tokens: Object.fromEntries(
              Object.entries(liveOptions.evm ?? {}).map(([id, chain]) => [id, chain.token]),
            ),
            anyEvmChain: false,
            solana: liveOptions.solana === undefined ? null : solanaTokenOption(liveOptions.solana),
            processingMs: null,
          },
          // Live and test are separate books; live gets no fault plan of its own.
          faults: new Faults(),
          dataDir: options.dataDir === undefined ? undefined : join(options.dataDir, 'live'),
          apiKey: liveOptions.apiKey,
          appId: liveOptions.appId,
          chains: {},
          live: (state) =>
            createLiveEngine(
              state,
              liveOptions,
              liveOptions.solana === undefined ? null : solanaTokenOption(liveOptions.solana),
              options.dataDir,
            ),
        })
  if (live?.context.live !== undefined) await prepareTreasury(live.context.live, liveOptions!)
  const apiKey = test.context.config.apiKey
  const appId = test.context.config.appId
  let baseUrl = ''
  for (const mode of [test, live]) if (mode !== undefined) mode.context.baseUrl = () => baseUrl
  const server = createSandboxServer(
    { routes: routes(test.control), context: test.context },
    live === undefined ? undefined : { routes: routes(live.control), context: live.context },
  )
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  baseUrl = `http://127.0.0.1:${port}`
  const { restored } = test
  let stopping: Promise<void> | undefined
  return {
    url: baseUrl,
    port,
    apiKey,
    appId,
    merchantId: test.merchantId,
    checkoutUrl: shared.checkoutUrl,
    portalUrl: portalBase(test.context),
    apiVersion: pinnedVersion,
    control: test.control,
    dataDir: options.dataDir ?? null,
    restored:
      restored === undefined
        ? null
        : {
            payments: restored.payments.size,
            events: restored.events.size,
            pendingDeliveries: [...restored.deliveries.values()].filter((d) => d.state === 'pending').length,
            tornTail: restored.tornTail,
          },
    webhooks: webhookFacade(test, pinnedVersion),
    live:
      live?.context.live === undefined
        ? null
        : {
            apiKey: live.context.config.apiKey,
            appId: live.context.config.appId,
            merchantId: live.merchantId,
            control: live.control,
            webhooks: webhookFacade(live, pinnedVersion),
            treasury: {
              evm: live.context.live.treasury.evmAddress,
              solana: live.context.live.treasury.solanaAddress,
            },
            tokens: live.context.config.tokens,
            solanaMint: live.context.config.solana?.mint ?? null,
            restoredPayments: live.restored?.payments.size ?? 0,
            idle: async () => {
              await live.context.live?.idle()
              await live.webhooks.idle()
            },
          },
    faults: {
      set: (plan) => faults.set(plan),
      plan: () => faults.plan,
      log: () => [...faults.log],
    },
    stop: () => {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
        for (const mode of [test, live]) {
          if (mode === undefined) continue
          mode.context.live?.stop()
          mode.webhooks.stop()
          mode.journal?.close()
          // Releasing held long polls lets their replies go out before the remaining sockets are closed.
          mode.state.stop()
        }
        whenIdle(server, 2000).then(() => server.closeAllConnections())
      })
      return stopping
    },
  }
}

function solanaTokenOption(
  solana: Partial<SolanaTokenOption> & { rpcUrl: string; mint: string },
): SolanaTokenOption {
  return {
    chainId: solana.chainId ?? 'solana:localnet',
    rpcUrl: solana.rpcUrl,
    mint: solana.mint,
    decimals: solana.decimals ?? 6,
    symbol: solana.symbol ?? 'USDC',
    name: solana.name ?? 'USD Coin',
    networkName: solana.networkName ?? 'Solana local runtime',
  }
}

/** After a restart, the test-mode transitions that were waiting on a timer wait again (from now). */
function rearmTimers(state: SandboxState, config: SandboxConfig): void {
  const { processingMs, settlementMs } = config
  for (const payment of state.payments.values()) {
    // Only a confirmed payment (one with a chosen option) was waiting on the processing timer.
    if (payment.status === 'processing' && payment.chosen !== undefined && processingMs !== null) {
      state.after(processingMs, () => {
        if (payment.status === 'processing') state.transition(payment, 'succeeded')
      })
    }
    if (payment.status === 'succeeded' && payment.settlement === undefined && settlementMs !== null) {
      state.after(settlementMs, () => {
        if (payment.settlement === undefined) state.settle(payment)
      })
    }
  }
}
