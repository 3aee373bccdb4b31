import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { sha256 } from '../crypto/sha256.js'
import { InvalidParamsError, InvalidRequestError, WalletRpcError } from './errors.js'
import { type Expectation, type ExpectedPayment, readExpectation } from './expectation.js'
import { idOf, type JsonRpcResponse } from './jsonrpc.js'
import type { OriginValidation, ReviewWarning, Severity } from './review.js'

/**
 * What `handle()` accepts, read into one envelope: the plain `{chainId, request, origin?}` shape or WalletKit's
 * `session_request` event. Reading never trusts the input's shape (a throwing getter or Proxy is -32600).
 */

/** The plain shape. */
export type HandleInput = {
  chainId: string
  request: { id: string | number; jsonrpc?: '2.0'; method: string; params?: unknown }
  origin?: string
  /** The transport's verdict on `origin` (WalletConnect Verify), when the caller has one. */
  originValidation?: OriginValidation
  /** Extra lines for the review, e.g. which payment an action belongs to. */
  context?: Record<string, string>
  /**
   * Warnings the caller adds to the method's own review (the WalletKit adapter: the connect-time sign-in rules).
   * One replaces the method's warning of the same code; a `danger` is refused unless `policy.allowDangerous`
   * lists it. They can only add to what the method found, never remove a warning it did not repeat.
   */
  warnings?: ReviewWarning[]
  /** When the dapp stops waiting (Unix seconds, as WalletKit's `expiryTimestamp`): 8000 after that. */
  expiryTimestamp?: number
  /**
   * The WalletConnect session topic the request came on: with the request's id it is the request's identity
   * (ids are unique within a session), so a repeat replays the first answer (core/journal.ts). The same key
   * as WalletKit's event of that topic and id.
   */
  sessionTopic?: string
  /**
   * The request's identity when the caller has one of its own (the pay client: payment and action). A repeat of
   * the key replays what the first request did; the same key with other params is refused. Without a key or a
   * topic nothing is recorded: origin and id alone are no identity, as a reloaded page starts its ids again.
   */
  requestKey?: string
  /**
   * The payment a third party says this request makes (the pay client: the gateway's option; the WalletKit
   * adapter: the proposal's `walletPay`). Every difference from what the request moves is a `danger`.
   */
  expected?: ExpectedPayment
  /**
   * With a key: what the journal hashes to tell a repeat from another request under the same key, instead of the
   * params (JSON). For a caller that builds the params anew each time (connect-time walletPay: a fresh
   * blockhash): its own description of the effect, so a repeat of the same payment is recognised.
   */
  identity?: unknown
}

/** WalletKit's `session_request` event. */
export type SessionRequestEvent = {
  id: number
  topic: string
  params: { request: { method: string; params?: unknown; expiryTimestamp?: number }; chainId: string }
  verifyContext?: { verified?: { origin?: string; validation?: OriginValidation; isScam?: boolean } }
}

/** A CAIP-2 chain id: namespace and reference. */
export const chainIdPattern = /^([-a-z0-9]{3,8}):([-_a-zA-Z0-9]{1,32})$/

/** One request as the router sees it, whichever shape it came in. */
export type Envelope = {
  id: string | number
  chainId: string
  method: string
  params: unknown
  origin: string | undefined
  originValidation: OriginValidation | undefined
  expiresAtMs: number | undefined
  context: Record<string, string> | undefined
  warnings: ReviewWarning[] | undefined
  /** The request's identity for the journal, or undefined when it has none (core/journal.ts). */
  key: string | undefined
  expected: Expectation | undefined
  /** `HandleInput.identity`, hashed in place of the params. */
  identity: unknown
}

/**
 * The envelope, or -32600 when the input cannot even be read: a Proxy whose traps throw or a getter that
 * throws is malformed input, not a wallet failure.
 */
export function readEnvelope(input: unknown): Envelope {
  try {
    return toEnvelope(input)
  } catch (error) {
    if (error instanceof WalletRpcError) throw error
    throw new InvalidRequestError('the request could not be read', { cause: error })
  }
}

/** The request's id for an error answer, or null when even reading it fails. */
export function safeIdOfInput(input: unknown): JsonRpcResponse['id'] {
  try {
    return idOfInput(input)
  } catch {
    return null
  }
}

