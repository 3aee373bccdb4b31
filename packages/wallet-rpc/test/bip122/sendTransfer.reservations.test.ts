import { describe, expect, it } from 'vitest'
import { createReservationBook } from '../../src/bip122/transaction/reservations.js'

describe('sendTransfer reservation book', () => {
  it('a held coin is taken until the hold expires, is released, or is spent and pruned', () => {
    const book = createReservationBook()
    const hold = book.hold(undefined, 1_000)
    book.take(hold, ['a:0', 'b:1'])
    expect(book.isTaken('a:0', 500)).toBe(true)
    expect(book.isTaken('c:0', 500)).toBe(false)
    expect(book.isTaken('a:0', 1_000)).toBe(false) // expired
    book.release(hold)
    expect(book.isTaken('b:1', 0)).toBe(false)

    const sent = book.hold(undefined, 1_000)
    book.take(sent, ['d:0'])
    book.spent(sent, 10_000)
    expect(book.isTaken('d:0', 5_000)).toBe(true) // spent coins stay out of selection
    book.prune(new Set(['d:0'])) // the chain still lists it: kept
    expect(book.isTaken('d:0', 5_000)).toBe(true)
    book.prune(new Set()) // the chain stopped listing it: forgotten
    expect(book.isTaken('d:0', 5_000)).toBe(false)
  })

  it('change indexes: concurrent transfers get distinct ones; a transfer without change gives its index back', () => {
    const book = createReservationBook()
    const first = book.hold(book.freeChangeIndex(3, 0), 1_000)
    const second = book.hold(book.freeChangeIndex(3, 0), 1_000)
    expect([first.changeIndex, second.changeIndex]).toEqual([3, 4])
    book.releaseChangeIndex(first)
    expect(book.freeChangeIndex(3, 0)).toBe(3)
    book.release(second)
    expect(book.freeChangeIndex(3, 0)).toBe(3)
  })

  it('renew: an expired hold nobody took is taken again; one whose coin went to another transfer is not', () => {
    const book = createReservationBook()
    const late = book.hold(undefined, 1_000)
    book.take(late, ['a:0'])
    expect(book.renew(late, 3_000)).toBe(true)
    expect(book.isTaken('a:0', 2_500)).toBe(true)

    const slow = book.hold(undefined, 1_000)
    book.take(slow, ['b:0'])
    const fast = book.hold(undefined, 5_000) // after `slow` expired, another transfer took b:0
    book.take(fast, ['b:0'])
    expect(book.renew(slow, 3_000)).toBe(false)
    book.release(slow) // releasing the loser must not free the winner's coin
    expect(book.isTaken('b:0', 2_000)).toBe(true)
  })
})
