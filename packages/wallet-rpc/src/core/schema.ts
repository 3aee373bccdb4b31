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
 * than `maxDepth`, and params larger than `maxParamsSize`. Recursion stops at `maxDepth`, so hostile depth
 * cannot overflow the stack; the failing field's path is assembled only when something fails.
 */
export function assertSafeParams(params: unknown, limits: SafetyLimits = defaultSafetyLimits): void {
  try {
    scan(params, 0, limits.maxParamsSize, limits.maxDepth)
  } catch (error) {
    if (!(error instanceof ScanFailure)) throw error
    throw error.path.length > 0
      ? new InvalidParamsError(error.reason, { path: error.path.join('.') })
      : new InvalidParamsError(error.reason)
  }
}

class ScanFailure {
  readonly path: Array<string | number> = []
  constructor(readonly reason: string) {}
}

/** Returns the size budget left after `value`. */
function scan(value: unknown, depth: number, budget: number, maxDepth: number): number {
  const left = budget - (typeof value === 'string' ? value.length : 1)
  if (left < 0) throw new ScanFailure('params exceed the size limit')
  if (typeof value !== 'object' || value === null) return left
  if (depth >= maxDepth) throw new ScanFailure(`params nest deeper than ${maxDepth} levels`)
  let remaining = left
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      try {
        remaining = scan(value[index], depth + 1, remaining, maxDepth)
      } catch (error) {
        if (error instanceof ScanFailure) error.path.unshift(index)
        throw error
      }
    }
    return remaining
  }
  for (const key of Object.keys(value)) {
    try {
      if (pollutionKeys.has(key)) throw new ScanFailure(`forbidden key "${key}"`)
      remaining = scan((value as Record<string, unknown>)[key], depth + 1, remaining - key.length, maxDepth)
    } catch (error) {
      if (error instanceof ScanFailure) error.path.unshift(key)
      throw error
    }
  }
  return remaining
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

/**
 * A whole amount in a chain's smallest unit: the spec's decimal string, or a JSON number when it is a safe,
 * non-negative integer, because AppKit's adapters pass the app's number through unchanged. A larger number
 * may already have been rounded by the dapp's JSON encoder, so it is refused, never guessed. The number is
 * turned into its decimal string and then meets every rule of `decimal`: both spellings mean the same.
 */
export function decimalOrSafeInteger(decimal: v.GenericSchema<string, string>, unit: string) {
  const numberRule = `a number must be a whole, non-negative number of ${unit} no larger than ${Number.MAX_SAFE_INTEGER}; send a decimal string`
  return v.pipe(
    v.union(
      [
        decimal,
        v.pipe(
          v.number(),
          v.check((value) => Number.isSafeInteger(value) && value >= 0, numberRule),
        ),
        // WalletConnect's JSON parser (@walletconnect/safe-json) turns a number past 2^53 - 1 into a BigInt:
        // the dapp's own encoder may already have rounded it, so it is refused like any unsafe number.
        v.pipe(
          v.bigint(),
          v.check(() => false, numberRule),
        ),
      ],
      `must be a whole number of ${unit} as a decimal string`,
    ),
    v.transform((value) => String(value)),
    decimal,
  )
}
