import type { Address, Hex } from 'viem'
import type { ChainAccess } from '../provider.js'
import { numberToHex } from '../viemUtils.js'
import { isRevert, nodeErrorOf, revertReasonOf } from './nodeError.js'
import { printable, revertReason } from './revertReason.js'
import { SimulationTimeout, within } from './within.js'

export type SimulatedCall = { from: Address; to: Address | undefined; value: bigint; data: Hex; gas: bigint }

/**
 * Accounts' code as the calls must see it (eth_simulateV1's `stateOverrides`, eth_call's third parameter):
 * an account's EIP-7702 designator before the transaction that sets it is mined.
 */
export type CodeOverrides = Readonly<Record<Address, { code: Hex }>>

/**
 * What running the transaction on the node's latest state showed. `logs` (eth_simulateV1 only) include
 * the native-coin transfers the node traced as pseudo-logs; the eth_call fallback runs the call but shows
 * no logs, so it can find a revert and nothing else.
 */
export type SimulationOutcome =
  | { status: 'success'; via: 'eth_simulateV1'; logs: readonly unknown[]; gasUsed?: readonly bigint[] }
  | { status: 'success'; via: 'eth_call' }
  | { status: 'reverted'; via: 'eth_simulateV1' | 'eth_call'; reason: string }
  | { status: 'unavailable'; reason: string }

/**
 * Runs `call` with `eth_simulateV1` (transfer tracing on, validation off: nonce and fees are not the
 * question), falling back to `eth_call` where the node lacks the method. Never throws: a node that cannot
 * be reached, answers nonsense or takes longer than `timeoutMs` in all is an `unavailable` outcome.
 */
export async function simulate(
  access: ChainAccess,
  call: SimulatedCall,
  options: { timeoutMs: number },
): Promise<SimulationOutcome> {
  return simulateCalls(access, [call], options)
}

/**
 * `simulate` for a batch: the calls run one after another in one simulated block, each seeing the state
 * the previous ones left (an approve, then the transferFrom it allows), and the logs of all of them come
 * back in order. A revert names the call (`call 2 of 3: …`). Where the node lacks eth_simulateV1, a single
 * call falls back to eth_call; a batch of several cannot be run call by call without the earlier calls'
 * effects, so it is `unavailable`. `overrides` set accounts' code for the calls (and the fallback).
 */
export async function simulateCalls(
  access: ChainAccess,
  calls: readonly SimulatedCall[],
  options: { timeoutMs: number },
  overrides?: CodeOverrides,
): Promise<SimulationOutcome> {
  const started = Date.now()
  const remaining = () => Math.max(0, options.timeoutMs - (Date.now() - started))
  const callObjects = calls.map((call) => ({
    from: call.from,
    ...(call.to === undefined ? {} : { to: call.to }),
    value: numberToHex(call.value),
    data: call.data,
    gas: numberToHex(call.gas),
  }))
  try {
    const answer = await within(
      access.verifiedRequest('eth_simulateV1', [
        {
          blockStateCalls: [
            overrides === undefined
              ? { calls: callObjects }
              : { stateOverrides: overrides, calls: callObjects },
          ],
          traceTransfers: true,
          validation: false,
        },
        'latest',
      ]),
      remaining(),
    )
    return simulateV1Outcome(answer, calls)
  } catch (error) {
    if (error instanceof SimulationTimeout) return timedOut(options.timeoutMs)
    const node = nodeErrorOf(error)
    if (!isMethodMissing(node.code, node.message))
      return { status: 'unavailable', reason: `eth_simulateV1 failed: ${node.message}` }
  }
  if (callObjects.length !== 1)
    return {
      status: 'unavailable',
      reason: 'the node lacks eth_simulateV1, and a batch cannot be run call by call',
    }
  try {
    const params =
      overrides === undefined ? [callObjects[0], 'latest'] : [callObjects[0], 'latest', overrides]
    await within(access.verifiedRequest('eth_call', params), remaining())
    return { status: 'success', via: 'eth_call' }
  } catch (error) {
    if (error instanceof SimulationTimeout) return timedOut(options.timeoutMs)
    const node = nodeErrorOf(error)
    if (!isRevert(node)) return { status: 'unavailable', reason: `eth_call failed: ${node.message}` }
    return { status: 'reverted', via: 'eth_call', reason: revertReasonOf(node) }
  }
}

/** The calls of the one simulated block, as eth_simulateV1 answers it (execution-apis, eth_simulateV1). */
function simulateV1Outcome(answer: unknown, calls: readonly SimulatedCall[]): SimulationOutcome {
  const block = Array.isArray(answer) ? (answer[0] as { calls?: unknown } | undefined) : undefined
  const results = Array.isArray(block?.calls) ? (block.calls as unknown[]) : []
  const logs: unknown[] = []
  const gasUsed: bigint[] = []
  for (const [index, call] of calls.entries()) {
    const outcome = callOutcome(results[index], call.gas)
    if (outcome.status !== 'success')
      return calls.length === 1 || outcome.status === 'unavailable'
        ? outcome
        : { ...outcome, reason: `call ${index + 1} of ${calls.length}: ${outcome.reason}` }
    logs.push(...outcome.logs)
    if (outcome.gasUsed !== undefined) gasUsed.push(outcome.gasUsed)
  }
  // Per-call gas only when the node reported it for every call (sequential batches size their gas from it).
  return gasUsed.length === calls.length
    ? { status: 'success', via: 'eth_simulateV1', logs, gasUsed }
    : { status: 'success', via: 'eth_simulateV1', logs }
}

function callOutcome(
  result: unknown,
  gas: bigint,
):
  | { status: 'success'; logs: readonly unknown[]; gasUsed: bigint | undefined }
  | Exclude<SimulationOutcome, { status: 'success' }> {
  if (result === undefined || result === null || typeof result !== 'object')
    return { status: 'unavailable', reason: 'eth_simulateV1 answered without a call result' }
  const call = result as Record<string, unknown>
  const gasUsed =
    typeof call.gasUsed === 'string' && /^0x[0-9a-fA-F]{1,64}$/.test(call.gasUsed)
      ? BigInt(call.gasUsed)
      : undefined
  if (call.status === '0x1')
    return { status: 'success', logs: Array.isArray(call.logs) ? call.logs : [], gasUsed }
  if (call.status !== '0x0')
    return { status: 'unavailable', reason: 'eth_simulateV1 answered an unknown call status' }
  const returnData = typeof call.returnData === 'string' ? call.returnData : '0x'
  const error = call.error as { message?: unknown } | undefined
  // Nodes word failures differently (anvil says "execution failed" for all); all gas used without revert
  // data is running out of it.
  const outOfGas = returnData === '0x' && gasUsed !== undefined && gasUsed >= gas
  const reason =
    returnData !== '0x'
      ? revertReason(returnData)
      : outOfGas
        ? `out of gas (all ${gas} used)`
        : typeof error?.message === 'string' && error.message !== ''
          ? printable(error.message)
          : 'reverted without a reason'
  return { status: 'reverted', via: 'eth_simulateV1', reason }
}

/** JSON-RPC "method not found" and the words nodes use instead (not supported, not available…). */
function isMethodMissing(code: number | undefined, message: string): boolean {
  return (
    code === -32601 ||
    code === -32004 ||
    /method not found|not supported|unsupported|not available|does not exist|not implemented|unknown method/i.test(
      message,
    )
  )
}

function timedOut(timeoutMs: number): SimulationOutcome {
  return { status: 'unavailable', reason: `the node did not answer within ${timeoutMs} ms` }
}
