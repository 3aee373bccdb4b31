import { concatHex, encodeAbiParameters, encodeFunctionData, type Hex, pad, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { decodeExecute, encodeExecute } from '../../../src/eip155/eip7702/erc7821.js'

/**
 * The `execute(bytes32,bytes)` calls a batch's call to the account itself can carry, decoded as
 * OpenZeppelin's ERC-7821 / ERC-7579 executor reads them (draft-ERC7579Utils: `decodeBatch`, `decodeSingle`;
 * ERC-7821's opData and batch-of-batches modes). The encodings here are written with viem's ABI encoder from
 * the EIP's layouts, not with the code under test.
 */
const executeAbi = [
  {
    type: 'function',
    name: 'execute',
    inputs: [{ type: 'bytes32' }, { type: 'bytes' }],
    outputs: [],
    stateMutability: 'payable',
  },
] as const
const callsType = {
  type: 'tuple[]',
  components: [{ type: 'address' }, { type: 'uint256' }, { type: 'bytes' }],
} as const
const a = '0x1111111111111111111111111111111111111111'
const b = '0x2222222222222222222222222222222222222222'
const calls = [
  { to: a, value: 1n, data: '0xdeadbeef' as Hex },
  { to: b, value: 0n, data: '0x' as Hex },
] as const
const asTuples = calls.map((call) => [call.to, call.value, call.data] as const)
const mode = (callType: string, execType: string, selector = '00000000') =>
  `0x${callType}${execType}00000000${selector}${'00'.repeat(22)}` as Hex
const execute = (modeWord: Hex, executionData: Hex) =>
  encodeFunctionData({ abi: executeAbi, args: [modeWord, executionData] })
const lower = (list: readonly { to: string; value: bigint; data: Hex }[]) =>
  list.map((call) => ({ ...call, to: call.to.toLowerCase() }))
const decodedCalls = (data: Hex) => {
  const decoded = decodeExecute(data)
  if (decoded === undefined || !decoded.ok) throw new Error(JSON.stringify(decoded))
  return { mode: decoded.mode, calls: lower(decoded.calls) }
}

describe('decodeExecute', () => {
  it('reads back the batch encodeExecute writes (mode 0x01, no opData)', () => {
    expect(decodedCalls(encodeExecute(calls))).toEqual({ mode: 'batch', calls: lower(calls) })
  })

  it('opData, a batch of batches, try mode and ERC-7579 single mode', () => {
    const withOpData = encodeAbiParameters([callsType, { type: 'bytes' }], [asTuples, '0x1234'])
    expect(decodedCalls(execute(mode('01', '00', '78210001'), withOpData)).mode).toBe('batch with opData')
    const batches = encodeAbiParameters([{ type: 'bytes[]' }], [[withOpData, withOpData]])
    expect(decodedCalls(execute(mode('01', '00', '78210002'), batches))).toEqual({
      mode: 'batch of 2 batches',
      calls: lower([...calls, ...calls]),
    })
    const plain = encodeAbiParameters([callsType], [asTuples])
    expect(decodedCalls(execute(mode('01', '01'), plain)).mode).toBe('batch, failures skipped (try mode)')
    const single = concatHex([a, pad(toHex(5n)), '0xcafe'])
    expect(decodedCalls(execute(mode('00', '00'), single))).toEqual({
      mode: 'single call (ERC-7579)',
      calls: [{ to: a, value: 5n, data: '0xcafe' }],
    })
  })

  it('not execute: undefined; an execute it cannot read: the reason', () => {
    expect(decodeExecute('0xa9059cbb')).toBeUndefined()
    expect(decodeExecute('0x')).toBeUndefined()
    const plain = encodeAbiParameters([callsType], [asTuples])
    const reasons = [
      execute(mode('ff', '00'), concatHex([a, '0x12'])),
      execute(mode('02', '00'), plain),
      execute(mode('01', '07'), plain),
      execute(mode('01', '00', '12345678'), plain),
      // The same calls with a trailing word: an executor and a decoder could disagree on odd encodings.
      execute(mode('01', '00'), concatHex([plain, pad('0x01')])),
      execute(mode('01', '00'), '0x1234'),
      '0xe9ae5c5300',
    ].map((data) => decodeExecute(data as Hex))
    expect(reasons).toEqual([
      { ok: false, reason: expect.stringContaining('delegatecall') },
      { ok: false, reason: 'call type 0x02 is unknown' },
      { ok: false, reason: 'exec type 0x07 is unknown' },
      { ok: false, reason: 'mode selector 0x12345678 is unknown' },
      { ok: false, reason: 'its calls are not encoded canonically' },
      { ok: false, reason: 'its execution data does not decode' },
      { ok: false, reason: 'its arguments do not decode as execute(bytes32,bytes)' },
    ])
  })
})
