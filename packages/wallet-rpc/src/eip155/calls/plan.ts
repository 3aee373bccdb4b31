import type { Address, Hex } from 'viem'
import { InvalidParamsError, PolicyRefusedError } from '../../core/errors.js'
import type { RequestContext } from '../../core/namespace.js'
import { group, item, type ReviewDraft, type ReviewItem, type ReviewWarning } from '../../core/review.js'
import {
  type Delegation,
  delegationCode,
  foreignDelegationWarning,
  readDelegation,
} from '../eip7702/delegation.js'
import { type Call, encodeExecute } from '../eip7702/erc7821.js'
import { accessOf, type ChainConfig, type Eip155Env, ownedAddress } from '../env.js'
import {
  AtomicityNotSupportedError,
  BatchTooLargeError,
  DuplicateCallsIdError,
  UnsupportedCallsChainError,
  UnsupportedCapabilityError,
} from '../errors.js'
import type { ChainAccess } from '../provider.js'
import { reviewOutcome } from '../simulation/reviewSimulation.js'
import { type SimulationOutcome, simulateCalls } from '../simulation/simulate.js'
import { assertCovered, estimateFees, fillFees, maxFeeOf } from '../transaction/fees.js'
import type { Fees, TransactionRequest } from '../transaction/request.js'
import { formatEther, formatGwei } from '../viemUtils.js'
import { type CallTree, callTree, callTreeItems, callTreeWarnings } from './callTree.js'
import type { SendCallsRequest } from './request.js'
import { callsKey } from './store.js'

/** One transaction of a batch, filled except for its nonce (reserved after approval). */
export type BatchTransaction = { to: Address; value: bigint; data: Hex; gas: bigint }

export type CallsPlan = {
  id: string
  chainId: number
  from: Address
  /** The dapp required atomic execution (a declined upgrade then answers 5750). */
  atomicRequired: boolean
  fees: Fees
  mode:
    | { kind: 'atomic'; delegate: Address; upgrade: boolean; transaction: BatchTransaction }
    | { kind: 'sequential'; transactions: BatchTransaction[] }
}

/**
 * Capabilities a batch may require: everything else must be marked `optional: true` (else 5700). None per
 * call: a call-level `dataSuffix` the wallet would not append is refused rather than ignored.
 */
const batchCapabilities = new Set(['dataSuffix'])
const callCapabilities = new Set<string>()

/** Intrinsic gas of one EIP-7702 authorization to an account that may be empty (EIP-7702 PER_EMPTY_ACCOUNT_COST). */
const authorizationGas = 25_000n

/**
 * Everything `wallet_sendCalls` checks and fills before the one review: the chain (5710), the account
 * (4100), capabilities (5700), batch size (5740), a duplicate id (5720), then the chain reads: the account's
 * EIP-7702 delegation, fees, gas, the batch simulation and affordability. Atomic when the chain has a
 * delegate and the account is not delegated elsewhere (5760 when atomicity is required and impossible).
 */
export async function planCalls(
  env: Eip155Env,
  context: RequestContext,
  request: SendCallsRequest,
  newId: () => string,
): Promise<{ review: ReviewDraft; plan: CallsPlan }> {
  const isV2 = request.version === '2.0.0'
  if (isV2 && request.atomicRequired === undefined)
    throw new InvalidParamsError('atomicRequired is required in version 2.0.0', { path: '0.atomicRequired' })
  const atomicRequired = request.atomicRequired === true
  const caip2 = `eip155:${request.chainId}`
  const chain = env.chains.get(caip2)
  if (chain === undefined) throw new UnsupportedCallsChainError(`${caip2} is not served by this wallet`)
  if (caip2 !== context.chainId)
    throw new PolicyRefusedError(
      `the calls' chainId ${caip2} differs from the request's chain ${context.chainId}`,
      {
        rule: 'chain_mismatch',
      },
    )
  refuseUnsupportedCapabilities(request.capabilities, '0.capabilities', batchCapabilities)
  for (const [index, call] of request.calls.entries()) {
    refuseUnsupportedCapabilities(call.capabilities, `0.calls.${index}.capabilities`, callCapabilities)
    if (call.to === undefined)
      throw new InvalidParamsError('a batched call must have `to` (contract creation is not batched)', {
        path: `0.calls.${index}.to`,
      })
  }
  if (request.calls.length > env.calls.maxCalls)
    throw new BatchTooLargeError(
      `${request.calls.length} calls; this wallet sends at most ${env.calls.maxCalls}`,
    )
  const from = await fromOf(env, request.from)
  const id = request.id ?? newId()
  // Ids are the site's own: another site's batch with the same id is no duplicate (and not revealed).
  const key = callsKey(context.origin, id)
  if (env.calls.inFlight.has(key))
    throw new DuplicateCallsIdError(`a batch with id ${id} was already submitted`)
  // Claimed before the next await, so a concurrent request with this id gets 5720; given back here when
  // planning fails, else by the method's `abandon` or `execute`.
  env.calls.inFlight.add(key)
  try {
    if ((await env.calls.store.get(id, context.origin)) !== undefined)
      throw new DuplicateCallsIdError(`a batch with id ${id} was already submitted`)
    return await fillCalls(env, request, { chain, from, id, atomicRequired })
  } catch (error) {
    env.calls.inFlight.delete(key)
    throw error
  }
}

