import type { Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { errorOf, minedReceipt } from '../helpers.js'
import { devAccounts, devSigner, type PragueChain, pragueChainPerFile } from './pragueChain.js'

/**
 * `wallet_getCallsStatus` for every EIP-5792 outcome, on anvil (prague) with real transactions: a call that
 * reverts when mined (its target gets reverting code between approval and broadcast, through the wallet's
 * own `approve`), and a batch transaction whose nonce another transaction takes (anvil with automine off,
 * a replacement with higher fees, then one block).
 */
const reverting = '0x60006000fd' // PUSH1 0 PUSH1 0 REVERT

const prague = pragueChainPerFile()

type Sent = { id: string; capabilities: { caip345: { transactionHashes: Hex[] } } }

/** A wallet on dev account `index` whose approval first gives `traps` reverting code. */
const trappingWallet = (index: number, traps: Hex[], delegate: boolean) =>
  prague().wallet([index], {
    delegate,
    approve: async () => {
      for (const trap of traps) await prague().rpc('anvil_setCode', [trap, reverting])
      return true
    },
  })

async function statusOf(wallet: ReturnType<PragueChain['wallet']>, sent: Sent) {
  for (const hash of sent.capabilities.caip345.transactionHashes) await minedReceipt(prague().chain, hash)
  return wallet.result<{ status: number; atomic: boolean; receipts: { status: string }[] }>(
    'wallet_getCallsStatus',
    [sent.id],
  )
}

const batch = (from: string, atomicRequired: boolean, calls: { to: Hex; value: Hex }[]) => [
  { version: '2.0.0', chainId: prague().hexChainId, from, atomicRequired, calls },
]

describe('wallet_getCallsStatus on anvil (prague)', () => {
  it('600: a sequential batch whose second call reverts on chain; the first took effect', async () => {
    const paid = '0x00000000000000000000000000000000000b0600'
    const trap = '0x000000000000000000000000000000000000c600'
    const wallet = trappingWallet(4, [trap], false)
    const sent = await wallet.result<Sent>(
      'wallet_sendCalls',
      batch(devAccounts[4], false, [
        { to: paid, value: '0x5' },
        { to: trap, value: '0x1' },
      ]),
    )
    const status = await statusOf(wallet, sent)
    expect(status).toMatchObject({ status: 600, atomic: false })
    expect(status.receipts.map((receipt) => receipt.status)).toEqual(['0x1', '0x0'])
    expect(await prague().chain.getBalance({ address: paid })).toBe(5n)
  })

  it('500: an atomic batch (ERC-7821 execute) whose second call reverts: nothing took effect', async () => {
    const paid = '0x00000000000000000000000000000000000b0500'
    const trap = '0x000000000000000000000000000000000000c500'
    const wallet = trappingWallet(5, [trap], true)
    const sent = await wallet.result<Sent>(
      'wallet_sendCalls',
      batch(devAccounts[5], true, [
        { to: paid, value: '0x5' },
        { to: trap, value: '0x1' },
      ]),
    )
    const status = await statusOf(wallet, sent)
    expect(status).toMatchObject({ status: 500, atomic: true })
    expect(status.receipts.map((receipt) => receipt.status)).toEqual(['0x0'])
    expect(await prague().chain.getBalance({ address: paid })).toBe(0n)
  })

  it('500: a sequential batch whose every call reverts on chain', async () => {
    const traps: Hex[] = [
      '0x000000000000000000000000000000000000c501',
      '0x000000000000000000000000000000000000c502',
    ]
    const wallet = trappingWallet(6, traps, false)
    const sent = await wallet.result<Sent>(
      'wallet_sendCalls',
      batch(
        devAccounts[6],
        false,
        traps.map((to) => ({ to, value: '0x1' })),
      ),
    )
    const status = await statusOf(wallet, sent)
    expect(status).toMatchObject({ status: 500, atomic: false })
    expect(status.receipts.map((receipt) => receipt.status)).toEqual(['0x0', '0x0'])
  })

  it('100 while pending, 400 once another transaction took its nonce; the next batch leaves no gap', async () => {
    const from = devAccounts[7]
    const wallet = prague().wallet([7])
    const nonce = await prague().chain.getTransactionCount({ address: from })
    await prague().rpc('evm_setAutomine', [false])
    let sent: Sent
    try {
      // The first atomic batch upgrades the account: nonce n, authorization n + 1.
      sent = await wallet.result<Sent>(
        'wallet_sendCalls',
        batch(from, true, [{ to: '0x00000000000000000000000000000000000b0400', value: '0x1' }]),
      )
      expect((await wallet.result<{ status: number }>('wallet_getCallsStatus', [sent.id])).status).toBe(100)
      // The same nonce, sent by the same key from elsewhere with higher fees: it replaces the batch.
      const replacement = await devSigner(7).signTransaction({
        type: 'eip1559',
        chainId: prague().anvil.chainId,
        nonce,
        to: from,
        gas: 21_000n,
        maxFeePerGas: 10n ** 12n,
        maxPriorityFeePerGas: 10n ** 11n,
      })
      await prague().rpc('eth_sendRawTransaction', [replacement])
      await prague().rpc('evm_mine', [])
    } finally {
      await prague().rpc('evm_setAutomine', [true])
    }
    expect(await prague().chain.getTransactionCount({ address: from })).toBe(nonce + 1)
    const status = await wallet.result<{ status: number; receipts: unknown[] }>('wallet_getCallsStatus', [
      sent.id,
    ])
    expect(status).toMatchObject({ status: 400, receipts: [] })
    expect(await prague().chain.getCode({ address: from })).toBeUndefined()
    // The authorization's nonce (n + 1) was never used: the next batch takes it and mines.
    const next = await wallet.result<Sent>(
      'wallet_sendCalls',
      batch(from, true, [{ to: '0x00000000000000000000000000000000000b0401', value: '0x1' }]),
    )
    const [hash] = next.capabilities.caip345.transactionHashes
    expect((await prague().chain.getTransaction({ hash: hash! })).nonce).toBe(nonce + 1)
    expect(await statusOf(wallet, next)).toMatchObject({ status: 200 })
    expect(await prague().chain.getTransactionCount({ address: from })).toBe(nonce + 3)
  })

  it('an unknown id is still 5730', async () => {
    expect(errorOf(await prague().wallet([0]).call('wallet_getCallsStatus', ['0x1234'])).code).toBe(5730)
  })
})
