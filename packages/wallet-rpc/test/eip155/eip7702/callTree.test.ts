import { encodeFunctionData, erc20Abi, type Hex, maxUint256, parseAbi } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  callTree,
  callTreeItems,
  callTreeWarnings,
  maxNestedCalls,
  maxSelfCallDepth,
} from '../../../src/eip155/calls/callTree.js'
import { encodeExecute } from '../../../src/eip155/eip7702/erc7821.js'

/** What a batch's calls to the account itself run, read without a chain (the anvil tests run them). */
const account = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
const token = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const spender = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
const zero = '0x0000000000000000000000000000000000000000'
const approveAll = {
  to: token,
  value: 0n,
  data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, maxUint256] }),
} as const
const selfCall = (calls: readonly { to: string; value: bigint; data: Hex }[], to: string = account) => ({
  to: to as Hex,
  value: 0n,
  data: encodeExecute(calls as never),
})
const nest = (depth: number) => {
  let call: { to: Hex; value: bigint; data: Hex } = approveAll
  for (let level = 0; level < depth; level++) call = selfCall([call])
  return call
}

describe('callTree', () => {
  it('decodes up to the depth bound; one level more is undecoded', () => {
    expect(
      callTree([nest(maxSelfCallDepth)], account, { runsCode: true, zeroIsSelf: true }).undecoded,
    ).toEqual([])
    expect(
      callTree([nest(maxSelfCallDepth + 1)], account, { runsCode: true, zeroIsSelf: true }).undecoded,
    ).toEqual([
      { path: '1.1.1.1.1', reason: `it nests calls to your account more than ${maxSelfCallDepth} deep` },
    ])
  })

  it('at most 64 nested calls in one batch', () => {
    const wide = (count: number) => selfCall(Array.from({ length: count }, () => approveAll))
    expect(callTree([wide(maxNestedCalls)], account, { runsCode: true, zeroIsSelf: true }).undecoded).toEqual(
      [],
    )
    expect(
      callTree([wide(maxNestedCalls), wide(1)], account, { runsCode: true, zeroIsSelf: true }).undecoded,
    ).toEqual([
      {
        path: '2',
        reason: `it runs more than the ${maxNestedCalls} nested calls this wallet decodes in one batch`,
      },
    ])
  })

  it('address zero is the account only inside an executor; an account without code runs nothing', () => {
    const atZero = [selfCall([approveAll], zero)]
    expect(callTree(atZero, account, { runsCode: true, zeroIsSelf: true }).selfCalls).toEqual([0])
    expect(callTree(atZero, account, { runsCode: false, zeroIsSelf: false }).selfCalls).toEqual([])
    // Inside an execute, zero is the account again, whatever the top level says.
    const nested = callTree([selfCall([selfCall([approveAll], zero)])], account, {
      runsCode: true,
      zeroIsSelf: false,
    })
    expect(callTreeWarnings(nested).map((warning) => warning.code)).toEqual([
      'calls.self_call',
      'erc20.unlimited_approval',
    ])
    const inert = callTree([selfCall([approveAll])], account, { runsCode: false, zeroIsSelf: false })
    expect(inert.nodes[0]).toMatchObject({ self: true, inert: true })
    expect(callTreeWarnings(inert)).toEqual([])
    expect(JSON.stringify(callTreeItems(inert, 'ETH'))).toContain(
      '{"label":"Runs","value":"nothing: your account has no code"}',
    )
  })

  it('flags a Permit2 approve and a submitted ERC-2612 permit inside a batch as it does outside one', () => {
    const permit2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
    const other = '0x1111111111111111111111111111111111111111'
    const permit2Approve = {
      to: permit2,
      value: 0n,
      data: encodeFunctionData({
        abi: parseAbi([
          'function approve(address token, address spender, uint160 amount, uint48 expiration)',
        ]),
        functionName: 'approve',
        args: [token, other, 2n ** 160n - 1n, 0],
      }),
    } as const
    const permitCall = {
      to: token,
      value: 0n,
      data: encodeFunctionData({
        abi: parseAbi([
          'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
        ]),
        functionName: 'permit',
        args: [account, other, maxUint256, 0n, 27, `0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`],
      }),
    } as const
    const tree = callTree([selfCall([permit2Approve, permitCall])], account, {
      runsCode: true,
      zeroIsSelf: true,
    })
    expect(tree.undecoded).toEqual([])
    const nested = callTreeWarnings(tree).filter((warning) => warning.code === 'erc20.unlimited_approval')
    expect(nested.map((warning) => warning.message)).toEqual([
      expect.stringMatching(
        /^Nested call 1\.1: Grants 0x1111111111111111111111111111111111111111 an unlimited allowance \(Permit2's uint160 maximum\)/,
      ),
      expect.stringMatching(
        /^Nested call 1\.2: Grants 0x1111111111111111111111111111111111111111 an unlimited allowance to spend the tokens of /,
      ),
    ])
  })

  it('nested warnings say where they sit', () => {
    const tree = callTree([approveAll, selfCall([approveAll])], account, { runsCode: true, zeroIsSelf: true })
    expect(callTreeWarnings(tree).map((warning) => warning.message)).toEqual([
      "The site's calls include calls to your own account that make it run more calls (call 2 runs 1 more): they are shown nested under the call that runs them, and each runs with your account's full authority.",
      `Grants ${spender} an unlimited allowance to spend your tokens of ${token}.`,
      `Nested call 2.1: Grants ${spender} an unlimited allowance to spend your tokens of ${token}.`,
    ])
  })
})
