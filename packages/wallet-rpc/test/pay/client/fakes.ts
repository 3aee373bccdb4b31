import * as v from 'valibot'
import type { Clock } from '../../../src/core/clock.js'
import type { AssetEffect } from '../../../src/core/expectation.js'
import { defineMethod, type Namespace } from '../../../src/core/namespace.js'
import type { ApprovalPolicy, Review } from '../../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../../src/createWalletRpc.js'
import { createPayClient } from '../../../src/pay/index.js'

/**
 * Test doubles for the Pay client's unit tests: a fake EVM namespace behind the real router (so approval,
 * context and error codes are the router's own) and a scripted gateway behind a fake `fetch`.
 */

export const evmAddress = '0x00000000000000000000000000000000000000a1'

export type Executed = { chainId: string; method: string; params: unknown }

/** What the fake methods decode an action to move: by default nothing (they sign nothing). */
export type FakeEffects = (chainId: string, method: string, params: unknown[]) => AssetEffect[] | undefined

/** An `eip155`-named namespace that signs nothing: each execute returns a deterministic marker. */
export function fakeEvmNamespace(
  executed: Executed[],
  chains = ['eip155:8453'],
  effects: FakeEffects = () => [],
): Namespace {
  const method = (name: string, result: (n: number) => string) =>
    defineMethod({
      params: v.array(v.unknown()),
      plan: (context, params) => ({
        review: {
          account: evmAddress,
          title: name,
          items: [{ label: 'chain', value: context.chainId }],
          warnings: [],
        },
        plan: { chainId: context.chainId, params },
        effects: effects(context.chainId, name, params),
      }),
      execute: (_context, plan) => {
        executed.push({ chainId: plan.chainId, method: name, params: plan.params })
        return result(executed.length)
      },
    })
  return {
    name: 'eip155',
    chains,
    methods: {
      eth_sendTransaction: method('eth_sendTransaction', (n) => `0x${String(n).padStart(64, '0')}`),
      eth_signTypedData_v4: method(
        'eth_signTypedData_v4',
        (n) => `0x${'ab'.repeat(64)}${String(n).padStart(2, '0')}`,
      ),
      personal_sign: method('personal_sign', (n) => `0x${'cd'.repeat(64)}${String(n).padStart(2, '0')}`),
    },
    accounts: async () => [evmAddress],
  }
}

/** A second namespace, to check every configured chain's accounts are offered. */
export function fakeTonNamespace(): Namespace {
  return { name: 'ton', chains: ['ton:-239'], methods: {}, accounts: async () => ['0:abcd'] }
}

export type WalletFixture = { wallet: WalletRpc; executed: Executed[]; reviews: Review[] }

export function fakeWallet(
  options: {
    approve?: (review: Review) => boolean
    namespaces?: Namespace[]
    chains?: string[]
    effects?: FakeEffects
    policy?: ApprovalPolicy
    clock?: Clock
  } = {},
): WalletFixture {
  const executed: Executed[] = []
  const reviews: Review[] = []
  const wallet = createWalletRpc({
    namespaces: [fakeEvmNamespace(executed, options.chains, options.effects), ...(options.namespaces ?? [])],
    ...(options.policy === undefined ? {} : { policy: options.policy }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    approve: (review) => {
      reviews.push(review)
      return options.approve?.(review) ?? true
    },
  })
  return { wallet, executed, reviews }
}

export type RecordedRequest = { url: URL; endpoint: string; headers: Headers; body: unknown }
export type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | 'network-error'

/**
 * A gateway scripted per endpoint (`options`, `fetch`, `confirm`, `status`): each call takes the next reply (the
 * last repeats). Without a `status` script the status polls after a confirm take the confirm script's next replies.
 */
export function scriptedGateway(script: Record<string, Reply[]>) {
  const requests: RecordedRequest[] = []
  const used: Record<string, number> = {}
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const url = new URL(input)
    const endpoint = url.pathname.split('/').pop() ?? ''
    requests.push({
      url,
      endpoint,
      headers: new Headers(init.headers),
      body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
    })
    const scripted = endpoint === 'status' && script.status === undefined ? 'confirm' : endpoint
    const replies = script[scripted]
    if (replies === undefined || replies.length === 0) throw new Error(`unscripted endpoint ${endpoint}`)
    const index = Math.min(used[scripted] ?? 0, replies.length - 1)
    used[scripted] = (used[scripted] ?? 0) + 1
    const reply = replies[index]!
    if (reply === 'network-error') throw new TypeError('fetch failed')
    return new Response(reply.body === undefined ? '' : JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'content-type': 'application/json', ...reply.headers },
    })
  }
  return { fetch, requests, calls: (endpoint: string) => requests.filter((r) => r.endpoint === endpoint) }
}

