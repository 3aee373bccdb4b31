import * as v from 'valibot'
import { InvalidParamsError } from './errors.js'

export type Schema<Output> = v.GenericSchema<unknown, Output>

/** Parse params with a valibot schema; the first issue becomes -32602 with its dotted field path. */
export function parseParams<Output>(schema: Schema<Output>, params: unknown): Output {
  const result = v.safeParse(schema, params, { abortEarly: true })
  if (result.success) return result.output
  const issue = result.issues[0]
  const path = v.getDotPath(issue) ?? ''
  throw new InvalidParamsError(issue.message, { path })
}

export type SafetyLimits = {
  /** Upper bound on the params' size in UTF-16 code units of strings plus one per key and value. */
  maxParamsSize: number
  /** Deepest nesting of arrays and objects. */
  maxDepth: number
}

export const defaultSafetyLimits: SafetyLimits = { maxParamsSize: 4 * 1024 * 1024, maxDepth: 64 }

const pollutionKeys = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * Refuse what no schema should ever have to consider: prototype-pollution keys anywhere, nesting deeper
 * than `maxDepth`, and params larger than `maxParamsSize`. Iterative, so hostile depth cannot overflow
 * the stack before it is measured.
 */
export function assertSafeParams(params: unknown, limits: SafetyLimits = defaultSafetyLimits): void {
  let size = 0
  const stack: Array<{ value: unknown; depth: number; path: string }> = [
    { value: params, depth: 0, path: '' },
  ]
  while (stack.length > 0) {
    const { value, depth, path } = stack.pop()!
    size += typeof value === 'string' ? value.length : 1
    if (size > limits.maxParamsSize) {
      throw new InvalidParamsError(`params exceed ${limits.maxParamsSize} units`)
    }
    if (typeof value !== 'object' || value === null) continue
    if (depth >= limits.maxDepth) {
      throw new InvalidParamsError(`params nest deeper than ${limits.maxDepth} levels`, { path })
    }
    if (Array.isArray(value)) {
      value.forEach((element, index) => {
        stack.push({ value: element, depth: depth + 1, path: path ? `${path}.${index}` : String(index) })
      })
      continue
    }
    for (const key of Object.keys(value)) {
      const keyPath = path ? `${path}.${key}` : key
      if (pollutionKeys.has(key)) throw new InvalidParamsError(`forbidden key "${key}"`, { path: keyPath })
      size += key.length
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, path: keyPath })
    }
  }
}

// Reusable leaf schemas shared by the namespaces.

/** Lower-case or upper-case hex without 0x, even length. */
export const hexString = v.pipe(
  v.string(),
  v.regex(/^(?:[0-9a-fA-F]{2})*$/, 'must be hex without 0x, even length'),
)

/** Strict canonical base64 (RFC 4648 with padding). */
export const base64String = v.pipe(
  v.string(),
  v.regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, 'must be base64'),
)
