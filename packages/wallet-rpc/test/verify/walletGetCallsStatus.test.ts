import type { Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { type ChainReceipt, verifyWalletGetCallsStatus } from '../../src/verify/index.js'
import { devAccounts, pragueChainPerFile } from '../eip155/eip7702/pragueChain.js'
import { minedReceipt } from '../eip155/helpers.js'

/**
 * `verifyWalletGetCallsStatus` against our wallet's answers on anvil (prague), checked with the chain's own
 * receipts: an atomic batch (200) and a sequential batch whose second call reverts on chain (600); then
 * each answer altered.
 */
const prague = pragueChainPerFile()

type Sent = { id: string; capabilities: { caip345: { transactionHashes: Hex[] } } }
type Status = Record<string, unknown> & { status: number; receipts: Record<string, unknown>[] }

async function sendAndRead(
  index: number,
  atomicRequired: boolean,
  calls: { to: Hex; value: Hex }[],
  traps: Hex[] = [],
) {
  const wallet = prague().wallet([index], {
    delegate: atomicRequired,
    // Between approval and broadcast the traps get code that reverts (PUSH1 0 PUSH1 0 REVERT).
    approve: async () => {
      for (const trap of traps) await prague().rpc('anvil_setCode', [trap, '0x60006000fd'])
      return true
    },
  })
  const params = [
    { version: '2.0.0', chainId: prague().hexChainId, from: devAccounts[index], atomicRequired, calls },
  ]
  const sent = await wallet.result<Sent>('wallet_sendCalls', params)
  const hashes = sent.capabilities.caip345.transactionHashes
  for (const hash of hashes) await minedReceipt(prague().chain, hash)
  const chainReceipts = await Promise.all(
    hashes.map(async (hash) => (await prague().rpc('eth_getTransactionReceipt', [hash])) as ChainReceipt),
  )
  const status = await wallet.result<Status>('wallet_getCallsStatus', [sent.id])
  return { id: sent.id, status, options: { chainId: prague().anvil.chainId, chainReceipts } }
}

describe('verifyWalletGetCallsStatus', () => {
  it('an atomic batch: 200 verifies against the chain; a changed status, receipt or id fails', async () => {
    const { id, status, options } = await sendAndRead(1, true, [
      { to: '0x00000000000000000000000000000000000b0f01', value: '0x1' },
    ])
    expect(status.status).toBe(200)
    expect(verifyWalletGetCallsStatus([id], status, options)).toEqual({ valid: true })
    const fails = (result: unknown, reason: string, params: unknown = [id]) =>
      expect(verifyWalletGetCallsStatus(params, result, options)).toMatchObject({
        valid: false,
        reason: expect.stringContaining(reason),
      })
    fails({ ...status, status: 500 }, 'status 500')
    fails({ ...status, status: 400 }, 'status 400')
    fails({ ...status, status: 300 }, 'is not one of')
    fails(
      { ...status, receipts: [{ ...status.receipts[0], gasUsed: '0x1' }] },
      "gasUsed 0x1 is not the chain's",
    )
    fails({ ...status, status: 100, receipts: [] }, "the chain has mined 1 of the batch's transactions")
    fails(status, 'is not the asked', ['0x99'])
    fails({ ...status, chainId: '0x1' }, "is not the batch's chain")
  })

  it('a sequential batch whose second call reverted: 600 verifies; 200 or 500 for it fails', async () => {
    const { id, status, options } = await sendAndRead(
      2,
      false,
      [
        { to: '0x00000000000000000000000000000000000b0f02', value: '0x1' },
        { to: '0x000000000000000000000000000000000000c0f1', value: '0x1' },
      ],
      ['0x000000000000000000000000000000000000c0f1'],
    )
    expect(status).toMatchObject({ status: 600, atomic: false })
    expect(verifyWalletGetCallsStatus([id], status, options)).toEqual({ valid: true })
    expect(verifyWalletGetCallsStatus([id], { ...status, status: 200 }, options)).toMatchObject({
      valid: false,
    })
    expect(verifyWalletGetCallsStatus([id], { ...status, status: 500 }, options)).toMatchObject({
      valid: false,
    })
    expect(verifyWalletGetCallsStatus([id], { ...status, atomic: true }, options)).toMatchObject({
      valid: false,
    })
  })

  it('without the chain: a dropped batch (400, no receipts) and a pending one (100) are consistent', () => {
    const answer = (status: number) => ({
      version: '2.0.0',
      id: '0x01',
      chainId: '0x7a69',
      status,
      atomic: true,
      receipts: [],
    })
    expect(verifyWalletGetCallsStatus(['0x01'], answer(400), { chainId: 31337 })).toEqual({ valid: true })
    expect(verifyWalletGetCallsStatus(['0x01'], answer(100), { chainId: 31337 })).toEqual({ valid: true })
    expect(verifyWalletGetCallsStatus(['0x01'], answer(200), { chainId: 31337 })).toMatchObject({
      valid: false,
    })
  })
})
