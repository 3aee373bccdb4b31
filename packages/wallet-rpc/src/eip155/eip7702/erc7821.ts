import type { Hex } from 'viem'
import type { Call } from '../types.js'
import { decodeAbiParameters, encodeAbiParameters, encodeFunctionData } from '../viemUtils.js'

export type { Call } from '../types.js'

/**
 * ERC-7821's `execute(bytes32 mode, bytes executionData)` in single-batch mode (`0x01` call type, default
 * exec type, no opData): every call runs in order from the account itself and any revert reverts all. The
 * mode is the one OpenZeppelin's ERC7821 (and MetaMask's batches) use.
 */
export const batchExecutionMode: Hex = '0x0100000000000000000000000000000000000000000000000000000000000000'

const executeAbi = [
  {
    type: 'function',
    name: 'execute',
    stateMutability: 'payable',
    inputs: [
      { name: 'mode', type: 'bytes32' },
      { name: 'executionData', type: 'bytes' },
    ],
    outputs: [],
  },
] as const

/** `execute(bytes32,bytes)`: ERC-7821's and ERC-7579's (the same signature). */
const executeSelector = '0xe9ae5c53'

const callsParameter = {
  type: 'tuple[]',
  components: [
    { name: 'target', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'callData', type: 'bytes' },
  ],
} as const

/** The calldata of `execute(batchMode, abi.encode(Call[]))`, ERC-7579's `(address,uint256,bytes)[]` batch. */
export function encodeExecute(calls: readonly Call[]): Hex {
  return encodeFunctionData({
    abi: executeAbi,
    functionName: 'execute',
    args: [batchExecutionMode, encodeCalls(calls)],
  })
}

const encodeCalls = (calls: readonly Call[]): Hex =>
  encodeAbiParameters(
    [callsParameter],
    [calls.map((call) => ({ target: call.to, value: call.value, callData: call.data }))],
  )

/** What an `execute(bytes32,bytes)` call runs, as the account's executor reads it. */
export type DecodedExecute =
  | { ok: true; mode: string; calls: Call[] }
  /** An `execute` this wallet cannot say the effect of (a mode it does not read, a delegatecall, odd encoding). */
  | { ok: false; reason: string }

/**
 * The calls `data` makes an ERC-7821 / ERC-7579 executor run, or undefined when `data` is not an
 * `execute(bytes32,bytes)` call. Read: call type `0x01` (batch) with mode selector `0x00000000`
 * (`(address,uint256,bytes)[]`), `0x78210001` (with opData) and `0x78210002` (a batch of batches), and
 * call type `0x00` (ERC-7579 single: `target ‖ value ‖ callData`); exec type default or try. Anything else
 * (a delegatecall, another selector or exec type) is not decoded. The batch must be encoded exactly as the
 * ABI encodes it (encoding the decoded calls again gives the same bytes): an executor and this decoder
 * cannot then read different calls from one odd encoding. A target of the zero address is the account
 * itself (ERC-7821; OpenZeppelin's executor does so): the caller decides what "itself" is.
 */
export function decodeExecute(data: Hex): DecodedExecute | undefined {
  if (data.slice(0, 10).toLowerCase() !== executeSelector) return undefined
  let mode: Hex
  let executionData: Hex
  try {
    ;[mode, executionData] = decodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'bytes' }],
      `0x${data.slice(10)}`,
    ) as [Hex, Hex]
  } catch {
    return { ok: false, reason: 'its arguments do not decode as execute(bytes32,bytes)' }
  }
  const word = mode.slice(2).toLowerCase()
  const callType = word.slice(0, 2)
  const execType = word.slice(2, 4)
  const selector = word.slice(12, 20)
  const tryMode = execType === '01'
  if (execType !== '00' && !tryMode) return { ok: false, reason: `exec type 0x${execType} is unknown` }
  const label = (kind: string) => `${kind}${tryMode ? ', failures skipped (try mode)' : ''}`
  try {
    if (callType === '00') {
      const bytes = executionData.slice(2)
      if (bytes.length < 104) return { ok: false, reason: 'a single execution shorter than target and value' }
      const call: Call = {
        to: `0x${bytes.slice(0, 40)}`,
        value: BigInt(`0x${bytes.slice(40, 104)}`),
        data: `0x${bytes.slice(104)}`,
      }
      return { ok: true, mode: label('single call (ERC-7579)'), calls: [call] }
    }
    if (callType !== '01')
      return {
        ok: false,
        reason:
          callType === 'ff'
            ? 'it runs a delegatecall: code of the dapp’s choice on your account'
            : `call type 0x${callType} is unknown`,
      }
    if (selector === '00000000') return canonical(label('batch'), executionData, [callsParameter])
    if (selector === '78210001')
      return canonical(label('batch with opData'), executionData, [callsParameter, { type: 'bytes' }])
    if (selector === '78210002') {
      const [batches] = decodeAbiParameters([{ type: 'bytes[]' }], executionData) as [readonly Hex[]]
      if (encodeAbiParameters([{ type: 'bytes[]' }], [batches]) !== executionData.toLowerCase())
        return { ok: false, reason: 'its batches are not encoded canonically' }
      const calls: Call[] = []
      for (const batch of batches) {
        const decoded = canonical('', batch, [callsParameter, { type: 'bytes' }])
        if (!decoded.ok) return decoded
        calls.push(...decoded.calls)
      }
      return { ok: true, mode: label(`batch of ${batches.length} batches`), calls }
    }
    return { ok: false, reason: `mode selector 0x${selector} is unknown` }
  } catch {
    return { ok: false, reason: 'its execution data does not decode' }
  }
}

/** The calls of `(Call[] [, bytes opData])`, refused unless encoding them again gives `executionData`. */
function canonical(
  mode: string,
  executionData: Hex,
  parameters: readonly [typeof callsParameter] | readonly [typeof callsParameter, { type: 'bytes' }],
): DecodedExecute {
  const values = decodeAbiParameters(parameters, executionData) as unknown as [
    readonly { target: Hex; value: bigint; callData: Hex }[],
    Hex?,
  ]
  if (encodeAbiParameters(parameters, values as never) !== executionData.toLowerCase())
    return { ok: false, reason: 'its calls are not encoded canonically' }
  return {
    ok: true,
    mode,
    calls: values[0].map((call) => ({ to: call.target, value: call.value, data: call.callData })),
  }
}
