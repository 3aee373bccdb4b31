/** One reserved nonce. Call `settle(true)` once the transaction was broadcast, `settle(false)` if it was not. */
export type NonceReservation = { nonce: number; settle(broadcast: boolean): void }

type Slot = {
  /** Nonces of sends handed out and not yet settled. */
  reserved: Set<number>
  /** Nonces this wallet broadcast that the chain's pending count may not show yet (a lagging node). */
  broadcast: Set<number>
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
    options: { broadcast?: boolean } = {},
  ): Promise<NonceReservation> {
    const slot = this.#slot(key)
    const reservation = slot.queue.then(async () => {
      const pending = await readPending()
      for (const nonce of slot.broadcast) if (nonce < pending) slot.broadcast.delete(nonce)
      let nonce = pending
      while (slot.reserved.has(nonce) || slot.broadcast.has(nonce)) nonce += 1
      if (options.broadcast === false) return { nonce, settle: () => {} }
      slot.reserved.add(nonce)
      let settled = false
      return {
        nonce,
        settle: (broadcast: boolean) => {
          if (settled) return
          settled = true
          slot.reserved.delete(nonce)
          if (broadcast) slot.broadcast.add(nonce)
        },
      }
    })
    // A failed chain read fails this reservation only, never the queue.
    slot.queue = reservation.catch(() => undefined)
    return reservation
  }

  /** A transaction with this nonce was broadcast outside the manager (explicit nonce, raw transaction). */
  observe(key: string, nonce: number): void {
    this.#slot(key).broadcast.add(nonce)
  }

  #slot(key: string): Slot {
    let slot = this.#slots.get(key)
    if (slot === undefined) {
      slot = { reserved: new Set(), broadcast: new Set(), queue: Promise.resolve() }
      this.#slots.set(key, slot)
    }
    return slot
  }
}