/** The chain reads, the transactions and the review of a checked batch. */
async function fillCalls(
  env: Eip155Env,
  request: SendCallsRequest,
  batch: { chain: ChainConfig; from: Address; id: string; atomicRequired: boolean },
): Promise<{ review: ReviewDraft; plan: CallsPlan }> {
  const { chain, from, id, atomicRequired } = batch
  const caip2 = `eip155:${chain.chainId}`
  const suffix = dataSuffixOf(request.capabilities)
  const calls: Call[] = request.calls.map((call) => ({
    to: call.to!,
    value: call.value ?? 0n,
    data: call.data ?? '0x',
  }))
  // Atomicity without a delegate is refused before any chain read: a wallet without a provider answers 5760 too.
  if (atomicRequired && chain.delegate === undefined) throw refuseAtomic(chain, undefined)!
  const access = accessOf(chain)
  // Read on every chain: a foreign delegation is flagged (and runs the calls to the account) with or without a delegate.
  const delegation = await readDelegation(access, from)
  const atomicRefusal = refuseAtomic(chain, delegation)
  if (atomicRequired && atomicRefusal !== undefined) throw atomicRefusal
  const delegate = atomicRefusal === undefined ? chain.delegate : undefined
  const upgrade = delegate !== undefined && delegation.status === 'none'

  const block = await access.latestBlock()
  const fees = await fillFees({ access, block }, { from } as TransactionRequest)
  if (upgrade && fees.type !== 'eip1559')
    throw new AtomicityNotSupportedError(`${caip2} has no EIP-1559 fees, which EIP-7702 transactions need`)
  // The values alone, before any estimate (a node answers an unaffordable one with an error of its own).
  const funds = { from, balance: await access.balance(from), symbol: chain.nativeSymbol }
  const sent = calls.reduce((sum, call) => sum + call.value, 0n)
  assertCovered(funds, sent, `the calls send`)
  const gasCap = (block.gasLimit * 95n) / 100n
  // Calls to the account itself run its code: the delegate's once the batch is atomic (the designator is in
  // place when they run), or the contract it is delegated to now.
  const tree = callTree(calls, from, {
    runsCode: delegate !== undefined || delegation.status === 'delegated',
    zeroIsSelf: delegate !== undefined,
  })
  // A call that makes the account run code this wallet cannot read would run with its full authority.
  if (tree.undecoded.length > 0)
    throw new PolicyRefusedError(
      tree.undecoded
        .map(({ path, reason }) => `call ${path} targets your own account and cannot be read: ${reason}`)
        .join('; '),
      { rule: 'calls.self_call_undecoded' },
    )
  const atomic =
    delegate === undefined
      ? undefined
      : {
          delegate,
          data: appendSuffix(encodeExecute(calls), suffix),
          delegateCode: await access.code(delegate),
        }
  // Simulated as it will run: the one atomic transaction (suffix and all) through the delegate, with the
  // account's designator in place before the authorization that sets it is even signed; or each
  // sequential transaction with its suffix.
  const simulated =
    chain.simulation === undefined
      ? undefined
      : atomic !== undefined
        ? await simulateAtomic(access, { from, gas: gasCap, ...atomic }, chain.simulation)
        : await simulateCalls(
            access,
            calls.map((call) => ({
              from,
              ...call,
              data: appendSuffix(call.data, suffix),
              gas: gasCap / BigInt(calls.length),
            })),
            chain.simulation,
          )
  // What the calls do is seen in full only in eth_simulateV1's logs (a revert does nothing and is refused itself).
  const effectsShown =
    simulated?.status === 'reverted' ||
    (simulated?.status === 'success' && simulated.via === 'eth_simulateV1')
  if (tree.selfCalls.length > 0 && !effectsShown)
    throw new PolicyRefusedError(
      `call ${tree.selfCalls.map((index) => index + 1).join(', ')} targets your own account, and the batch ${
        simulated === undefined
          ? 'is not simulated here'
          : simulated.status === 'unavailable'
            ? `could not be simulated (${simulated.reason})`
            : 'could only be run without its effects (the node lacks eth_simulateV1)'
      }: what such a call makes your account do would not be shown`,
      { rule: 'calls.self_call_unsimulated' },
    )
  const padded = (gas: bigint) => {
    const withMargin = (gas * BigInt(100 + env.gasMarginPercent)) / 100n
    return withMargin < gasCap ? withMargin : gas > gasCap ? gas : gasCap
  }
  let mode: CallsPlan['mode']
  if (atomic !== undefined) {
    const estimate = await access.estimateGas(
      { from, to: from, value: 0n, data: atomic.data, fees: estimateFees(fees) },
      atomic.delegateCode,
    )
    const gas = padded(estimate + (upgrade ? authorizationGas : 0n))
    mode = {
      kind: 'atomic',
      delegate: atomic.delegate,
      upgrade,
      transaction: { to: from, value: 0n, data: atomic.data, gas },
    }
  } else {
    const transactions: BatchTransaction[] = []
    for (const [index, call] of calls.entries()) {
      const data = appendSuffix(call.data, suffix)
      transactions.push({
        ...call,
        data,
        gas: await sequentialGas(access, from, { ...call, data }, fees, simulated, index, padded),
      })
    }
    mode = { kind: 'sequential', transactions }
  }
  const transactions = mode.kind === 'atomic' ? [mode.transaction] : mode.transactions
  const maxCost = sent + transactions.reduce((sum, tx) => sum + tx.gas * maxFeeOf(fees), 0n)
  assertCovered(funds, maxCost, 'the calls and their maximum network fee come to')

  const simulatedSection =
    simulated === undefined || chain.simulation === undefined
      ? undefined
      : await reviewOutcome(access, from, simulated, chain.nativeSymbol, chain.simulation)
  const foreign = foreignDelegationWarning(chain.delegate, from, delegation)
  const review = callsReview(chain, { from, tree, mode, fees, suffix, foreign, simulatedSection })
  return { review, plan: { id, chainId: chain.chainId, from, atomicRequired, fees, mode } }
}

