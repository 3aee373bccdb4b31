import { encodeAbiParameters, encodeFunctionData, type Hex, keccak256, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { verifyWalletSendCalls } from '../../src/verify/index.js'
import { devAccounts, devSigner, pragueChainPerFile } from '../eip155/eip7702/pragueChain.js'

/**
 * `verifyWalletSendCalls` against answers of two implementations: batches our wallet sent on anvil (prague),
 * and an atomic batch built with viem alone (its `signAuthorization`, `encodeFunctionData` and
 * `signTransaction`), as another EIP-7702 wallet would send it; then each answer altered in one way.
 */
const recipient: Hex = '0x00000000000000000000000000000000000b0e01'
const other: Hex = '0x00000000000000000000000000000000000b0e02'
const suffix = '0x8021802180218021'

const prague = pragueChainPerFile()

type Sent = { id: string; capabilities: { caip345: { caip2: string; transactionHashes: Hex[] } } }

const request = (
  from: string,
  atomicRequired: boolean,
  extra: Record<string, unknown> = {},
): [Record<string, unknown>] => [
  {
    version: '2.0.0',
    chainId: prague().hexChainId,
    from,
    atomicRequired,
    calls: [
      { to: recipient, value: '0x5' },
      { to: other, value: '0x7', data: '0x1234' },
    ],
    ...extra,
  },
]

const rawsOf = (sent: Sent) =>
  Promise.all(
    sent.capabilities.caip345.transactionHashes.map(
      async (hash) => (await prague().rpc('eth_getRawTransactionByHash', [hash])) as Hex,
    ),
  )

describe('verifyWalletSendCalls', () => {
  it("our wallet's atomic batch (upgrade, ERC-8021 suffix) verifies; each alteration fails", async () => {
    const params = request(devAccounts[1], true, {
      id: 'verify-1',
      capabilities: { dataSuffix: { value: suffix } },
    })
    const sent = await prague().wallet([1]).result<Sent>('wallet_sendCalls', params)
    const rawTransactions = await rawsOf(sent)
    const options = { chainId: prague().anvil.chainId, rawTransactions }
    expect(verifyWalletSendCalls(params, sent, options)).toEqual({ valid: true })
    expect(verifyWalletSendCalls(params, sent, { ...options, delegate: prague().delegate })).toEqual({
      valid: true,
    })
    // Shape only, without the transactions.
    expect(verifyWalletSendCalls(params, sent, { chainId: prague().anvil.chainId })).toEqual({ valid: true })

    const fails = (p: unknown, r: unknown, o: Parameters<typeof verifyWalletSendCalls>[2], reason: string) =>
      expect(verifyWalletSendCalls(p, r, o)).toMatchObject({
        valid: false,
        reason: expect.stringContaining(reason),
      })
    const [batch] = params
    fails(
      [{ ...batch, calls: [{ to: recipient, value: '0x6' }, (batch.calls as unknown[])[1]] }],
      sent,
      options,
      'call 0 sends 5, not 6',
    )
    fails([{ ...batch, capabilities: {} }], sent, options, 'call')
    fails([{ ...batch, from: devAccounts[2] }], sent, options, `not ${devAccounts[2]}`)
    fails(params, { ...sent, id: 'other' }, options, 'is not the requested verify-1')
    fails(params, sent, { ...options, chainId: 1 }, "is not the request's chain 1")
    fails(params, sent, { ...options, delegate: other }, `not ${other}`)
    fails(
      params,
      {
        ...sent,
        capabilities: { caip345: { ...sent.capabilities.caip345, transactionHashes: [keccak256('0x01')] } },
      },
      options,
      'is not keccak256',
    )
  })

  it("our wallet's sequential batch verifies; swapped order, atomicRequired and a missing suffix fail", async () => {
    const params = request(devAccounts[2], false, { capabilities: { dataSuffix: { value: suffix } } })
    const sent = await prague().wallet([2], { delegate: false }).result<Sent>('wallet_sendCalls', params)
    const rawTransactions = await rawsOf(sent)
    expect(rawTransactions).toHaveLength(2)
    const options = { chainId: prague().anvil.chainId, rawTransactions }
    expect(verifyWalletSendCalls(params, sent, options)).toEqual({ valid: true })
    const [batch] = params
    const shapeOnly = { ...sent, capabilities: {} }
    expect(
      verifyWalletSendCalls(params, shapeOnly, { ...options, rawTransactions: rawTransactions.toReversed() }),
    ).toMatchObject({ valid: false, reason: expect.stringContaining('transaction 0 goes to') })
    expect(verifyWalletSendCalls([{ ...batch, atomicRequired: true }], sent, options)).toMatchObject({
      valid: false,
      reason: expect.stringContaining('atomicRequired'),
    })
    expect(verifyWalletSendCalls([{ ...batch, capabilities: {} }], sent, options)).toMatchObject({
      valid: false,
      reason: expect.stringContaining('data is not the requested'),
    })
  })

  it('an atomic batch built with viem alone verifies; an authorization for chain 0 fails', async () => {
    const account = devSigner(3)
    const calls = [
      { target: recipient, value: 5n, callData: '0x' as Hex },
      { target: other, value: 7n, callData: '0x1234' as Hex },
    ]
    const data = encodeFunctionData({
      abi: [
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
      ],
      functionName: 'execute',
      args: [
        `0x01${'0'.repeat(62)}`,
        encodeAbiParameters(
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
          [calls],
        ),
      ],
    })
    const signed = (authorizationChainId: number) =>
      account.signAuthorization!({
        chainId: authorizationChainId,
        address: prague().delegate,
        nonce: 1,
      }).then((authorization) =>
        account.signTransaction({
          type: 'eip7702',
          chainId: prague().anvil.chainId,
          nonce: 0,
          to: account.address,
          data,
          gas: 200_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 10n ** 9n,
          authorizationList: [authorization],
        }),
      )
    const params = request(account.address, true)
    const raw = await signed(prague().anvil.chainId)
    const answer = {
      id: '0x01',
      capabilities: {
        caip345: { caip2: `eip155:${prague().anvil.chainId}`, transactionHashes: [keccak256(raw)] },
      },
    }
    expect(
      verifyWalletSendCalls(params, answer, { chainId: prague().anvil.chainId, rawTransactions: [raw] }),
    ).toEqual({
      valid: true,
    })
    const everyChain = await signed(0)
    expect(
      verifyWalletSendCalls(
        params,
        { id: '0x01' },
        { chainId: prague().anvil.chainId, rawTransactions: [everyChain] },
      ),
    ).toMatchObject({ valid: false, reason: expect.stringContaining('every chain') })
    expect(toHex(prague().anvil.chainId)).toBe(prague().hexChainId)
  })
})
