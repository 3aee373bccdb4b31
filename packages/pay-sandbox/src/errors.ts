/** A reply the sandbox sends as the spec's error body `{message, code, details?, issues?}`. */
export class PayHttpError extends Error {
  override readonly name = 'PayHttpError'
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: {
      details?: Record<string, unknown>
      issues?: Array<{ field: string; message: string }>
    } = {},
  ) {
    super(message)
  }

  body(): Record<string, unknown> {
    return { message: this.message, code: this.code, ...this.extra }
  }
}

export type Issue = { field: string; message: string }

export const badRequest = (message: string, issues?: Issue[]): PayHttpError =>
  new PayHttpError(400, 'params_validation', message, issues === undefined ? {} : { issues })

export const invalidListParams = (issues: Issue[]): PayHttpError =>
  new PayHttpError(
    400,
    'invalid_params',
    issues.map((issue) => `${issue.field}: ${issue.message}`).join('; '),
    {
      issues,
    },
  )

/**
 * The closed list of error codes the official wallet client (`@walletconnect/pay` 1.1.0, its WASM core's
 * `ErrorCode`) parses. A gateway error body with any other code fails to parse there, whatever its status.
 */
export const gatewayErrorCodes: ReadonlySet<string> = new Set([
  'rate_limited',
  'invalid_params',
  'params_validation',
  'payment_not_found',
  'idempotency_conflict',
  'internal_error',
  'invalid_api_key',
  'unauthorized',
  'forbidden',
  'invalid_state',
  'payment_expired',
  'quote_expired',
  'missing_api_key',
  'missing_merchant_api_key',
  'missing_merchant_id',
  'header_not_ascii',
  'not_sandbox_api_key',
  'merchant_not_found',
  'merchant_exists',
  'api_key_not_found',
  'partner_not_found',
  'customer_not_found',
  'wallet_not_found',
  'executor_not_found',
  'missing_app_id',
  'missing_client_id',
  'invalid_app_id',
  'conflicting_auth_headers',
  'missing_auth_headers',
  'invalid_api_version',
  'unknown_api_version',
  'api_version_downgrade',
  'sanctioned_user',
  'payment_not_succeeded',
  'already_refunded',
])

/**
 * A refusal on a gateway path as the official client can read it: the sandbox's own codes for the refusals every
 * route shares (no route, wrong method, body too large or not JSON) become `invalid_params` / `params_validation`
 * with the status kept, and the sandbox's code kept in `details.reason`.
 */
export function onGatewayWire(error: PayHttpError): PayHttpError {
  if (gatewayErrorCodes.has(error.code)) return error
  const code = error.status === 413 || error.status === 415 ? 'params_validation' : 'invalid_params'
  return new PayHttpError(error.status, code, error.message, {
    ...error.extra,
    details: { ...error.extra.details, reason: error.code },
  })
}