/**
 * The atomic transaction simulated with the account's designator (`0xef0100 ‖ delegate`) as its code. A node
 * that does not follow a designator set by a state override runs those bytes as code and fails: where the
 * designator run reverts, the delegate's own code is tried in its place, and its outcome taken if it runs.
 */
async function simulateAtomic(
  access: ChainAccess,
  transaction: { from: Address; gas: bigint; delegate: Address; data: Hex; delegateCode: Hex },
  options: { timeoutMs: number },
): Promise<SimulationOutcome> {
  const { from, gas, delegate, data, delegateCode } = transaction
  const call = [{ from, to: from, value: 0n, data, gas }]
  const outcome = await simulateCalls(access, call, options, { [from]: { code: delegationCode(delegate) } })
  if (outcome.status !== 'reverted' || delegateCode === '0x') return outcome
  const direct = await simulateCalls(access, call, options, { [from]: { code: delegateCode } })
  return direct.status === 'success' ? direct : outcome
}

async function fromOf(env: Eip155Env, requested: Address | undefined): Promise<Address> {
  if (requested !== undefined) return ownedAddress(env, requested)
  // EIP-5792: without `from`, the wallet picks the account; ours is the first it holds.
  const [first] = await env.keys.addresses()
  if (first === undefined) throw new InvalidParamsError('this wallet holds no account', { path: '0.from' })
  return first
}

function refuseUnsupportedCapabilities(
  capabilities: Record<string, { optional?: boolean | undefined }> | undefined,
  path: string,
  supported: ReadonlySet<string>,
) {
  for (const [name, capability] of Object.entries(capabilities ?? {})) {
    if (supported.has(name) || capability.optional === true) continue
    throw new UnsupportedCapabilityError(`capability ${name} is not supported by this wallet`, {
      extra: { path: `${path}.${name}` },
    })
  }
}

function dataSuffixOf(capabilities: SendCallsRequest['capabilities']): Hex | undefined {
  const given = capabilities?.dataSuffix as { value?: unknown } | undefined
  if (given === undefined) return undefined
  const value = given.value
  if (typeof value !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(value) || value.length > 2 + 2048)
    throw new InvalidParamsError(
      'must be 0x-prefixed hex with an even number of digits, at most 1024 bytes',
      {
        path: '0.capabilities.dataSuffix.value',
      },
    )
  return value.toLowerCase() as Hex
}

const appendSuffix = (data: Hex, suffix: Hex | undefined): Hex =>
  suffix === undefined ? data : (`${data}${suffix.slice(2)}` as Hex)

