/** One reserved nonce. Call `settle(true)` once the transaction was broadcast, `settle(false)` if it was not. */
export type NonceReservation = { nonce: number; settle(broadcast: boolean): void }

type Slot = {
  /** The next nonce to hand out; undefined until read from the chain. */
  next: number | undefined
  /** Reservations handed out and not yet settled. */
  inFlight: number
  /** A broadcast failed in a way that may leave a gap; re-read the chain once nothing is in flight. */
  stale: boolean
  /** Reservations are served one after another so concurrent requests never share a nonce. */
  queue: Promise<unknown>
}

/**
 * Per-(chain, account) nonces for transactions this wallet fills. The first reservation reads the pending
 * transaction count; later ones count up locally, so 50 concurrent sends get 50 distinct nonces without
 * waiting for each other's broadcast. A failed broadcast gives its nonce back when it was the last one
 * handed out; otherwise the slot re-reads the chain when it is next idle.
 */
export class NonceManager {
  readonly #slots = new Map<string, Slot>()

  reserve(key: string, readPending: () => Promise<number>): Promise<NonceReservation> {
    const slot = this.#slot(key)
    const reservation = slot.queue.then(async () => {
      if (slot.next === undefined || (slot.stale && slot.inFlight === 0)) {
        slot.next = await readPending()
        slot.stale = false
      }
      const nonce = slot.next
      slot.next += 1
      slot.inFlight += 1
      let settled = false
      return {
        nonce,
        settle: (broadcast: boolean) => {
          if (settled) return
          settled = true
          slot.inFlight -= 1
          if (broadcast) return
          if (slot.next === nonce + 1) slot.next = nonce
          else slot.stale = true
        },
      }
    })
    // A failed chain read fails this reservation only, never the queue.
    slot.queue = reservation.catch(() => undefined)
    return reservation
  }

  /** A transaction with this nonce was broadcast outside the manager (explicit nonce, raw transaction). */
  observe(key: string, nonce: number): void {
    const slot = this.#slots.get(key)
    if (slot?.next !== undefined && nonce >= slot.next) slot.next = nonce + 1
  }

  #slot(key: string): Slot {
    let slot = this.#slots.get(key)
    if (slot === undefined) {
      slot = { next: undefined, inFlight: 0, stale: false, queue: Promise.resolve() }
      this.#slots.set(key, slot)
    }
    return slot
  }
}
