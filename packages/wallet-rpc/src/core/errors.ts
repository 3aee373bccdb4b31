import { printableLine } from './text.js'

/**
 * One error hierarchy for every failure `handle()` can answer with. Each class carries its JSON-RPC code
 * (WalletConnect convention first; see the README's error table), a `shortMessage` that is safe to send to
 * a dapp, and optional `data` for the dapp (a field path, a policy reason, a provider's reason).
 * `details` is for the wallet's own logs (`onError`) and never leaves the process.
 */
export type WalletRpcErrorOptions = {
  data?: unknown
  details?: string
  cause?: unknown
}

export class WalletRpcError extends Error {
  override name = 'WalletRpcError'
  readonly code: number
  readonly shortMessage: string
  readonly data: unknown
  readonly details: string | undefined

  constructor(code: number, shortMessage: string, options: WalletRpcErrorOptions = {}) {
    super(options.details ? `${shortMessage}\n\nDetails: ${options.details}` : shortMessage, {
      cause: options.cause,
    })
    this.code = code
    this.shortMessage = shortMessage
    this.data = options.data
    this.details = options.details
  }
}

/** -32700: the line or body is not JSON. */
export class ParseError extends WalletRpcError {
  static readonly code = -32700
  override name = 'ParseError'
  constructor(options: WalletRpcErrorOptions = {}) {
    super(ParseError.code, 'Parse error.', options)
  }
}

/** -32600: not a JSON-RPC 2.0 request. */
export class InvalidRequestError extends WalletRpcError {
  static readonly code = -32600
  override name = 'InvalidRequestError'
  constructor(reason: string, options: WalletRpcErrorOptions = {}) {
    super(InvalidRequestError.code, 'Invalid request.', { data: { reason }, ...options })
  }
}

/** -32601: the method does not exist in the chain's namespace. */
export class MethodNotFoundError extends WalletRpcError {
  static readonly code = -32601
  override name = 'MethodNotFoundError'
  constructor(method: string, options: WalletRpcErrorOptions = {}) {
    super(MethodNotFoundError.code, 'Method not found.', { data: { method }, ...options })
  }
}

/** -32602: params fail their schema. `data.path` names the offending field. */
export class InvalidParamsError extends WalletRpcError {
  static readonly code = -32602
  override name = 'InvalidParamsError'
  constructor(reason: string, options: WalletRpcErrorOptions & { path?: string } = {}) {
    const { path, ...rest } = options
    super(InvalidParamsError.code, 'Invalid params.', {
      data: path === undefined ? { reason } : { path, reason },
      ...rest,
    })
  }
}

/**
 * -32602 as well: the request is well-formed but the wallet's policy refuses it (dangerous sighash,
 * chainId mismatch, expired valid_until, fee cap, a `danger` warning the wallet did not allow).
 */
export class PolicyRefusedError extends WalletRpcError {
  static readonly code = -32602
  override name = 'PolicyRefusedError'
  constructor(reason: string, options: WalletRpcErrorOptions & { rule?: string } = {}) {
    const { rule, ...rest } = options
    super(PolicyRefusedError.code, 'Refused by wallet policy.', {
      data: rule === undefined ? { reason } : { rule, reason },
      ...rest,
    })
  }
}

/** How many characters of a reason a ProviderError carries. */
const maxProviderReasonLength = 500

/**
 * -32603 with the provider's reason: a chain read or broadcast failed. Never carries a secret. A reason
 * often quotes a node's own words, which the node chose: the dapp reads it as one bounded line, control,
 * bidi and invisible characters written out.
 */
export class ProviderError extends WalletRpcError {
  static readonly code = -32603
  override name = 'ProviderError'
  constructor(reason: string, options: WalletRpcErrorOptions = {}) {
    super(ProviderError.code, 'Chain provider error.', {
      data: { reason: printableLine(reason, maxProviderReasonLength) },
      ...options,
    })
  }
}

/** -32603 with a generic message: anything unexpected. The original goes to `onError`, never to the dapp. */
export class InternalError extends WalletRpcError {
  static readonly code = -32603
  override name = 'InternalError'
  constructor(options: WalletRpcErrorOptions = {}) {
    super(InternalError.code, 'Internal error.', options)
  }
}

/** 4100: the account or address is not owned by this wallet. */
export class UnauthorizedError extends WalletRpcError {
  static readonly code = 4100
  override name = 'UnauthorizedError'
  constructor(what: string, options: WalletRpcErrorOptions = {}) {
    super(UnauthorizedError.code, 'The requested account is not owned by this wallet.', {
      data: { account: what },
      ...options,
    })
  }
}

/** 5000: `approve` said no. */
export class UserRejectedError extends WalletRpcError {
  static readonly code = 5000
  override name = 'UserRejectedError'
  constructor(options: WalletRpcErrorOptions = {}) {
    super(UserRejectedError.code, 'User rejected.', options)
  }
}

/** 5100: the chain is not configured in this wallet. */
export class ChainNotConfiguredError extends WalletRpcError {
  static readonly code = 5100
  override name = 'ChainNotConfiguredError'
  constructor(chainId: string, options: WalletRpcErrorOptions = {}) {
    super(ChainNotConfiguredError.code, 'Unsupported chain.', { data: { chainId }, ...options })
  }
}

/** 5101: the method exists in the namespace but this wallet or session does not offer it. */
export class MethodNotSupportedError extends WalletRpcError {
  static readonly code = 5101
  override name = 'MethodNotSupportedError'
  constructor(method: string, options: WalletRpcErrorOptions = {}) {
    super(MethodNotSupportedError.code, 'Unsupported method.', { data: { method }, ...options })
  }
}

/** 8000: the session request expired before it could be answered. */
export class RequestExpiredError extends WalletRpcError {
  static readonly code = 8000
  override name = 'RequestExpiredError'
  constructor(options: WalletRpcErrorOptions = {}) {
    super(RequestExpiredError.code, 'Request expired.', options)
  }
}

export type JsonRpcErrorObject = { code: number; message: string; data?: unknown }

const outcomeUnknown = new WeakSet<object>()

/**
 * Marks `error` as a broadcast that timed out or lost its connection after it went out: the node may have the
 * transaction. The router then takes a lookup that does not find it as "cannot tell" (a node behind a load
 * balancer may not see it yet while it mines), never as "not sent".
 */
export function markOutcomeUnknown<E extends Error>(error: E): E {
  outcomeUnknown.add(error)
  return error
}

/** Whether `error`, or an error it was caused by, is a broadcast whose outcome is unknown. */
export function isOutcomeUnknown(error: unknown): boolean {
  for (let cause = error, depth = 0; typeof cause === 'object' && cause !== null && depth < 10; depth++) {
    if (outcomeUnknown.has(cause)) return true
    cause = (cause as { cause?: unknown }).cause
  }
  return false
}

/**
 * The one serializer. A `WalletRpcError` keeps its code, short message and data; anything else becomes a
 * generic -32603. No stack, no `details`, no `cause` ever leaves through here.
 */
export function serializeError(error: unknown): JsonRpcErrorObject {
  const known = error instanceof WalletRpcError ? error : new InternalError()
  return known.data === undefined
    ? { code: known.code, message: known.shortMessage }
    : { code: known.code, message: known.shortMessage, data: known.data }
}
