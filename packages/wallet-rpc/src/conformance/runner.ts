// Runs conformance vectors against a handler factory: one result per case, never a pass without a check.
import { isDeepStrictEqual } from 'node:util'
import { base64 } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { verifiersByName } from '../verify/table.js'
import { type ChainPool, createChainPool, type FundedOutput } from './chains.js'
import { asHandlerObject, createBuiltinHandler, type HandlerFactory, TransportError } from './handler.js'
import {
  type Expectation,
  type KeyNeed,
  keysOf,
  type LoadedVectors,
  loadVectors,
  type VectorCase,
  type VectorFile,
  type WalletConfig,
} from './vectors.js'

export type CaseOutcome = 'pass' | 'fail' | 'pending' | 'timeout'

export type CaseResult = {
  /** `eip155/personal_sign#1`: stable while the file's cases keep their order. */
  id: string
  /** `eip155/personal_sign #1 hello world` */
  label: string
  file: string
  namespace: string
  method: string
  /** The case's name in its file. */
  name: string
  outcome: CaseOutcome
  reason?: string
  ms: number
  /** What the case expects, as written in the vector. */
  expected: Expectation
  /** The wallet's answer, when it gave one. */
  got?: unknown
  /** The rule the case checks (the vector's `source`, and the case's own when it names one). */
  clause: string
  /** Whether it needs the suite's fixed keys or works with any (see keysOf). */
  keys: KeyNeed
}

export type RunOptions = {
  /** Default: the built-in handler. */
  createHandler?: HandlerFactory
  vectors?: LoadedVectors[]
  /** Only cases whose label contains this text. */
  filter?: string
  /** Called after each case (the CLI prints it). */
  onResult?: (result: CaseResult) => void
  /** Cases that need a local chain are reported pending instead of started (offline quick runs). */
  skipChains?: boolean
  /** Only the cases this accepts are run (and reported); e.g. the WalletConnect transport's any-key cases. */
  select?: (vector: VectorFile, testCase: VectorCase) => boolean
  /**
   * Adapts a case to the wallet under test before it runs (the WalletConnect transport puts the announced
   * account in the request and the real clock in the configuration); a string instead reports the case
   * PENDING with that reason (e.g. a chain the wallet did not approve).
   */
  prepare?: (prepared: PreparedCase, vector: VectorFile) => Promise<PreparedCase | string>
  /** Longest wait for the wallet in one case (its answers, not a chain's start); then the case is TIMEOUT. */
  timeoutMs?: number
}

export type RunSummary = {
  results: CaseResult[]
  passed: number
  failed: number
  pending: number
  timedOut: number
}

export const defaultCaseTimeoutMs = 60_000

export async function runConformance(options: RunOptions = {}): Promise<RunSummary> {
  const factory = options.createHandler ?? createBuiltinHandler
  const vectors = options.vectors ?? loadVectors()
  // The local chains' clock is the running case's wallet clock.
  const clock = { seconds: 0 }
  const chains = createChainPool({ now: () => clock.seconds * 1000 })
  const results: CaseResult[] = []
  let nextId = 1
  try {
    for (const { file, vector } of vectors) {
      for (const [index, testCase] of vector.cases.entries()) {
        const label = caseLabel(file, vector, index)
        if (options.filter && !label.includes(options.filter)) continue
        if (options.select && !options.select(vector, testCase)) continue
        const started = performance.now()
        const prepared = await prepareCase(vector, testCase, options)
        const verdict =
          typeof prepared === 'string'
            ? { outcome: 'pending' as const, reason: prepared }
            : await runCase(prepared, factory, chains, clock, nextId++, options)
        const result: CaseResult = {
          id: `${caseGroup(file, vector)}#${index + 1}`,
          label,
          file,
          namespace: vector.namespace,
          method: vector.method,
          name: testCase.name,
          outcome: verdict.outcome,
          ms: Math.round(performance.now() - started),
          expected: testCase.expect,
          clause: testCase.source ?? vector.source,
          keys: keysOf(vector, testCase),
        }
        if (verdict.reason !== undefined) result.reason = verdict.reason
        if ('got' in verdict) result.got = verdict.got
        results.push(result)
        options.onResult?.(result)
      }
    }
  } finally {
    await chains.stopAll()
  }
  const count = (outcome: CaseOutcome) => results.filter((r) => r.outcome === outcome).length
  return {
    results,
    passed: count('pass'),
    failed: count('fail'),
    pending: count('pending'),
    timedOut: count('timeout'),
  }
}

