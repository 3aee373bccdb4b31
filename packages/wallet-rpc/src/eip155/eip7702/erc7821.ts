import type { Hex } from 'viem'
import type { Call } from '../types.js'
import { encodeAbiParameters, encodeFunctionData } from '../viemUtils.js'

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

/** The calldata of `execute(batchMode, abi.encode(Call[]))`, ERC-7579's `(address,uint256,bytes)[]` batch. */
export function encodeExecute(calls: readonly Call[]): Hex {
  const executionData = encodeAbiParameters(
    [
      {
        type: 'tuple[]',
        components: [
          { name: 'target', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'callData', type: 'bytes' },
        ],
      },
    ],
    [calls.map((call) => ({ target: call.to, value: call.value, callData: call.data }))],
  )
  return encodeFunctionData({
    abi: executeAbi,
    functionName: 'execute',
    args: [batchExecutionMode, executionData],
  })
}
