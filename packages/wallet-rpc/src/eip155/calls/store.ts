import type { CallsStore, StoredCalls } from '../types.js'

export type { CallsSettings, CallsStore, StoredCalls } from '../types.js'

/** A batch id within the site that chose it: sites' ids never meet. */
export function callsKey(origin: string | undefined, id: string): string {
  return JSON.stringify([origin ?? null, id])
}

/** The default store: a Map per (origin, id), the most recent `limit` batches (older ones answer 5730). */
export function memoryCallsStore(limit = 1000): CallsStore {
  const records = new Map<string, StoredCalls>()
  return {
    get: (id, origin) => records.get(callsKey(origin, id)),
    put(record) {
      const key = callsKey(record.origin, record.id)
      records.delete(key)
      records.set(key, record)
      if (records.size > limit) records.delete(records.keys().next().value as string)
    },
  }
}