function idOfInput(input: unknown): JsonRpcResponse['id'] {
  if (typeof input !== 'object' || input === null) return null
  const record = input as Record<string, unknown>
  return 'topic' in record ? idOf(record) : idOf(record.request)
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Accepts the plain `{chainId, request, origin?}` shape and WalletKit's `session_request` event. */
function toEnvelope(input: unknown): Envelope {
  if (!isRecord(input)) throw new InvalidRequestError('expected an object')
  if ('topic' in input) return fromSessionRequest(input)
  const request = input.request
  if (!isRecord(request)) throw new InvalidRequestError('request must be an object')
  const id = idOf(request)
  if (id === null) throw new InvalidRequestError('request.id must be a string or a finite number')
  if (request.jsonrpc !== undefined && request.jsonrpc !== '2.0') {
    throw new InvalidRequestError('request.jsonrpc must be "2.0"')
  }
  if (input.origin !== undefined && typeof input.origin !== 'string') {
    throw new InvalidRequestError('origin must be a string')
  }
  return {
    id,
    chainId: chainIdOf(input.chainId),
    method: methodOf(request.method),
    params: request.params,
    origin: input.origin,
    originValidation: validationOf(input.originValidation),
    expiresAtMs: expiryOf(input.expiryTimestamp),
    context: contextOf(input.context),
    warnings: warningsOf(input.warnings),
    key: keyOf(input.requestKey, input.sessionTopic, id),
    identity: input.identity,
    expected: readExpectation(input.expected),
  }
}

function fromSessionRequest(input: Record<string, unknown>): Envelope {
  const id = idOf(input)
  if (id === null) throw new InvalidRequestError('id must be a string or a finite number')
  const params = input.params
  if (!isRecord(params) || !isRecord(params.request))
    throw new InvalidRequestError('params.request is missing')
  const verified = isRecord(input.verifyContext) ? input.verifyContext.verified : undefined
  const origin = isRecord(verified) && typeof verified.origin === 'string' ? verified.origin : undefined
  const validation = isRecord(verified) ? verified.validation : undefined
  const expiry = params.request.expiryTimestamp
  return {
    id,
    chainId: chainIdOf(params.chainId),
    method: methodOf(params.request.method),
    params: params.request.params,
    origin,
    originValidation: validationOf(validation),
    expiresAtMs: expiryOf(expiry),
    context: undefined,
    warnings: undefined,
    key: keyOf(undefined, input.topic, id),
    identity: undefined,
    expected: undefined,
  }
}

const maxKeyLength = 256
/** A caller's key longer than `maxKeyLength` (made of a gateway's ids, a dapp's order id) is kept as its hash. */
const maxRequestKeyLength = 8192

/**
 * `key:<requestKey>` (`key#<its SHA-256>` when long), else `wc:<topic>:<id>`: the same request has the same key in
 * either shape, and a caller's own key can never name a WalletConnect request.
 */
function keyOf(requestKey: unknown, topic: unknown, id: string | number): string | undefined {
  if (requestKey !== undefined) {
    if (typeof requestKey !== 'string' || requestKey.length === 0 || requestKey.length > maxRequestKeyLength)
      throw new InvalidRequestError(`requestKey must be a string of 1 to ${maxRequestKeyLength} characters`)
    return requestKey.length <= maxKeyLength
      ? `key:${requestKey}`
      : `key#${bytesToHex(sha256(utf8ToBytes(requestKey)))}`
  }
  if (topic === undefined) return undefined
  if (typeof topic !== 'string' || topic.length === 0 || topic.length > maxKeyLength)
    throw new InvalidRequestError(`the session topic must be a string of 1 to ${maxKeyLength} characters`)
  return `wc:${topic}:${typeof id === 'number' ? id : JSON.stringify(id)}`
}

function validationOf(value: unknown): OriginValidation | undefined {
  return value === 'VALID' || value === 'INVALID' || value === 'UNKNOWN' ? value : undefined
}

/** WalletConnect expiries are Unix seconds. */
function expiryOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value * 1000 : undefined
}

function chainIdOf(value: unknown): string {
  if (typeof value !== 'string' || !chainIdPattern.test(value)) {
    throw new InvalidRequestError('chainId must be a CAIP-2 chain id')
  }
  return value
}

function methodOf(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 128) {
    throw new InvalidRequestError('method must be a non-empty string')
  }
  return value
}

function contextOf(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined
  if (!isRecord(value) || !Object.values(value).every((entry) => typeof entry === 'string')) {
    throw new InvalidParamsError('context must map strings to strings', { path: 'context' })
  }
  return value as Record<string, string>
}

const severities: readonly unknown[] = ['info', 'caution', 'danger']

function warningsOf(value: unknown): ReviewWarning[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || value.length > 64) {
    throw new InvalidParamsError('warnings must be a list of at most 64 warnings', { path: 'warnings' })
  }
  return value.map((warning, index) => {
    if (
      !isRecord(warning) ||
      typeof warning.code !== 'string' ||
      typeof warning.message !== 'string' ||
      !severities.includes(warning.severity)
    ) {
      throw new InvalidParamsError('a warning is { code, severity, message }', { path: `warnings.${index}` })
    }
    return { code: warning.code, severity: warning.severity as Severity, message: warning.message }
  })
}
