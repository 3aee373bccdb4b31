// The WalletConnect transport: the runner acts as a dapp (a real @walletconnect/sign-client), proposes a session
// for the namespaces under test, and runs the cases that work with any keys against whatever wallet approves it,
// each answer checked with wallet-rpc/verify against the accounts and session properties the wallet announced.
// Cases that need the suite's fixed keys stay for the module and exec transports.
import { randomUUID } from 'node:crypto'
import { base64, hex } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { Address, Cell, contractAddress, loadStateInit } from '@ton/core'
import { decodeAddress } from '../checks/bitcoin.js'
import { verifyGetAccountAddresses } from '../verify/getAccountAddresses.js'
import { type HandlerFactory, type HandlerObject, TransportError } from './handler.js'
import {
  type CaseResult,
  caseLabel,
  type PreparedCase,
  type RunOptions,
  type RunSummary,
  runConformance,
} from './runner.js'
import {
  type KeyNeed,
  keysOf,
  type LoadedVectors,
  loadVectors,
  type VectorCase,
  type VectorFile,
} from './vectors.js'

/** The dapp's origin: the one the cases that name an origin use (TON's signData binds its domain). */
export const conformanceDappUrl = 'https://example.com'
export const publicRelayUrl = 'wss://relay.walletconnect.org'

export type WalletConnectOptions = {
  relayUrl?: string
  /** Needed by the public relay (cloud.reown.com); any text for a local one. */
  projectId?: string
  /** Called with the `wc:` pairing URI, before waiting for the wallet's approval (print it, show a QR). */
  onUri: (uri: string) => void | Promise<void>
  /** Longest wait for the wallet to approve the session. Default 5 minutes. */
  approvalTimeoutMs?: number
  /** Longest wait for bip122_addressesChanged after approval. Default 10 s. */
  eventTimeoutMs?: number
} & Pick<RunOptions, 'filter' | 'onResult' | 'timeoutMs'> & { vectors?: LoadedVectors[] }

/** Which cases WalletConnect can run: any keys, no local chain, no configured refusal, our origin or none. */
export function runsOverWalletConnect(vector: VectorFile, testCase: VectorCase): boolean {
  if (keysOf(vector, testCase) !== ('any' satisfies KeyNeed)) return false
  if (testCase.chain !== undefined) return false
  // The user's answer is the person's, not the configuration's: only the cases that expect approval.
  if ((testCase.wallet?.approve ?? vector.wallet.approve) !== 'all') return false
  // A chain the wallet does not serve cannot be in a session: the dapp cannot even ask.
  if (testCase.expect.error?.code === 5100) return false
  // The SignClient rejects (with `{}`) a request holding a number beyond 2^53 before sending it.
  if (hasUnsafeInteger(testCase.request.params)) return false
  const origin = testCase.request.origin
  // Every WalletConnect request has the dapp's origin; TON cases without one test its absence.
  return origin === conformanceDappUrl || (origin === undefined && vector.namespace !== 'ton')
}

function hasUnsafeInteger(value: unknown): boolean {
  if (typeof value === 'number') return Number.isInteger(value) && !Number.isSafeInteger(value)
  if (typeof value !== 'object' || value === null) return false
  return Object.values(value).some(hasUnsafeInteger)
}

const eventsByNamespace: Record<string, string[]> = {
  bip122: ['bip122_addressesChanged'],
  eip155: ['accountsChanged', 'chainChanged'],
}

/**
 * Proposes a session, waits for the approval, runs every any-key case over it and checks the session itself
 * (accounts, `bip122_addressesChanged`, TON session properties). Rejects only when no session was made.
 */