/** Why this batch cannot be atomic here, or undefined when it can. */
function refuseAtomic(
  chain: ChainConfig,
  delegation: Delegation | undefined,
): AtomicityNotSupportedError | undefined {
  if (chain.delegate === undefined)
    return new AtomicityNotSupportedError(`no EIP-7702 delegate is configured for eip155:${chain.chainId}`)
  if (
    delegation?.status === 'delegated' &&
    delegation.delegate.toLowerCase() !== chain.delegate.toLowerCase()
  )
    return new AtomicityNotSupportedError(
      `the account is already delegated to ${delegation.delegate}, not to this wallet's delegate ${chain.delegate}`,
      {
        extra: {
          rule: 'eip7702.foreign_delegate',
          severity: 'danger',
          delegate: delegation.delegate,
        },
      },
    )
  if (delegation?.status === 'contract')
    return new AtomicityNotSupportedError('the account holds contract code')
  return undefined
}

/**
 * A sequential call's gas: the node's estimate; where it reverts because it depends on an earlier call of
 * the batch (an approve, then the transferFrom it allows), what the batch simulation used for it.
 */
async function sequentialGas(
  access: ChainAccess,
  from: Address,
  call: Call,
  fees: Fees,
  simulated: SimulationOutcome | undefined,
  index: number,
  padded: (gas: bigint) => bigint,
): Promise<bigint> {
  try {
    return padded(await access.estimateGas({ from, ...call, fees: estimateFees(fees) }))
  } catch (error) {
    const used =
      simulated?.status === 'success' && simulated.via === 'eth_simulateV1'
        ? simulated.gasUsed?.[index]
        : undefined
    if (index === 0 || used === undefined || used === 0n) throw error
    return padded(used)
  }
}

function callsReview(
  chain: ChainConfig,
  batch: {
    from: Address
    tree: CallTree
    mode: CallsPlan['mode']
    fees: Fees
    suffix: Hex | undefined
    foreign: ReviewWarning | undefined
    simulatedSection: { items: ReviewItem[]; warnings: ReviewWarning[] } | undefined
  },
): ReviewDraft {
  const { from, tree, mode, fees } = batch
  const symbol = chain.nativeSymbol
  const count = tree.nodes.length
  const transactions = mode.kind === 'atomic' ? [mode.transaction] : mode.transactions
  const gas = transactions.reduce((sum, tx) => sum + tx.gas, 0n)
  const items: ReviewItem[] = [
    item('From', from),
    item('Network', `eip155:${chain.chainId}`),
    item(
      'Execution',
      mode.kind === 'atomic'
        ? `atomic: one transaction runs all ${count} calls from your account (ERC-7821 execute); if one fails, none happens`
        : `sequential: ${count} transactions, one after another; a failed one does not undo the ones before it`,
    ),
  ]
  const warnings: ReviewWarning[] = []
  if (mode.kind === 'atomic' && mode.upgrade) {
    items.push(
      group('Account upgrade (EIP-7702)', [
        item('Delegate contract', mode.delegate),
        item('Chain', `eip155:${chain.chainId} only`),
        item('Authorization nonce', "the transaction's nonce + 1 (fixed when signed)"),
      ]),
    )
    warnings.push({
      code: 'eip7702.account_upgrade',
      severity: 'caution',
      message: `Upgrades your account on eip155:${chain.chainId}: from now on it also runs the code of ${mode.delegate} (an ERC-7821 batch executor only your own account may call). It stays upgraded until you change it.`,
    })
  }
  if (batch.foreign !== undefined) warnings.push(batch.foreign)
  if (batch.suffix !== undefined) items.push(item('Data suffix (ERC-8021)', batch.suffix))
  const maxFee = fees.type === 'eip1559' ? fees.maxFeePerGas : fees.gasPrice
  items.push(
    item('Max network fee', `${formatEther(gas * maxFee)} ${symbol}`),
    item('Gas limit', transactions.map((tx) => tx.gas.toString()).join(' + ')),
    fees.type === 'eip1559'
      ? item(
          'Max fee per gas',
          `${formatGwei(fees.maxFeePerGas)} gwei (priority ${formatGwei(fees.maxPriorityFeePerGas)} gwei)`,
        )
      : item('Gas price', `${formatGwei(fees.gasPrice)} gwei`),
  )
  // What the batch does, before the calls it is made of: a batch of many (nested) calls must not push its
  // balance changes and approvals past the lines a review shows.
  if (batch.simulatedSection !== undefined) {
    items.push(...batch.simulatedSection.items)
    warnings.push(...batch.simulatedSection.warnings)
  }
  items.push(...callTreeItems(tree, symbol))
  warnings.push(...callTreeWarnings(tree))
  return {
    account: from,
    title: `Send ${count} call${count === 1 ? '' : 's'}${mode.kind === 'atomic' ? ' (one atomic transaction)' : ''}`,
    items,
    warnings,
  }
}
