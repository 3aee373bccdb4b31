import { printableLine } from '../core/text.js'

/**
 * Typed failures of the Pay client. Each carries a stable string `code`: the gateway's own code when it
 * sent one (error body `{message, code, details?, issues?}`), otherwise one of ours (listed on each class).
 * Messages never contain the API key: the client scrubs it from anything the gateway echoes back. The code
 * and the message are one bounded line each (`maxCodeLength`, `maxMessageLength`), every control, bidi or
 * invisible character the gateway sent written out visibly: a wallet may show them as they are.
 */

/** Characters of a `PayError.code` (the gateway's codes are short snake_case words). */
export const maxCodeLength = 64
/** Characters of a `PayError.shortMessage`. */
export const maxMessageLength = 512
export type PayErrorOptions = {
  /** HTTP status of the gateway response, when the failure came from one. */
  status?: number
  details?: unknown
  issues?: readonly { field: string; message: string }[]
  cause?: unknown
}

export class PayError extends Error {
  override name = 'PayError'
  /** The gateway's error code, or ours for failures the gateway did not report. */
  readonly code: string
  /** The gateway's (or our) one-line message, without any secret. */
  readonly shortMessage: string
  readonly status: number | undefined
  readonly details: unknown
  readonly issues: readonly { field: string; message: string }[] | undefined

  constructor(gatewayCode: string, gatewayMessage: string, options: PayErrorOptions = {}) {
    const code = printableLine(String(gatewayCode), maxCodeLength)
    const shortMessage = printableLine(String(gatewayMessage), maxMessageLength)
    super(
      options.status === undefined
        ? `${shortMessage} (${code})`
        : `${shortMessage} (${code}, HTTP ${options.status})`,
      options.cause === undefined ? undefined : { cause: options.cause },
    )
    this.code = code
    this.shortMessage = shortMessage
    this.status = options.status
    this.details = options.details
    this.issues = options.issues
  }
}

/** A non-2xx gateway answer that has no more specific class (4xx other than 409/410, or 5xx after retries). */
export class GatewayError extends PayError {
  override name = 'GatewayError'
}

/** 410 from the gateway, or `expiresAt` passed on the injected clock: the payment is over (final). Code `payment_expired` unless the gateway sent one. */
export class PaymentExpiredError extends PayError {
  override name = 'PaymentExpiredError'
  constructor(shortMessage = 'The payment expired.', options: PayErrorOptions & { code?: string } = {}) {
    super(options.code ?? 'payment_expired', shortMessage, options)
  }
}

/** 409 from the gateway: the option's route expired. The client refetches options once; this is thrown when that did not help. Code `route_expired` unless the gateway sent one. */
export class RouteExpiredError extends PayError {
  override name = 'RouteExpiredError'
  constructor(
    shortMessage = 'The payment route expired.',
    options: PayErrorOptions & { code?: string } = {},
  ) {
    super(options.code ?? 'route_expired', shortMessage, options)
  }
}

/** The gateway could not be reached (after the retries). Code `network_error`. */
export class PayNetworkError extends PayError {
  override name = 'PayNetworkError'
  constructor(shortMessage = 'The payment gateway could not be reached.', options: PayErrorOptions = {}) {
    super('network_error', shortMessage, options)
  }
}

/** The caller's `signal` aborted the flow. Whatever was already submitted stays submitted. Code `aborted`. */
export class PayAbortedError extends PayError {
  override name = 'PayAbortedError'
  constructor() {
    super('aborted', 'The payment flow was cancelled.')
  }
}

/** The gateway answered 2xx with a body that does not have the documented shape. Code `invalid_response`. */
export class PayProtocolError extends PayError {
  override name = 'PayProtocolError'
  constructor(shortMessage: string, options: PayErrorOptions = {}) {
    super('invalid_response', shortMessage, options)
  }
}

/** The wallet answered an action with a JSON-RPC error (refused, rejected, failed). Nothing was confirmed. Code `action_failed`. */
export class PayActionError extends PayError {
  override name = 'PayActionError'
  /** Zero-based position of the failed action. */
  readonly actionIndex: number
  /** The JSON-RPC error the wallet answered with (e.g. 5000 user rejected). */
  readonly rpcError: { code: number; message: string; data?: unknown }
  constructor(actionIndex: number, rpcError: { code: number; message: string; data?: unknown }) {
    super('action_failed', `Action ${actionIndex + 1} failed: ${rpcError.message} (${rpcError.code}).`)
    this.actionIndex = actionIndex
    this.rpcError = rpcError
  }
}

/** The option cannot be paid by this wallet (a namespace or method it lacks, or an unknown option id). Code `option_unavailable`. */
export class OptionUnavailableError extends PayError {
  override name = 'OptionUnavailableError'
  constructor(shortMessage: string) {
    super('option_unavailable', shortMessage)
  }
}

/** The option requires data collection and no hook provided it, or the hook failed. Code `collect_data_required` or `collect_data_failed`. */
export class CollectDataError extends PayError {
  override name = 'CollectDataError'
}

/** Polling `confirm` did not reach a final status within the client's poll budget. Code `poll_timeout`. */
export class PayTimeoutError extends PayError {
  override name = 'PayTimeoutError'
  /** The last non-final status seen. */
  readonly lastStatus: string
  constructor(lastStatus: string) {
    super('poll_timeout', `The payment was still ${lastStatus} when the poll budget ran out.`)
    this.lastStatus = lastStatus
  }
}

/** The input is not a payment link from a trusted checkout host. Code `invalid_payment_link`. */
export class InvalidPaymentLinkError extends PayError {
  override name = 'InvalidPaymentLinkError'
  constructor() {
    super('invalid_payment_link', 'Not a payment link from a trusted checkout host.')
  }
}