export async function runOverWalletConnect(options: WalletConnectOptions): Promise<RunSummary> {
  const vectors = options.vectors ?? loadVectors()
  const chosen = vectors.flatMap(({ file, vector }) =>
    vector.cases
      .map((testCase, index) => ({ vector, testCase, label: caseLabel(file, vector, index) }))
      .filter(
        ({ testCase, label }) =>
          runsOverWalletConnect(vector, testCase) &&
          (options.filter === undefined || label.includes(options.filter)),
      ),
  )
  const namespaces: Record<string, { chains: string[]; methods: string[]; events: string[] }> = {}
  for (const { vector, testCase } of chosen) {
    const entry = namespaces[vector.namespace] ?? {
      chains: [],
      methods: [],
      events: eventsByNamespace[vector.namespace] ?? [],
    }
    namespaces[vector.namespace] = entry
    if (!entry.chains.includes(testCase.request.chainId)) entry.chains.push(testCase.request.chainId)
    if (!entry.methods.includes(testCase.request.method)) entry.methods.push(testCase.request.method)
  }
  const dapp = await connectDapp(namespaces, options)
  try {
    const session: SessionChecks = await checkSession(dapp, options)
    for (const result of session.results) options.onResult?.(result)
    const prepare = accountSwapper(dapp)
    const createHandler: HandlerFactory = () => dapp.handler
    const summary = await runConformance({
      vectors,
      createHandler,
      select: runsOverWalletConnect,
      prepare,
      ...(options.filter === undefined ? {} : { filter: options.filter }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(options.onResult === undefined ? {} : { onResult: options.onResult }),
    })
    const results = [...session.results, ...summary.results]
    const count = (outcome: CaseResult['outcome']) => results.filter((r) => r.outcome === outcome).length
    return {
      results,
      passed: count('pass'),
      failed: count('fail'),
      pending: count('pending'),
      timedOut: count('timeout'),
    }
  } finally {
    await dapp.close()
  }
}

type SessionEvent = { chainId: string; name: string; data: unknown }

type Dapp = {
  /** CAIP-10 accounts the wallet announced. */
  accounts: string[]
  sessionProperties: Record<string, string>
  events: SessionEvent[]
  /** Resolves when an event of that name on that chain has arrived, or after `ms`. */
  waitForEvent(chainId: string, name: string, ms: number): Promise<SessionEvent | undefined>
  handler: HandlerObject
  close(): Promise<void>
}

type SignClientLike = {
  connect(params: { optionalNamespaces: Record<string, unknown> }): Promise<{
    uri?: string
    approval: () => Promise<{
      topic: string
      namespaces: Record<string, { accounts: string[]; methods: string[] }>
      sessionProperties?: Record<string, string>
    }>
  }>
  request<T>(params: {
    topic: string
    chainId: string
    request: { method: string; params: unknown }
  }): Promise<T>
  on(
    event: string,
    listener: (event: {
      topic?: string
      params?: { chainId: string; event: { name: string; data: unknown } }
    }) => void,
  ): void
  disconnect(params: { topic: string; reason: { code: number; message: string } }): Promise<void>
  core: { relayer: { transportClose(): Promise<void> }; heartbeat: { stop(): void } }
}

async function connectDapp(
  namespaces: Record<string, { chains: string[]; methods: string[]; events: string[] }>,
  options: WalletConnectOptions,
): Promise<Dapp> {
  const [{ Core }, { SignClient }] = await Promise.all([
    importOptional<{ Core: new (options: Record<string, unknown>) => unknown }>('@walletconnect/core'),
    importOptional<{ SignClient: { init(options: Record<string, unknown>): Promise<SignClientLike> } }>(
      '@walletconnect/sign-client',
    ),
  ])
  const relayUrl = options.relayUrl ?? publicRelayUrl
  if (options.projectId === undefined && relayUrl === publicRelayUrl) {
    throw new TransportError(
      'the public relay needs --project-id (a Reown Cloud project id), or give --relay URL',
    )
  }
  const core = new Core({
    projectId: options.projectId ?? 'wallet-rpc-conformance',
    relayUrl,
    storage: memoryStorage(),
    customStoragePrefix: `wallet-rpc-conformance-${randomUUID()}`,
    telemetryEnabled: false,
    logger: 'silent',
  })
  const client = await SignClient.init({
    core,
    metadata: {
      name: 'wallet-rpc conformance',
      description: 'wallet-rpc conformance suite',
      url: conformanceDappUrl,
      icons: [],
    },
    logger: 'silent',
  })
  const events: SessionEvent[] = []
  const listeners = new Set<() => void>()
  let closedBy: string | undefined
  client.on('session_event', (event) => {
    if (event.params)
      events.push({
        chainId: event.params.chainId,
        name: event.params.event.name,
        data: event.params.event.data,
      })
    for (const listener of listeners) listener()
  })
  client.on('session_delete', () => {
    closedBy = 'the wallet closed the session'
  })
  const shutdown = async () => {
    await client.core.relayer.transportClose().catch(() => {})
    client.core.heartbeat.stop()
  }
  let session: Awaited<ReturnType<Awaited<ReturnType<SignClientLike['connect']>>['approval']>>
  try {
    const { uri, approval } = await client.connect({ optionalNamespaces: namespaces })
    if (!uri) throw new TransportError('the SignClient gave no pairing URI')
    await options.onUri(uri)
    session = await withDeadline(
      approval(),
      options.approvalTimeoutMs ?? 300_000,
      'the wallet did not approve the session',
    )
  } catch (error) {
    await shutdown()
    throw error instanceof TransportError ? error : new TransportError(`no session: ${describe(error)}`)
  }
  const accounts = Object.values(session.namespaces).flatMap((namespace) => namespace.accounts)
  const sessionProperties = session.sessionProperties ?? {}
  return {
    accounts,
    sessionProperties,
    events,
    waitForEvent(chainId, name, ms) {
      const found = () => events.find((event) => event.chainId === chainId && event.name === name)
      return new Promise((resolve) => {
        const check = () => {
          const event = found()
          if (event === undefined) return
          finish(event)
        }
        const timer = setTimeout(() => finish(undefined), ms)
        const finish = (event: SessionEvent | undefined) => {
          clearTimeout(timer)
          listeners.delete(check)
          resolve(event)
        }
        listeners.add(check)
        check()
      })
    },
    handler: {
      async handle(input) {
        if (closedBy !== undefined) throw new TransportError(closedBy)
        const namespace = session.namespaces[input.chainId.split(':')[0] ?? '']
        if (!namespace?.methods.includes(input.request.method)) {
          // The session says the wallet does not offer it: CAIP-25's "unsupported method", the dapp cannot ask.
          const message = `Unsupported method: the wallet did not approve ${input.request.method} in the session.`
          return { jsonrpc: '2.0', id: input.request.id, error: { code: 5101, message } }
        }
        try {
          const result = await client.request({
            topic: session.topic,
            chainId: input.chainId,
            request: { method: input.request.method, params: input.request.params },
          })
          return { jsonrpc: '2.0', id: input.request.id, result }
        } catch (error) {
          // The SDK rejects pending requests with the session's deletion reason (6000 "User disconnected."):
          // the session ended, it is no answer.
          if (closedBy !== undefined || (error as { code?: unknown } | null)?.code === 6000) {
            closedBy = 'the wallet closed the session'
            throw new TransportError(closedBy)
          }
          // The SDK rejects with the wallet's error object; anything else is the transport's.
          if (
            typeof error === 'object' &&
            error !== null &&
            typeof (error as { code?: unknown }).code === 'number'
          ) {
            return { jsonrpc: '2.0', id: input.request.id, error }
          }
          throw new TransportError(closedBy ?? `the request failed on the way: ${describe(error)}`)
        }
      },
      sessionProperties: async () => sessionProperties,
    },
    async close() {
      if (closedBy === undefined) {
        await client
          .disconnect({ topic: session.topic, reason: { code: 6000, message: 'conformance run finished' } })
          .catch(() => {})
      }
      await shutdown()
    },
  }
}

/**
 * The cases' requests name the fixed wallet's account; here they name the account the wallet announced on the
 * request's chain, and the wallet's clock is the real one. A chain the wallet did not approve: PENDING.
 */
function accountSwapper(dapp: Dapp): NonNullable<RunOptions['prepare']> {
  const fixedAccounts = new Map<string, Promise<string[]>>()
  return async ({ testCase, wallet }) => {
    const chainId = testCase.request.chainId
    const announced = dapp.accounts
      .find((account) => account.startsWith(`${chainId}:`))
      ?.slice(chainId.length + 1)
    if (announced === undefined) return `the wallet approved no account on ${chainId}`
    const key = JSON.stringify({ wallet, chainId })
    let fixed = fixedAccounts.get(key)
    if (fixed === undefined) {
      fixed = fixedAccountsOf(wallet, chainId)
      fixedAccounts.set(key, fixed)
    }
    const swaps = swapsFor(chainId, await fixed, announced)
    let params = replaceStrings(testCase.request.params, swaps)
    if (testCase.request.method === 'signPsbt') params = withPsbtOwner(params, await fixed, announced)
    const request = { ...testCase.request, params }
    return { testCase: { ...testCase, request }, wallet: { ...wallet, now: Math.floor(Date.now() / 1000) } }
  }
}

async function fixedAccountsOf(wallet: PreparedCase['wallet'], chainId: string): Promise<string[]> {
  const { createCliWallet } = await import('../walletFromOptions/wallet.js')
  const fixed = await createCliWallet(
    {
      mnemonic: wallet.mnemonic,
      tonMnemonic: wallet.tonMnemonic,
      tonWallet: wallet.tonWallet ?? 'v5r1',
      account: wallet.account,
      approve: 'none',
      now: wallet.now,
      esplora: new Map(),
      toncenter: new Map(),
      rpc: new Map(),
    },
    () => {},
  )
  try {
    return await fixed.accounts(chainId)
  } catch {
    return []
  } finally {
    await fixed.close()
  }
}

type Swap = { from: RegExp; to: string }

function swapsFor(chainId: string, fixed: string[], announced: string): Swap[] {
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  if (chainId.startsWith('ton:')) {
    // TON requests name the wallet raw (`from`) or friendly: both forms are swapped.
    return fixed.flatMap((account) => {
      try {
        const mine = Address.parse(account)
        const theirs = Address.parse(announced)
        return [
          { from: new RegExp(escaped(mine.toRawString()), 'g'), to: theirs.toRawString() },
          { from: new RegExp(escaped(account), 'g'), to: announced },
        ]
      } catch {
        return []
      }
    })
  }
  // eip155 addresses come in any letter case.
  const flags = chainId.startsWith('eip155:') ? 'gi' : 'g'
  return fixed.map((account) => ({ from: new RegExp(escaped(account), flags), to: announced }))
}

/**
 * A signPsbt request over the fixed account's coins, rebuilt over the announced account's: each input paying
 * a fixed account script gets a parent transaction paying the announced one's instead (so a new outpoint), and
 * an output to the fixed account pays the announced one. Other inputs are copied as they are; the suite signs
 * its foreign inputs SIGHASH_ALL|ANYONECANPAY, so their signatures stay valid under the new outpoints.
 */
function withPsbtOwner(params: unknown, fixed: string[], announced: string): unknown {
  const psbt = (params as { psbt?: unknown } | null)?.psbt
  if (typeof psbt !== 'string') return params
  const scriptOf = (address: string) => {
    try {
      return hex.encode(decodeAddress(address).script)
    } catch {
      return undefined
    }
  }
  const to = scriptOf(announced)
  const from = new Set(fixed.map(scriptOf).filter((script) => script !== undefined && script !== to))
  if (to === undefined || from.size === 0) return params
  const options = { allowUnknownOutputs: true, allowLegacyWitnessUtxo: true }
  let tx: btc.Transaction
  try {
    tx = btc.Transaction.fromPSBT(base64.decode(psbt), options)
  } catch {
    return params // not a PSBT: the case is about its refusal
  }
  const script = hex.decode(to)
  const ours = (candidate: Uint8Array | undefined) =>
    candidate !== undefined && from.has(hex.encode(candidate))
  const rebuilt = new btc.Transaction({ ...options, version: tx.version, lockTime: tx.lockTime })
  for (let index = 0; index < tx.outputsLength; index++) {
    const output = tx.getOutput(index)
    rebuilt.addOutput(ours(output.script) ? { ...output, script } : output)
  }
  for (let index = 0; index < tx.inputsLength; index++) {
    const input = tx.getInput(index)
    if (!ours(input.witnessUtxo?.script)) {
      rebuilt.addInput(input)
      continue
    }
    const moved = { ...input, witnessUtxo: { script, amount: input.witnessUtxo!.amount } }
    const parent = input.nonWitnessUtxo
    if (parent === undefined || input.index === undefined) {
      rebuilt.addInput(moved)
      continue
    }
    const outputs = parent.outputs.map((output, vout) =>
      vout === input.index ? { ...output, script } : output,
    )
    const raw = btc.RawTx.encode({ ...parent, outputs })
    rebuilt.addInput({ ...moved, txid: btc.Transaction.fromRaw(raw, options).id, nonWitnessUtxo: raw })
  }
  return { ...(params as object), psbt: base64.encode(rebuilt.toPSBT()) }
}

function replaceStrings(value: unknown, swaps: Swap[]): unknown {
  if (typeof value === 'string') return swaps.reduce((text, swap) => text.replace(swap.from, swap.to), value)
  if (Array.isArray(value)) return value.map((item) => replaceStrings(item, swaps))
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, replaceStrings(item, swaps)]))
  }
  return value
}

