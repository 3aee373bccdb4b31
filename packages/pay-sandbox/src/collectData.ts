import * as v from 'valibot'
import { badRequest } from './errors.js'

/** The travel-rule style form a payment asks for when the test control `requireCollectData` is on. */
export const collectFields = [
  { id: 'fullName', name: 'Full name', type: 'text', required: true },
  { id: 'dateOfBirth', name: 'Date of birth', type: 'date', required: true },
  { id: 'country', name: 'Country of residence (ISO 3166-1 alpha-2)', type: 'text', required: false },
] as const

const collectSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: collectFields.filter((field) => field.required).map((field) => field.id),
  properties: {
    fullName: { type: 'string', minLength: 1, maxLength: 200 },
    dateOfBirth: { type: 'string', format: 'date' },
    country: { type: 'string', pattern: '^[A-Z]{2}$' },
  },
  additionalProperties: false,
}

export function collectDataObject(baseUrl: string, paymentId: string) {
  return { url: `${baseUrl}/collect/${paymentId}`, schema: collectSchema, fields: collectFields }
}

export const collectedDataSchema = v.object({
  fields: v.pipe(
    v.array(
      v.object({ id: v.pipe(v.string(), v.minLength(1)), value: v.pipe(v.string(), v.maxLength(1000)) }),
    ),
    v.maxLength(50),
  ),
})

const checks: Record<string, RegExp> = {
  fullName: /^.{1,200}$/u,
  dateOfBirth: /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/,
  country: /^[A-Z]{2}$/,
}

/** Checks collected fields against the schema: every required id present, known ids only, values well formed. */
export function checkCollected(
  fields: ReadonlyArray<{ id: string; value: string }>,
): Array<{ id: string; value: string }> {
  const issues: Array<{ field: string; message: string }> = []
  const seen = new Set<string>()
  fields.forEach((field, index) => {
    const check = checks[field.id]
    if (check === undefined)
      issues.push({ field: `collectedData.fields.${index}.id`, message: `unknown field ${field.id}` })
    else if (!check.test(field.value))
      issues.push({ field: `collectedData.fields.${index}.value`, message: `invalid ${field.id}` })
    seen.add(field.id)
  })
  for (const field of collectFields) {
    if (field.required && !seen.has(field.id))
      issues.push({ field: 'collectedData.fields', message: `${field.id} is required` })
  }
  if (issues.length > 0) throw badRequest('collected data does not match the schema', issues)
  return fields.map((field) => ({ id: field.id, value: field.value }))
}
