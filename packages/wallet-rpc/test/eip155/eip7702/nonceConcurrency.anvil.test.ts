import type { Hex } from 'viem'
import { expect, it } from 'vitest'
import type { Review } from '../../../src/core/review.js'
import { errorOf, minedReceipt } from '../helpers.js'
import { devAccounts, pragueChainPerFile } from './pragueChain.js'

/**
 * Nonces of concurrent requests from one account, on anvil (prague): two atomic batches that both upgrade
 * the account (each a type-4 transaction at nonce n with its authorization at n + 1), a plain
 * `eth_sendTransaction` and a batch the user refuses, all approved at the same moment. Every nonce is used
 * once and none is skipped: the account's mined count ends exactly at the number of nonces sent.
 */
const prague = pragueChainPerFile()

type Sent = { id: string; capabilities: { caip345: { transactionHashes: Hex[] } } }

it('two upgrading batches, a send and a refused batch approved together: distinct nonces, no gap', async () => {
  const from = devAccounts[8]
  const recipient = '0x00000000000000000000000000000000000b0c01'
  const requests = 4
  const asked: Review[] = []
  let release: () => void = () => {}
  const allAsked = new Promise<void>((resolve) => {
    release = resolve
  })
  const wallet = prague().wallet([8], {
    approve: async (review) => {
      asked.push(review)
      if (asked.length === requests) release()
      await allAsked
      return review.title !== 'Send 3 calls (one atomic transaction)'
    },
  })
  const batch = (calls: number) =>
    wallet.call('wallet_sendCalls', [
      {
        version: '2.0.0',
        chainId: prague().hexChainId,
        from,
        atomicRequired: true,
        calls: Array.from({ length: calls }, (_, index) => ({ to: recipient, value: `0x${index + 1}` })),
      },
    ])
  const start = await prague().chain.getTransactionCount({ address: from })
  const [first, second, send, refused] = await Promise.all([
    batch(2),
    batch(1),
    wallet.call('eth_sendTransaction', [{ from, to: recipient, value: '0x9' }]),
    batch(3),
  ])
  expect(
    asked.filter((review) => review.warnings.some((w) => w.code === 'eip7702.account_upgrade')),
  ).toHaveLength(3)
  // It asked for the upgrade too, and atomicity was required: 5750 (rejected upgrade).
  expect(errorOf(refused!).code).toBe(5750)
  const hashes = [
    ...(first!.result as Sent).capabilities.caip345.transactionHashes,
    ...(second!.result as Sent).capabilities.caip345.transactionHashes,
    send!.result as Hex,
  ]
  const used: number[] = []
  for (const hash of hashes) {
    expect((await minedReceipt(prague().chain, hash)).status).toBe('success')
    const transaction = await prague().chain.getTransaction({ hash })
    used.push(transaction.nonce, ...(transaction.authorizationList ?? []).map((auth) => auth.nonce))
  }
  // Two type-4 transactions (nonce + authorization each) and one plain send: five nonces, each once.
  expect(used.toSorted((a, b) => a - b)).toEqual([start, start + 1, start + 2, start + 3, start + 4])
  expect(await prague().chain.getTransactionCount({ address: from })).toBe(start + 5)
  expect(await prague().chain.getTransactionCount({ address: from, blockTag: 'pending' })).toBe(start + 5)
  for (const batchResponse of [first!, second!])
    expect(
      await wallet.result<{ status: number }>('wallet_getCallsStatus', [(batchResponse.result as Sent).id]),
    ).toMatchObject({ status: 200 })
  expect(await prague().chain.getCode({ address: from })).toBe(
    `0xef0100${prague().delegate.slice(2).toLowerCase()}`,
  )
  // And the next send takes the very next nonce.
  const next = await wallet.result<Hex>('eth_sendTransaction', [{ from, to: recipient, value: '0x1' }])
  expect((await minedReceipt(prague().chain, next)).status).toBe('success')
  expect((await prague().chain.getTransaction({ hash: next })).nonce).toBe(start + 5)
})
