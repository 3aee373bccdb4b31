import type { Account } from '../types.js'

/**
 * UTXOs and change addresses held by transfers in flight, per account, so concurrent sendTransfer calls
 * never pick the same coin or the same fresh change address. A hold is taken in `plan` (synchronously,
 * right after coin selection) and ends when the transfer is broadcast (then the coins stay marked spent
 * until the chain stops reporting them), fails or is declined (released: sendTransfer's `abandon`), or
 * is never finished (expires after `reservationMs`, checked lazily, no timers).
 */

export type Hold = {
  readonly id: number
  outpoints: string[]
  changeIndex: number | undefined
  expiresAt: number
  state: 'held' | 'spent' | 'released'
}

export type ReservationBook = {
  /** Is `outpoint` unavailable to a new transfer at `now`? */
  isTaken(outpoint: string, now: number): boolean
  /** The first change index ≥ `firstUnused` no live hold or recent spend uses. */
  freeChangeIndex(firstUnused: number, now: number): number
  /** Takes `changeIndex` (if any) now; coins are added with `take` once selected. */
  hold(changeIndex: number | undefined, until: number): Hold
  take(hold: Hold, outpoints: readonly string[]): void
  /** Still ours? Extends it to `until` when so; false when it expired and another transfer took over. */
  renew(hold: Hold, until: number): boolean
  release(hold: Hold): void
  /** Frees the hold's change index only (the transfer turned out to need no change). */
  releaseChangeIndex(hold: Hold): void
  /** Broadcast: the coins are gone; keep them out of selection until the chain agrees (or `until`). */
  spent(hold: Hold, until: number): void
  /** Forget spent coins the chain no longer lists. */
  prune(listed: ReadonlySet<string>): void
}

/**
 * Coins a broadcast spent outside a sendTransfer hold (a broadcasting signPsbt, a transaction the request journal
 * sent again after a restart): kept out of selection until the chain stops listing them, or `until`.
 */
export function markSpent(account: Account, outpoints: readonly string[], until: number): void {
  const book = reservationsOf(account)
  const hold = book.hold(undefined, until)
  book.take(hold, outpoints)
  book.spent(hold, until)
}

const books = new WeakMap<Account, ReservationBook>()

export function reservationsOf(account: Account): ReservationBook {
  let book = books.get(account)
  if (!book) {
    book = createReservationBook()
    books.set(account, book)
  }
  return book
}

export function createReservationBook(): ReservationBook {
  let nextId = 1
  const byOutpoint = new Map<string, Hold>()
  const byChangeIndex = new Map<number, Hold>()
  const live = (hold: Hold | undefined, now: number): hold is Hold =>
    hold !== undefined && hold.state !== 'released' && hold.expiresAt > now

  return {
    isTaken: (outpoint, now) => live(byOutpoint.get(outpoint), now),

    freeChangeIndex(firstUnused, now) {
      let index = firstUnused
      while (live(byChangeIndex.get(index), now)) index++
      return index
    },

    hold(changeIndex, until) {
      const hold: Hold = { id: nextId++, outpoints: [], changeIndex, expiresAt: until, state: 'held' }
      if (changeIndex !== undefined) byChangeIndex.set(changeIndex, hold)
      return hold
    },

    take(hold, outpoints) {
      for (const outpoint of outpoints) {
        hold.outpoints.push(outpoint)
        byOutpoint.set(outpoint, hold)
      }
    },

    renew(hold, until) {
      if (hold.state !== 'held') return false
      const takenOver =
        hold.outpoints.some((outpoint) => byOutpoint.get(outpoint) !== hold) ||
        (hold.changeIndex !== undefined && byChangeIndex.get(hold.changeIndex) !== hold)
      // An expired hold whose coins nobody took is simply taken again.
      if (takenOver) return false
      hold.expiresAt = until
      return true
    },

    release(hold) {
      hold.state = 'released'
      for (const outpoint of hold.outpoints)
        if (byOutpoint.get(outpoint) === hold) byOutpoint.delete(outpoint)
      if (hold.changeIndex !== undefined && byChangeIndex.get(hold.changeIndex) === hold) {
        byChangeIndex.delete(hold.changeIndex)
      }
    },

    releaseChangeIndex(hold) {
      if (hold.changeIndex !== undefined && byChangeIndex.get(hold.changeIndex) === hold) {
        byChangeIndex.delete(hold.changeIndex)
      }
      hold.changeIndex = undefined
    },

    spent(hold, until) {
      hold.state = 'spent'
      hold.expiresAt = until
    },

    prune(listed) {
      for (const [outpoint, hold] of byOutpoint) {
        if (hold.state === 'spent' && !listed.has(outpoint)) byOutpoint.delete(outpoint)
      }
    },
  }
}