type SessionChecks = { results: CaseResult[] }

/**
 * What only a session shows: one P2WPKH account per bip122 chain (the spec's account id) and its
 * `bip122_addressesChanged` event right after approval, listing addresses the verifier accepts; the TON
 * session properties, whose StateInit is the announced account's.
 */
async function checkSession(dapp: Dapp, options: WalletConnectOptions): Promise<SessionChecks> {
  const results: CaseResult[] = []
  const record = (name: string, clause: string, check: () => string | undefined, got: unknown) => {
    const started = performance.now()
    let reason: string | undefined
    try {
      reason = check()
    } catch (error) {
      reason = describe(error)
    }
    const id = `walletconnect/session#${results.length + 1}`
    results.push({
      id,
      label: `walletconnect/session #${results.length + 1} ${name}`,
      file: '(session)',
      namespace: 'walletconnect',
      method: 'session',
      name,
      outcome: reason === undefined ? 'pass' : 'fail',
      ...(reason === undefined ? {} : { reason }),
      ms: Math.round(performance.now() - started),
      expected: { verify: { function: 'session' } },
      got,
      clause,
      keys: 'any',
    })
  }
  const chainsOf = (namespace: string) => [
    ...new Set(
      dapp.accounts
        .filter((a) => a.startsWith(`${namespace}:`))
        .map((a) => a.split(':').slice(0, 2).join(':')),
    ),
  ]
  for (const chainId of chainsOf('bip122')) {
    const accounts = dapp.accounts
      .filter((a) => a.startsWith(`${chainId}:`))
      .map((a) => a.slice(chainId.length + 1))
    record(
      `${chainId}: one account, the first external P2WPKH address`,
      'spec bip122: the account identifier is the first external address using purpose 84; wallets offer only it',
      () => {
        if (accounts.length !== 1) return `${accounts.length} accounts announced, expected exactly one`
        const type = decodeAddress(accounts[0]!).type
        return type === 'p2wpkh' ? undefined : `the account is ${type}, not P2WPKH`
      },
      accounts,
    )
    const event = await dapp.waitForEvent(
      chainId,
      'bip122_addressesChanged',
      options.eventTimeoutMs ?? 10_000,
    )
    record(
      `${chainId}: bip122_addressesChanged right after approval, in the getAccountAddresses format`,
      'spec bip122 wallet session event: emitted right after approval, data as the getAccountAddresses result',
      () => {
        if (event === undefined) return 'no bip122_addressesChanged event arrived'
        const verdict = verifyGetAccountAddresses({ account: accounts[0] ?? '' }, event.data, {
          usedAddresses: [],
        })
        return verdict.valid ? undefined : `bip122_addressesChanged data: ${verdict.reason}`
      },
      event?.data,
    )
  }
  for (const chainId of chainsOf('ton')) {
    const account = dapp.accounts.find((a) => a.startsWith(`${chainId}:`))!.slice(chainId.length + 1)
    record(
      `${chainId}: ton_getPublicKey and ton_getStateInit in the session properties, for the announced account`,
      'spec TON session approval rule: ton_getPublicKey (hex) and ton_getStateInit (base64 BoC) in sessionProperties',
      () => {
        const { ton_getPublicKey: publicKey, ton_getStateInit: stateInit } = dapp.sessionProperties
        if (typeof publicKey !== 'string' || !/^[0-9a-fA-F]{64}$/.test(publicKey))
          return 'ton_getPublicKey is missing or not 32 bytes of hex'
        if (typeof stateInit !== 'string') return 'ton_getStateInit is missing'
        return stateInitAddressIs(stateInit, account)
      },
      {
        ton_getPublicKey: dapp.sessionProperties.ton_getPublicKey,
        ton_getStateInit: dapp.sessionProperties.ton_getStateInit,
      },
    )
  }
  return { results }
}

