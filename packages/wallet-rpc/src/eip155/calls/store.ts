import { originOf } from '../../core/origin.js'
import type { CallsStore, StoredCalls } from '../types.js'

export type { CallsSettings, CallsStore, StoredCalls } from '../types.js'

/**
 * The site a batch belongs to, spelled one way: a web origin as a browser writes it (`https://App.example/`,
 * `https://app.example:443` → `https://app.example`), anything else without trailing `/` and in lower case.
 * A transport that reports the origin with a trailing slash once and without it the next time still
 * finds its batches.
 */
export function siteOf(origin: string | undefined): string | undefined {
  if (origin === undefined) return undefined
  return originOf(origin)?.text ?? origin.replace(/\/+$/, '').toLowerCase()
}

/** A batch id within the site that chose it: sites' ids never meet. */
export function callsKey(origin: string | undefined, id: string): string {
  return JSON.stringify([siteOf(origin) ?? null, id])
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
