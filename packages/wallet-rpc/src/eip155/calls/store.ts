import type { CallsStore, StoredCalls } from '../types.js'

export type { CallsSettings, CallsStore, StoredCalls } from '../types.js'

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