function stateInitAddressIs(stateInit: string, account: string): string | undefined {
  const address = contractAddress(0, loadStateInit(Cell.fromBase64(stateInit).beginParse()))
  return address.equals(Address.parse(account))
    ? undefined
    : `ton_getStateInit is the contract of ${address.toRawString()}, not of the announced ${account}`
}

async function importOptional<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T
  } catch {
    throw new TransportError(`the WalletConnect transport needs the package ${name}: npm i -D ${name}`)
  }
}

function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TransportError(`${message} within ${Math.round(ms / 1000)} s`)), ms)
    }),
  ]).finally(() => clearTimeout(timer))
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message.split('\n')[0] ?? error.name
  if (typeof error === 'object' && error !== null && 'message' in error)
    return String((error as { message: unknown }).message)
  const text = JSON.stringify(error)
  return text === '{}' ? 'an empty rejection' : (text ?? String(error))
}

/** In-memory storage for a WalletConnect Core: a conformance run (or a test) leaves no files behind. */
export function memoryStorage() {
  const items = new Map<string, unknown>()
  return {
    getKeys: async () => [...items.keys()],
    getEntries: async <T = unknown>() => [...items.entries()] as [string, T][],
    getItem: async <T = unknown>(key: string) => items.get(key) as T | undefined,
    setItem: async <T = unknown>(key: string, value: T) => {
      items.set(key, value)
    },
    removeItem: async (key: string) => {
      items.delete(key)
    },
  }
}
