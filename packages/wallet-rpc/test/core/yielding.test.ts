import { describe, expect, it } from 'vitest'
import { nextTurn, timeSlicer } from '../../src/core/yielding.js'
import { harness, kitTransaction, ours } from '../solana/helpers.js'
import { countTurns } from './countTurns.js'

/**
 * Long requests give the event loop turns (core/yielding.ts) without changing what they answer: the
 * answers of requests run side by side equal those of the same requests run one after the other, in order,
 * and other tasks run while a large request is in progress. Nothing here is timed.
 */
describe('yielding', () => {
  it('nextTurn resolves after tasks queued before it have run', async () => {
    const ran: string[] = []
    setImmediate(() => ran.push('immediate'))
    setTimeout(() => ran.push('timer'), 0)
    await nextTurn()
    expect(ran).toContain('immediate')
  })

  it('a time slicer with no budget pauses every time, and the loop still sees every item in order', async () => {
    const pause = timeSlicer(0)
    const seen: number[] = []
    const stopCounting = countTurns()
    for (let i = 0; i < 5; i++) {
      await pause()
      seen.push(i)
    }
    expect(seen).toEqual([0, 1, 2, 3, 4])
    expect(stopCounting()).toBeGreaterThan(1)
  })

  it('solana_signAllTransactions side by side: the same answers as one after the other, other tasks run meanwhile', async () => {
    // Alternating fee payers (both accounts of the wallet), so the answers differ from one position to the next.
    const batch = (count: number, offset: number) =>
      Array.from({ length: count }, (_, i) => kitTransaction({ feePayer: ours((i + offset) % 2) }).base64)
    const first = batch(400, 0)
    const second = batch(399, 1)
    const alone = harness({ policy: { maxTransactions: 1000 } })
    const expectedFirst = await alone.result('solana_signAllTransactions', { transactions: first })
    const expectedSecond = await alone.result('solana_signAllTransactions', { transactions: second })

    const together = harness({ policy: { maxTransactions: 1000 } })
    const stopCounting = countTurns()
    const [a, b] = await Promise.all([
      together.result('solana_signAllTransactions', { transactions: first }),
      together.result('solana_signAllTransactions', { transactions: second }),
    ])
    const turns = stopCounting()
    expect(a).toEqual(expectedFirst)
    expect(b).toEqual(expectedSecond)
    expect(turns).toBeGreaterThan(1)
    // Both were reviewed, once each; which review comes first depends on how the two interleaved.
    expect(together.reviews.map((review) => review.title).sort()).toEqual([
      'Sign 399 transactions',
      'Sign 400 transactions',
    ])
  })
})