/** `bip122/signPsbt #3 SIGHASH_NONE is refused`: what --filter matches and the reports show. */
export function caseLabel(file: string, vector: VectorFile, index: number): string {
  return `${caseGroup(file, vector)} #${index + 1} ${vector.cases[index]?.name}`
}

/**
 * `bip122/signPsbt` for the method's own file; a file named otherwise (e.g. `bip122/interop.json`, more
 * sendTransfer cases) keeps its name in front: `bip122/interop:sendTransfer`, so labels and ids stay unique.
 */
function caseGroup(file: string, vector: LoadedVectors['vector']): string {
  const stem = file
    .replace(/\\/g, '/')
    .split('/')
    .at(-1)!
    .replace(/\.json$/, '')
  return stem === vector.method
    ? `${vector.namespace}/${vector.method}`
    : `${vector.namespace}/${stem}:${vector.method}`
}

export type PreparedCase = { testCase: VectorCase; wallet: Omit<WalletConfig, 'providers'> }

async function prepareCase(
  vector: VectorFile,
  testCase: VectorCase,
  options: RunOptions,
): Promise<PreparedCase | string> {
  const prepared = { testCase, wallet: { ...vector.wallet, ...testCase.wallet } }
  if (options.prepare === undefined) return prepared
  try {
    return await options.prepare(prepared, vector)
  } catch (error) {
    return `not run: ${messageOf(error)}`
  }
}

type Verdict = { outcome: CaseOutcome; reason?: string; got?: unknown }

/** Rejects when the case's time for the wallet is up. */
class CaseTimeout extends Error {}

