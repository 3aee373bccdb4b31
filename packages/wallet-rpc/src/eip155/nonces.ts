import type { NonceRange, NonceReservation } from './types.js'

export type { NonceRange, NonceReservation } from './types.js'

type Slot = {
  /** Nonces of sends handed out and not yet settled. */
  reserved: Set<number>
  /** Nonces this wallet broadcast that the chain's pending count may not show yet (a lagging node). */
  broadcast: Set<number>
  /** Authorization nonces of our broadcast self-sponsored EIP-7702 transactions → the transaction's nonce. */
  authorizations: Map<number, number>
  /** Reservations are served one after another so concurrent requests never share a nonce. */
  queue: Promise<unknown>
}

/**
 * Per-(chain, account) nonces for transactions this wallet fills.
 *
 * Every reservation re-reads the chain's pending transaction count, so the wallet's view never outlives the
 * chain's: a send from another device, a dropped transaction or a "nonce too low" is absorbed by the next
 * request instead of failing every later one. Above that count it skips the nonces of sends still in flight
 * and of its own broadcasts the node does not count yet, so 50 concurrent sends get 50 distinct nonces.
 *
 * A nonce for a transaction that is only signed (`eth_signTransaction`, `broadcast: false`) is computed the
 * same way but never held: a signed-but-never-broadcast transaction cannot leave a gap that stalls every
 * later send. If the dapp broadcasts it after we sent another with that nonce, the node refuses it cleanly
 * ("nonce too low").
 */
export class NonceManager {
  readonly #slots = new Map<string, Slot>()

  reserve(
    key: string,
    readPending: () => Promise<number>,
    options: { broadcast?: boolean; readMined?: () => Promise<number> } = {},
  ): Promise<NonceReservation> {
    if (options.broadcast === false)
      return this.#serve(key, async (slot) => ({
        nonce: await firstFree(slot, readPending, options.readMined, 1),
        settle: () => {},
      }))
    return this.reserveRange(key, readPending, 1, options).then((range) => ({
      nonce: range.first,
      settle: (broadcast: boolean) => range.settle(broadcast ? 1 : 0),
    }))
  }

  /**
   * `count` consecutive nonces no other reservation holds: the transactions of one sequential batch, or a
   * self-sponsored EIP-7702 transaction and its authorization (`authorization: true`: the last nonce is the
   * authorization's, the transaction's + 1), so no concurrent send can take a nonce in between.
   * `settle(used)` keeps the first `used` as broadcast and gives the rest back.
   *
   * A broadcast authorization nonce is held only while its transaction may still be mined: a node counts
   * the pending type-4 transaction but not the nonce its authorization will use, so without the hold the
   * next send would take it and fail once the batch is mined. When the account's mined count passes the
   * transaction's nonce without using the authorization's (another transaction took that nonce: a
   * replacement), the hold is dropped, so no gap stays. That needs `readMined`, read only while a hold
   * exists.
   */
  reserveRange(
    key: string,
    readPending: () => Promise<number>,
    count: number,
    options: { authorization?: boolean; readMined?: () => Promise<number> } = {},
  ): Promise<NonceRange> {
    return this.#serve(key, async (slot) => {
      const first = await firstFree(slot, readPending, options.readMined, count)
      const nonces = Array.from({ length: count }, (_, offset) => first + offset)
      for (const nonce of nonces) slot.reserved.add(nonce)
      let settled = false
      return {
        first,
        count,
        settle: (used: number) => {
          if (settled) return
          settled = true
          for (const [offset, nonce] of nonces.entries()) {
            slot.reserved.delete(nonce)
            if (offset >= used) continue
            if (options.authorization === true && offset === count - 1)
              slot.authorizations.set(nonce, nonce - 1)
            else slot.broadcast.add(nonce)
          }
        },
      }
    })
  }

  /** Runs `take` after every earlier reservation of the key, so concurrent requests never share a nonce. */
  #serve<Result>(key: string, take: (slot: Slot) => Promise<Result>): Promise<Result> {
    const slot = this.#slot(key)
    const reservation = slot.queue.then(() => take(slot))
    // A failed chain read fails this reservation only, never the queue.
    slot.queue = reservation.catch(() => undefined)
    return reservation
  }

  /**
   * A transaction with this nonce was broadcast outside the manager (explicit nonce, raw transaction); with
   * `authorizationNonce`, a self-sponsored EIP-7702 one whose authorization uses that nonce (the
   * transaction's + 1), held as `reserveRange` holds a batch's.
   */
  observe(key: string, nonce: number, authorizationNonce?: number): void {
    const slot = this.#slot(key)
    slot.broadcast.add(nonce)
    if (authorizationNonce !== undefined) slot.authorizations.set(authorizationNonce, nonce)
  }

  #slot(key: string): Slot {
    let slot = this.#slots.get(key)
    if (slot === undefined) {
      slot = {
        reserved: new Set(),
        broadcast: new Set(),
        authorizations: new Map(),
        queue: Promise.resolve(),
      }
      this.#slots.set(key, slot)
    }
    return slot
  }
}

/**
 * The lowest nonce from the chain's pending count on such that it and the `count - 1` after it are neither
 * reserved nor held by our broadcasts; holds the chain has overtaken are forgotten first.
 */
async function firstFree(
  slot: Slot,
  readPending: () => Promise<number>,
  readMined: (() => Promise<number>) | undefined,
  count: number,
): Promise<number> {
  const pending = await readPending()
  for (const nonce of slot.broadcast) if (nonce < pending) slot.broadcast.delete(nonce)
  for (const nonce of slot.authorizations.keys()) if (nonce < pending) slot.authorizations.delete(nonce)
  if (slot.authorizations.size > 0 && readMined !== undefined) {
    const mined = await readMined()
    // The transaction's nonce is mined and the authorization's is not: another transaction took it.
    for (const [nonce, transactionNonce] of slot.authorizations)
      if (mined > transactionNonce && mined <= nonce) slot.authorizations.delete(nonce)
  }
  const taken = (nonce: number) =>
    slot.reserved.has(nonce) || slot.broadcast.has(nonce) || slot.authorizations.has(nonce)
  let first = pending
  let offset = 0
  while (offset < count) {
    if (taken(first + offset)) {
      first += offset + 1
      offset = 0
    } else offset += 1
  }
  return first
}