/** A clock that only moves when the client sleeps (or a test moves it). */
export function fakeTime(start = 1_800_000_000_000) {
  const state = { now: start, sleeps: [] as number[] }
  return {
    state,
    clock: () => state.now,
    sleep: async (ms: number) => {
      state.sleeps.push(ms)
      state.now += ms
    },
  }
}

type ClientOptions = {
  apiKey?: string
  random?: () => number
  version?: string
  maxPollMs?: number
  pollTimeoutMs?: number
}

/**
 * A Pay client over a scripted gateway and a fake wallet, both on one clock that moves only when the client sleeps
 * (or a test moves it).
 */
export function payClientFixture(
  script: Record<string, Reply[]>,
  options: Parameters<typeof fakeWallet>[0] & ClientOptions = {},
) {
  const {
    approve: _approve,
    namespaces: _namespaces,
    chains: _chains,
    effects: _effects,
    policy: _policy,
    clock: _clock,
    ...clientOptions
  } = options
  const gateway = scriptedGateway(script)
  const time = fakeTime()
  const fixture = fakeWallet({ clock: time.clock, ...options })
  const client = createPayClient({
    baseUrl: 'https://api.pay.example.com',
    apiKey: 'svc_test_key',
    wallet: fixture.wallet,
    fetch: gateway.fetch,
    clock: time.clock,
    sleep: time.sleep,
    random: () => 0,
    ...clientOptions,
  })
  return { client, gateway, time, ...fixture }
}

export const usd = (cents: string) => ({
  unit: 'iso4217/USD',
  value: cents,
  display: { assetSymbol: 'USD', assetName: 'US Dollar', decimals: 2 },
})

export const usdcOnBase = (minor: string) => ({
  unit: 'caip19/eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  value: minor,
  display: { assetSymbol: 'USDC', assetName: 'USD Coin', decimals: 6, networkName: 'Base' },
})

export const walletRpcAction = (chainId: string, method: string, params: unknown[]) => ({
  type: 'walletRpc',
  data: { chain_id: chainId, method, params },
})

/** The USDC-style option the sandbox offers: approval transaction, then a build that becomes the EIP-712 signature. */
export function usdcOption(id = 'opt_1', extra: Record<string, unknown> = {}) {
  return {
    id,
    account: `eip155:8453:${evmAddress}`,
    amount: usdcOnBase('12500000'),
    etaS: 5,
    actions: [
      walletRpcAction('eip155:8453', 'eth_sendTransaction', [
        { from: evmAddress, to: evmAddress, data: '0x' },
      ]),
      { type: 'build', data: { data: `build-${id}` } },
    ],
    ...extra,
  }
}

export const typedDataAction = walletRpcAction('eip155:8453', 'eth_signTypedData_v4', [
  evmAddress,
  JSON.stringify({ primaryType: 'TransferWithAuthorization' }),
])

export function optionsBody(
  options: unknown[],
  extra: Record<string, unknown> = {},
  expiresAt = 1_800_000_600,
) {
  return {
    options,
    info: { status: 'requires_action', amount: usd('1250'), expiresAt, merchant: { name: 'Coffee Shop' } },
    ...extra,
  }
}
