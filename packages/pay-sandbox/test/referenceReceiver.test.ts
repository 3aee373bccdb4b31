import { describe, expect, it } from 'vitest'
import { WebhookInbox } from '../src/receiver.js'

const event = (id: string, paymentId: string, version: number, status: string) => ({
  id,
  data: { payment_id: paymentId, payment_state_version: version, status },
})

describe('reference receiver (WebhookInbox)', () => {
  it('out of order: the highest payment_state_version wins, older ones are stale', () => {
    const inbox = new WebhookInbox()
    expect(inbox.accept(event('evt_3', 'pay_1', 3, 'succeeded'))).toBe('new')
    expect(inbox.accept(event('evt_1', 'pay_1', 1, 'processing'))).toBe('stale')
    expect(inbox.accept(event('evt_0', 'pay_1', 0, 'requires_action'))).toBe('stale')
    expect(inbox.accept(event('evt_2', 'pay_1', 2, 'succeeded'))).toBe('stale')
    expect(inbox.snapshot('pay_1')).toMatchObject({ payment_state_version: 3, status: 'succeeded' })
  })

  it('duplicates are acknowledged once by event id, even when they would be newer than nothing', () => {
    const inbox = new WebhookInbox()
    expect(inbox.accept(event('evt_a', 'pay_2', 0, 'requires_action'))).toBe('new')
    expect(inbox.accept(event('evt_a', 'pay_2', 0, 'requires_action'))).toBe('duplicate')
    expect(inbox.accept(event('evt_b', 'pay_2', 1, 'processing'))).toBe('new')
    expect(inbox.accept(event('evt_b', 'pay_2', 1, 'processing'))).toBe('duplicate')
    expect(inbox.hasSeen('evt_a')).toBe(true)
  })

  it('version 0 is a real version: a first event with version 0 is applied ("no version yet" is absence)', () => {
    const inbox = new WebhookInbox()
    expect(inbox.snapshot('pay_3')).toBeUndefined()
    expect(inbox.accept(event('evt_x', 'pay_3', 0, 'requires_action'))).toBe('new')
    expect(inbox.snapshot('pay_3')).toMatchObject({ payment_state_version: 0 })
  })

  it('a shuffled, duplicated stream over several payments converges to the latest snapshot of each', () => {
    const stream = [
      event('e2', 'pay_A', 2, 'succeeded'),
      event('e5', 'pay_B', 1, 'failed'),
      event('e0', 'pay_A', 0, 'requires_action'),
      event('e3', 'pay_A', 3, 'succeeded'),
      event('e2', 'pay_A', 2, 'succeeded'),
      event('e4', 'pay_B', 0, 'requires_action'),
      event('e1', 'pay_A', 1, 'processing'),
      event('e5', 'pay_B', 1, 'failed'),
    ]
    const inbox = new WebhookInbox()
    const outcomes = stream.map((entry) => inbox.accept(entry))
    expect(outcomes).toEqual(['new', 'new', 'stale', 'new', 'duplicate', 'stale', 'stale', 'duplicate'])
    expect(inbox.snapshot('pay_A')).toMatchObject({ payment_state_version: 3 })
    expect(inbox.snapshot('pay_B')).toMatchObject({ payment_state_version: 1, status: 'failed' })
  })
})
