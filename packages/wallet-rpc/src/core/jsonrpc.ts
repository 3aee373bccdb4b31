import { bytesToHex } from '@noble/hashes/utils.js'
import { type JsonRpcErrorObject, serializeError } from './errors.js'

/** JSON-RPC 2.0 ids: a string, a number or null (null only in answers to unparseable requests). */
export type JsonRpcId = string | number | null

export type JsonRpcRequest = {
  jsonrpc: '2.0'
  id: string | number
  method: string
  params?: unknown
}

export type JsonRpcSuccess<Result = unknown> = { jsonrpc: '2.0'; id: JsonRpcId; result: Result }
export type JsonRpcFailure = { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcErrorObject }
export type JsonRpcResponse<Result = unknown> = JsonRpcSuccess<Result> | JsonRpcFailure

export function success<Result>(id: JsonRpcId, result: Result): JsonRpcSuccess<Result> {
  return { jsonrpc: '2.0', id, result }
}

export function failure(id: JsonRpcId, error: unknown): JsonRpcFailure {
  return { jsonrpc: '2.0', id, error: toJsonSafe(serializeError(error)) as JsonRpcErrorObject }
}

/**
 * Results and error data must survive `JSON.stringify` unchanged on every transport: bigints become
 * decimal strings, Uint8Arrays hex, and anything that cannot be represented is dropped. Plain JSON (what
 * almost every method returns) is passed through without a copy.
 */
export function toJsonSafe(value: unknown): unknown {
  if (isPlainJson(value, 0)) return value
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return v.toString()
      if (v instanceof Uint8Array) return bytesToHex(v)
      return v
    }) ?? 'null',
  )
}

function isPlainJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      return Number.isFinite(value)
    case 'object': {
      if (value === null) return true
      if (depth > 64) return false
      if (Array.isArray(value)) return value.every((element) => isPlainJson(element, depth + 1))
      const prototype = Object.getPrototypeOf(value)
      if (prototype !== Object.prototype && prototype !== null) return false
      for (const key in value) {
        if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false
      }
      return true
    }
    default:
      return false
  }
}

/** The id to echo, when the input has a usable one; `null` otherwise (JSON-RPC 2.0 §5). */
export function idOf(request: unknown): JsonRpcId {
  if (typeof request !== 'object' || request === null) return null
  const id = (request as { id?: unknown }).id
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null
}
