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
