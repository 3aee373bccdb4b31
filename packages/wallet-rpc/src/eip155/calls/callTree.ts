import type { Address } from 'viem'
import { group, item, type ReviewItem, type ReviewWarning } from '../../core/review.js'
import { decodeExecute } from '../eip7702/erc7821.js'
import { decodeKnownCall } from '../transaction/review.js'
import type { Call } from '../types.js'
import { formatEther } from '../viemUtils.js'

/**
 * A batch's calls as they will run, with what each call to the account itself runs in turn. A dapp's call
 * to the account (or, inside an executor, to the zero address, which ERC-7821 reads as the account) whose
 * data is `execute(…)` makes the account's delegate run more calls with the account's full authority: an
 * `approve` hidden there would not show among the batch's calls. Those calls are decoded here, nested, so the
 * review shows them and flags them as it flags the batch's own.
 */

/** How many calls to the account itself may nest (execute inside execute…) and still be decoded. */
export const maxSelfCallDepth = 4
/** Calls decoded inside one batch's calls to the account itself, in all. */
export const maxNestedCalls = 64

export type CallNode = {
  call: Call
  /** Targets the account itself (or the zero address inside an executor, which means the account). */
  self: boolean
  /** What a call to the account runs, when decoded. */
  runs?: { mode: string; calls: CallNode[] }
  /** Why a call to the account that runs code is not decoded. */
  undecoded?: string
  /** A call to the account while it has no code: it runs nothing. */
  inert?: boolean
}

export type CallTree = {
  nodes: CallNode[]
  /** Calls of the batch (top level) that target the account itself. */
  selfCalls: number[]
  /** Calls to the account (at any depth, `2.1`) that run code this wallet cannot read, and why. */
  undecoded: { path: string; reason: string }[]
}

/**
 * The batch's calls for `account`. `runsCode`: the account has code when the calls run (an atomic batch
 * runs on the delegate; a sequential one only when the account is delegated already). `zeroIsSelf`: the
 * calls run inside the account's executor (an atomic batch), where a target of address zero is the account.
 */
export function callTree(
  calls: readonly Call[],
  account: Address,
  options: { runsCode: boolean; zeroIsSelf: boolean },
): CallTree {
  const self = account.toLowerCase()
  let budget = maxNestedCalls
  const node = (call: Call, depth: number, zeroIsSelf: boolean): CallNode => {
    const target = call.to.toLowerCase()
    const isSelf = target === self || (zeroIsSelf && BigInt(target) === 0n)
    if (!isSelf) return { call, self: false }
    if (!options.runsCode) return { call, self: true, inert: true }
    if (call.data === '0x') return { call, self: true }
    const decoded = decodeExecute(call.data)
    if (decoded === undefined)
      return { call, self: true, undecoded: 'its data is not an ERC-7821 execute call this wallet reads' }
    if (!decoded.ok) return { call, self: true, undecoded: decoded.reason }
    if (depth >= maxSelfCallDepth)
      return {
        call,
        self: true,
        undecoded: `it nests calls to your account more than ${maxSelfCallDepth} deep`,
      }
    if (decoded.calls.length > budget)
      return {
        call,
        self: true,
        undecoded: `it runs more than the ${maxNestedCalls} nested calls this wallet decodes in one batch`,
      }
    budget -= decoded.calls.length
    // Inside the executor a target of address zero is the account itself (ERC-7821).
    const children = decoded.calls.map((child) => node(child, depth + 1, true))
    return { call, self: true, runs: { mode: decoded.mode, calls: children } }
  }
  const nodes = calls.map((call) => node(call, 0, options.zeroIsSelf))
  const undecoded: CallTree['undecoded'] = []
  for (const { node: entry, path } of walk(nodes))
    if (entry.undecoded !== undefined) undecoded.push({ path, reason: entry.undecoded })
  return { nodes, selfCalls: nodes.flatMap((entry, index) => (entry.self ? [index] : [])), undecoded }
}

/** Every call of the tree, depth first, with its position (`2`, `2.1`, `2.1.3`). */
function* walk(nodes: readonly CallNode[], prefix = ''): Generator<{ node: CallNode; path: string }> {
  for (const [index, node] of nodes.entries()) {
    const path = `${prefix}${index + 1}`
    yield { node, path }
    if (node.runs !== undefined) yield* walk(node.runs.calls, `${path}.`)
  }
}

/** The review groups of the batch's calls: each call decoded as in a transaction review, nested calls inside. */
export function callTreeItems(tree: CallTree, nativeSymbol: string): ReviewItem[] {
  const count = tree.nodes.length
  const lines = (node: CallNode): ReviewItem[] => {
    const { call } = node
    const result: ReviewItem[] = [
      item('To', node.self ? `${call.to} (your own account)` : call.to),
      item('Value', `${formatEther(call.value)} ${nativeSymbol}`),
    ]
    if (node.inert) result.push(item('Runs', 'nothing: your account has no code'))
    else if (node.runs !== undefined) {
      const inner = node.runs.calls
      result.push(
        group(
          `Runs ${inner.length} call${inner.length === 1 ? '' : 's'} from your account (ERC-7821 execute, ${node.runs.mode})`,
          inner.map((child, index) => group(`Nested call ${index + 1} of ${inner.length}`, lines(child))),
        ),
      )
      return result
    }
    const decoded = call.data === '0x' || node.self ? undefined : decodeKnownCall(call.data)
    if (decoded !== undefined) result.push(...decoded.items(call.to))
    else if (call.data !== '0x')
      result.push(item('Data', call.data.length > 138 ? `${call.data.slice(0, 138)}…` : call.data))
    return result
  }
  return tree.nodes.map((node, index) => group(`Call ${index + 1} of ${count}`, lines(node)))
}

/**
 * The warnings of every call at any depth: the approvals a transaction review flags (unlimited ERC-20
 * allowances, approval for all, Permit2) and a `caution` for calls to the account that run more calls.
 */
export function callTreeWarnings(tree: CallTree): ReviewWarning[] {
  const warnings: ReviewWarning[] = []
  const nested: string[] = []
  for (const { node, path } of walk(tree.nodes)) {
    const { call } = node
    if (node.runs !== undefined) nested.push(`call ${path} runs ${node.runs.calls.length} more`)
    if (node.self || call.data === '0x') continue
    for (const warning of decodeKnownCall(call.data)?.warnings(call.to) ?? [])
      warnings.push(
        path.includes('.') ? { ...warning, message: `Nested call ${path}: ${warning.message}` } : warning,
      )
  }
  if (nested.length > 0)
    warnings.unshift({
      code: 'calls.self_call',
      severity: 'caution',
      message: `The site's calls include calls to your own account that make it run more calls (${nested.join('; ')}): they are shown nested under the call that runs them, and each runs with your account's full authority.`,
    })
  return warnings
}
