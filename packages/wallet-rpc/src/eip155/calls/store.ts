import type { Address, Hex } from 'viem'

/** One `wallet_sendCalls` batch as the wallet keeps it: enough to answer `wallet_getCallsStatus` later. */
export type StoredCalls = {
  id: string
  /** Numeric chain id. */
  chainId: number
  from: Address
  /** Sent as one transaction (ERC-7821 `execute` on the account itself). */
  atomic: boolean
  /** Broadcast transactions, in call order (one when atomic). */
  transactionHashes: Hex[]
  /**
   * The nonce of each broadcast transaction, in the order of `transactionHashes`: a transaction without a
   * receipt whose nonce the account has used since was replaced or dropped (status 400). Absent in records
   * stored before it existed, which then stay pending until mined.
   */
  nonces?: number[]
  /** Calls of a sequential batch not sent because an earlier broadcast failed. */
  unsent: number
  /** Unix milliseconds when the batch was sent. */
  sentAt: number
}

/**
 * Where batches live between `wallet_sendCalls` and `wallet_getCallsStatus`. The default keeps them in
 * memory; a wallet that must answer status after a restart passes its own (IndexedDB, a file, a database).
 * Records hold transaction hashes and addresses only, never a key or a signature.
 */
export type CallsStore = {
  get(id: string): Promise<StoredCalls | undefined> | StoredCalls | undefined
  put(record: StoredCalls): Promise<void> | void
}

export type CallsSettings = {
  store: CallsStore
  /** Most calls in one batch (5740 above it). */
  maxCalls: number
  /** Ids of batches planned or being sent, so two concurrent requests with one id cannot both go out. */
  inFlight: Set<string>
}

/** The default store: a Map, the most recent `limit` batches (older ones answer 5730). */
export function memoryCallsStore(limit = 1000): CallsStore {
  const records = new Map<string, StoredCalls>()
  return {
    get: (id) => records.get(id),
    put(record) {
      records.delete(record.id)
      records.set(record.id, record)
      if (records.size > limit) records.delete(records.keys().next().value as string)
    },
  }
}
