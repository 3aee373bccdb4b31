// `startPaySandbox`: composes the state, journal, deliveries, live mode and routes behind one HTTP server.
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { portalBase, type SandboxConfig, type SandboxContext } from './context.js'
import { createControl, type PaySandboxControl } from './control.js'
import { loadExplorerData } from './explorer/data.js'
import { Faults } from './faults.js'
import { newId, newLiveApiKey, newTestApiKey } from './ids.js'
import { Journal } from './journal.js'
import type { LiveEngine } from './live/engine.js'
import { createLiveEngine, prepareTreasury } from './live/setup.js'
import { eventTypes, type Persist, type RestoredState, type SolanaTokenOption } from './model.js'
import {
  type PaySandbox,
  type PaySandboxOptions,
  sandboxApiVersion,
  walletClientApiVersion,
} from './options.js'
import { routes } from './routes/index.js'
import { sampleEvent } from './routes/sampleEvent.js'
import { createSandboxServer } from './server.js'
import { SandboxState } from './state.js'
import { type ChainReader, chainReaders } from './verifyResults.js'
import { WebhookDispatcher } from './webhookDelivery.js'

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