async function runCase(
  { testCase: vectorCase, wallet }: PreparedCase,
  factory: HandlerFactory,
  chains: ChainPool,
  clock: { seconds: number },
  id: number,
  options: RunOptions,
): Promise<Verdict> {
  let testCase = vectorCase
  clock.seconds = wallet.now
  const providers: Record<string, string> = {}
  const delegates: Record<string, string> = {}
  let chain: Awaited<ReturnType<ChainPool['get']>> | undefined
  if (testCase.chain !== undefined) {
    if (options.skipChains) return { outcome: 'pending', reason: `needs the local ${testCase.chain} chain` }
    try {
      chain = await chains.get(testCase.chain)
    } catch (error) {
      return { outcome: 'pending', reason: `${testCase.chain} unavailable here: ${messageOf(error)}` }
    }
    providers[chain.chainId] = chain.url
    if (chain.delegate !== undefined) delegates[chain.chainId] = chain.delegate
  }
  // The clock runs from here: a chain's start is the runner's time, not the wallet's.
  const timeoutMs = options.timeoutMs ?? defaultCaseTimeoutMs
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CaseTimeout()), timeoutMs)
  })
  deadline.catch(() => {})
  const inTime = <T>(work: Promise<T> | T): Promise<T> => Promise.race([Promise.resolve(work), deadline])
  let handler: ReturnType<typeof asHandlerObject> | undefined
  try {
    try {
      handler = asHandlerObject(
        await inTime(
          factory({ ...wallet, providers, ...(chain?.delegate === undefined ? {} : { delegates }) }),
        ),
      )
    } catch (error) {
      if (error instanceof CaseTimeout) throw error
      return { outcome: 'fail', reason: walletFailure('the handler factory threw', error) }
    }
    const session = await sessionOf(handler, testCase, inTime)
    if (typeof session === 'string') return { outcome: 'fail', reason: session }
    if (chain && testCase.fund) {
      const steps = testCase.fund.map((step) =>
        step.address === '$wallet' ? { ...step, address: session.tonAddress ?? '' } : step,
      )
      const funded = await chain.fund(steps)
      if (testCase.spendFunding) testCase = withFundingPsbt(testCase, testCase.spendFunding, funded)
    }
    const { chainId, origin, method, params } = testCase.request
    const request = { id, jsonrpc: '2.0' as const, method, ...(params === undefined ? {} : { params }) }
    let response: unknown
    try {
      response = await inTime(
        handler.handle({ chainId, request, ...(origin === undefined ? {} : { origin }) }),
      )
    } catch (error) {
      if (error instanceof CaseTimeout) throw error
      return { outcome: 'fail', reason: walletFailure('the handler threw', error) }
    }
    const got = asJson(response)
    const reason = await judge(testCase, got, id, { wallet, chain, session: session.properties })
    return reason === undefined ? { outcome: 'pass', got } : { outcome: 'fail', reason, got }
  } catch (error) {
    if (!(error instanceof CaseTimeout)) return { outcome: 'fail', reason: `the runner: ${messageOf(error)}` }
    handler?.abort?.()
    return { outcome: 'timeout', reason: `no answer from the wallet within ${timeoutMs} ms` }
  } finally {
    clearTimeout(timer)
    try {
      await inTime(handler?.close?.())
    } catch {
      // A wallet that cannot close (or hangs closing) does not stop the run.
    }
  }
}

/**
 * The case with `$fundingPsbt` in its params replaced by a PSBT spending what the run just funded (also what
 * the platform suites do over their recorded chains: test/platforms/vectorCases.ts).
 */
export function withFundingPsbt(
  testCase: VectorCase,
  spend: NonNullable<VectorCase['spendFunding']>,
  funded: FundedOutput[],
): VectorCase {
  // Built with @scure/btc-signer, not with the wallet's own transaction code.
  const network = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }
  const tx = new btc.Transaction()
  for (const output of funded) {
    const script = btc.OutScript.encode(btc.Address(network).decode(output.address))
    tx.addInput({ txid: output.txid, index: output.vout, witnessUtxo: { script, amount: output.amount } })
  }
  const total = funded.reduce((sum, output) => sum + output.amount, 0n)
  tx.addOutputAddress(spend.recipient, total - BigInt(spend.fee), network)
  const psbt = base64.encode(tx.toPSBT())
  const swap = (value: unknown): unknown =>
    value === '$fundingPsbt'
      ? psbt
      : Array.isArray(value)
        ? value.map(swap)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, swap(item)]))
          : value
  return { ...testCase, request: { ...testCase.request, params: swap(testCase.request.params) } }
}

/**
 * The answer as JSON carries it, which is what a wallet over a wire would send: a module's BigInt becomes a
 * string, a function or undefined disappears, a cycle is cut. The reports then always serialize.
 */
function asJson(value: unknown): unknown {
  const seen = new WeakSet<object>()
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item === 'bigint') return `${item}n`
    if (typeof item === 'object' && item !== null) {
      if (seen.has(item)) return '[cycle]'
      seen.add(item)
    }
    return item
  })
  return text === undefined ? undefined : JSON.parse(text)
}

function walletFailure(prefix: string, error: unknown): string {
  return error instanceof TransportError ? error.message : `${prefix}: ${messageOf(error)}`
}

type Session = { properties: Record<string, string>; tonAddress?: string }

