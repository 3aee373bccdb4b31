import type { ExplorerIssue } from './params.js'

/**
 * Why an explorer call failed:
 * - `invalid_params`: the parameters break a rule of the interface (`issues` names each field); nothing was sent;
 * - `timeout`: no complete answer within the client's `timeoutMs`;
 * - `aborted`: the caller's `signal` aborted the call;
 * - `network`: the request could not be sent or its answer not read (`cause` holds the platform's error);
 * - `http`: the explorer answered with an error status (`status`, and `code`/`issues` from its error body);
 * - `malformed_response`: a 2xx whose body is not the documented shape.
 */
export type ExplorerErrorKind =
  | 'invalid_params'
  | 'timeout'
  | 'aborted'
  | 'network'
  | 'http'
  | 'malformed_response'

/** Every failure of the explorer client: each method rejects with this and nothing else. */
export class ExplorerError extends Error {
  override readonly name = 'ExplorerError'
  readonly kind: ExplorerErrorKind
  /** The HTTP status, for `http`. */
  readonly status: number | undefined
  /** The error body's `code` (e.g. `params_validation`), for `http`. */
  readonly code: string | undefined
  /** The fields at fault, for `invalid_params` and for an `http` 400 that named them. */
  readonly issues: readonly ExplorerIssue[]
  /** The platform's error behind `network` (set here: not every engine reads `new Error(m, { cause })`). */
  override readonly cause: unknown

  constructor(
    kind: ExplorerErrorKind,
    message: string,
    details: { status?: number; code?: string; issues?: readonly ExplorerIssue[]; cause?: unknown } = {},
  ) {
    super(message)
    this.cause = details.cause
    this.kind = kind
    this.status = details.status
    this.code = details.code
    this.issues = details.issues ?? []
  }
}
