import * as v from 'valibot'
import { currencyOf, supportedCurrencyCodes } from './currencies.js'
import { badRequest, type Issue } from './errors.js'

/** Parses with a valibot schema; every issue becomes `{field, message}` in a 400 params_validation body. */
export function validateBody<Output>(schema: v.GenericSchema<unknown, Output>, value: unknown): Output {
  const result = v.safeParse(schema, value)
  if (result.success) return result.output
  const issues: Issue[] = result.issues.map((issue) => ({
    field: v.getDotPath(issue) ?? '(body)',
    message: issue.message,
  }))
  throw badRequest(issues.map((issue) => `${issue.field}: ${issue.message}`).join('; '), issues)
}

export const fiatAmountSchema = v.object({
  unit: v.pipe(
    v.string(),
    v.regex(/^iso4217\/[A-Z]{3}$/, 'must be iso4217/<CODE>'),
    v.check(
      (unit) => currencyOf(unit) !== undefined,
      `unsupported currency; the sandbox knows ${supportedCurrencyCodes.join(', ')}`,
    ),
  ),
  value: v.pipe(
    v.string(),
    v.regex(/^[1-9][0-9]{0,30}$/, 'must be a positive whole number of minor units, as a string'),
  ),
})

export const referenceIdSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(255))

/** A valid absolute HTTPS URL, or false. */
export function isHttpsUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return url.protocol === 'https:' && url.hostname.length > 0 && url.username === '' && url.password === ''
  } catch {
    return false
  }
}