/** TON cases verify against (and fund) the wallet the session announces. */
async function sessionOf(
  handler: ReturnType<typeof asHandlerObject>,
  testCase: VectorCase,
  inTime: <T>(work: Promise<T>) => Promise<T>,
): Promise<Session | string> {
  if (!testCase.request.chainId.startsWith('ton:')) return { properties: {} }
  if (!handler.sessionProperties) return 'TON vectors need the handler object to expose sessionProperties()'
  let properties: Record<string, string>
  try {
    properties = await inTime(handler.sessionProperties())
  } catch (error) {
    if (error instanceof CaseTimeout) throw error
    return walletFailure('sessionProperties() failed', error)
  }
  if (typeof properties !== 'object' || properties === null) return 'sessionProperties() is not an object'
  // The spec's session approval rule: both are required, and the verifiers check every answer against them.
  const publicKey = properties.ton_getPublicKey
  if (typeof publicKey !== 'string' || !/^[0-9a-fA-F]{64}$/.test(publicKey)) {
    return 'the session properties lack ton_getPublicKey (an Ed25519 public key in hex)'
  }
  const stateInit = properties.ton_getStateInit
  if (typeof stateInit !== 'string') return 'the session properties lack ton_getStateInit'
  try {
    const { Cell, contractAddress, loadStateInit } = await import('@ton/core')
    const init = loadStateInit(Cell.fromBase64(stateInit).beginParse())
    return { properties, tonAddress: contractAddress(0, init).toRawString() }
  } catch {
    return 'ton_getStateInit is not a StateInit BoC'
  }
}

export type JudgeContext = {
  wallet: Omit<WalletConfig, 'providers'>
  chain?: { delegate?: string; rawTransaction(id: string): Promise<string | undefined> } | undefined
  session?: Record<string, string>
}

/** Undefined when the response meets the expectation, else why not. */
export async function judge(
  testCase: VectorCase,
  response: unknown,
  id: number,
  context: JudgeContext,
): Promise<string | undefined> {
  if (typeof response !== 'object' || response === null) return 'the answer is not a JSON-RPC response'
  const answer = response as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown }
  if (answer.jsonrpc !== '2.0') return 'the answer lacks jsonrpc "2.0"'
  if (answer.id !== id) return `the answer's id ${JSON.stringify(answer.id)} is not the request's ${id}`
  return meets(testCase, testCase.expect, answer, context)
}

async function meets(
  testCase: VectorCase,
  expect: Expectation,
  answer: { result?: unknown; error?: unknown },
  context: JudgeContext,
): Promise<string | undefined> {
  if (expect.oneOf !== undefined) {
    const reasons: string[] = []
    for (const alternative of expect.oneOf) {
      const reason = await meets(testCase, alternative, answer, context)
      if (reason === undefined) return undefined
      reasons.push(reason)
    }
    return `none of the accepted answers: ${reasons.join('; ')}`
  }
  const error = answer.error as { code?: unknown; message?: unknown; data?: { reason?: unknown } } | undefined
  if (expect.error !== undefined) {
    if (error === undefined) return `expected error ${expect.error.code}, got a result`
    if (error.code !== expect.error.code)
      return `expected error ${expect.error.code}, got ${describeError(error)}`
    if (typeof error.message !== 'string') {
      return `error ${expect.error.code} has no message string (the spec's error form is {code, message})`
    }
    return undefined
  }
  if (error !== undefined) return `expected a result, got error ${describeError(error)}`
  if (!('result' in answer)) return 'the answer has neither result nor error'
  const result = answer.result
  if ('result' in expect && !isDeepStrictEqual(result, expect.result)) {
    return `result ${short(result)} is not the expected ${short(expect.result)}`
  }
  if (expect.resultIncludes !== undefined) {
    if (typeof result !== 'object' || result === null) return `result ${short(result)} is not an object`
    for (const [key, value] of Object.entries(expect.resultIncludes)) {
      const got = (result as Record<string, unknown>)[key]
      if (!isDeepStrictEqual(got, value)) return `result.${key} is ${short(got)}, expected ${short(value)}`
    }
  }
  if (expect.verify !== undefined) {
    const verifier = verifiersByName[expect.verify.function]
    if (verifier === undefined) return `the vector names an unknown verifier ${expect.verify.function}`
    const options = await verifyOptions(testCase, expect.verify, result, context)
    if (typeof options === 'string') return options
    const verdict = verifier(testCase.request.params, result, options)
    if (!verdict.valid) return `${expect.verify.function}: ${verdict.reason}`
    const broadcastTxid = (result as { txid?: unknown } | null)?.txid
    const askedBroadcast = (testCase.request.params as { broadcast?: unknown } | null)?.broadcast === true
    if (askedBroadcast && typeof broadcastTxid === 'string' && context.chain) {
      // The spec's "signed and broadcast": the txid must be on the chain, not only in the answer.
      if ((await context.chain.rawTransaction(broadcastTxid)) === undefined) {
        return `the chain does not know the broadcast transaction ${broadcastTxid}`
      }
    }
  }
  return undefined
}

/** The vector's options plus what only the run knows: the wallet clock, the chain id, the broadcast tx. */
async function verifyOptions(
  testCase: VectorCase,
  rule: NonNullable<VectorCase['expect']['verify']>,
  result: unknown,
  context: JudgeContext,
): Promise<Record<string, unknown> | string> {
  const options: Record<string, unknown> = { ...rule.options }
  const name = rule.function
  if (name === 'verifyTonSignData' || name === 'verifyTonSendMessage') {
    options.now ??= context.wallet.now
    options.publicKey ??= context.session?.ton_getPublicKey
    options.stateInit ??= context.session?.ton_getStateInit
  }
  const evmChain = /^eip155:(\d+)$/.exec(testCase.request.chainId)?.[1]
  if (evmChain !== undefined && options.chainId === undefined) options.chainId = Number(evmChain)
  if (
    (name === 'verifySendTransfer' || name === 'verifyEthSendTransaction') &&
    options.rawTransaction === undefined
  ) {
    const id = name === 'verifySendTransfer' ? (result as { txid?: unknown } | null)?.txid : result
    if (typeof id !== 'string') return 'the result carries no transaction id'
    const form = name === 'verifySendTransfer' ? /^[0-9a-f]{64}$/ : /^0x[0-9a-fA-F]{64}$/
    if (!form.test(id)) {
      return `the transaction id ${short(id)} is not ${name === 'verifySendTransfer' ? '64 hex digits without 0x' : '0x and 64 hex digits'}`
    }
    const raw = await context.chain?.rawTransaction(id)
    if (raw === undefined) return `the chain does not know transaction ${id}`
    options.rawTransaction = raw
  }
  if (name === 'verifyWalletSendCalls' && options.rawTransactions === undefined) {
    const hashes = (result as { capabilities?: { caip345?: { transactionHashes?: unknown } } } | null)
      ?.capabilities?.caip345?.transactionHashes
    if (!Array.isArray(hashes) || hashes.length === 0) return 'the result names no transactions (caip345)'
    const raws: string[] = []
    for (const hash of hashes) {
      const raw = typeof hash === 'string' ? await context.chain?.rawTransaction(hash) : undefined
      if (raw === undefined) return `the chain does not know transaction ${short(hash)}`
      raws.push(raw)
    }
    options.rawTransactions = raws
    // An authorization in them must name the delegate the runner configured the wallet with.
    if (context.chain?.delegate !== undefined) options.delegate ??= context.chain.delegate
  }
  return options
}

function describeError(error: { code?: unknown; message?: unknown; data?: { reason?: unknown } }): string {
  const reason = typeof error.data?.reason === 'string' ? ` (${error.data.reason})` : ''
  return `${String(error.code)} ${String(error.message)}${reason}`
}

function short(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 120 ? `${text.slice(0, 117)}...` : text
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error)
}
