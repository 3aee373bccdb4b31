import { CollectDataError } from '../errors.js'
import type { CollectData, CollectDataField } from './shapes.js'

/**
 * Data collection per option (spec, Gateway API rule 7):
 *
 * | response-level collectData | option.collectData | the option needs data collection |
 * |-|-|-|
 * | present | present | yes, as `option.collectData` says (its `url` for the web view) |
 * | present | null/absent | no |
 * | null/absent | null/absent | no |
 * | null/absent | present | yes: the spec leaves this row open; the gateway's per-option field is the
 *   stronger signal (its docs: "It is per option"), and skipping collection would fail the payment later |
 */
export type CollectDataRequirement =
  | { required: false }
  | { required: true; url: string | undefined; schema: JsonSchema | undefined; fields: CollectDataField[] }

export type JsonSchema = Record<string, unknown>

export function collectDataRequirement(
  responseLevel: CollectData | null | undefined,
  optionLevel: CollectData | null | undefined,
): CollectDataRequirement {
  if (optionLevel === null || optionLevel === undefined) return { required: false }
  // Both present (rule 7, first row) or only the option's (the open row): the option's object rules. The
  // web-view url is the option's only; a form falls back to the response-level schema or fields when the
  // option names none (older gateway versions list the fields once, at response level).
  return {
    required: true,
    url: optionLevel.url ?? undefined,
    schema: schemaOf(optionLevel.schema) ?? schemaOf(responseLevel?.schema),
    fields: optionLevel.fields ?? responseLevel?.fields ?? [],
  }
}

function schemaOf(schema: CollectData['schema']): JsonSchema | undefined {
  if (schema === null || schema === undefined) return undefined
  if (typeof schema !== 'string') return schema
  try {
    const parsed: unknown = JSON.parse(schema)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as JsonSchema)
      : undefined
  } catch {
    return undefined
  }
}

/** What the gateway expects in `confirm` (`collectedData`). */
export type CollectedData = { fields: { id: string; value: string }[] }

/** The field ids a form must offer and the ones it must fill, from the JSON schema and the `fields` list. */
function formFields(requirement: Extract<CollectDataRequirement, { required: true }>): {
  known: Set<string>
  required: Set<string>
} {
  const known = new Set<string>()
  const required = new Set<string>()
  const properties = requirement.schema?.properties
  if (typeof properties === 'object' && properties !== null) {
    for (const key of Object.keys(properties)) known.add(key)
  }
  const schemaRequired = requirement.schema?.required
  if (Array.isArray(schemaRequired)) {
    for (const key of schemaRequired) if (typeof key === 'string') required.add(key)
  }
  for (const field of requirement.fields) {
    known.add(field.id)
    if (field.required === true) required.add(field.id)
  }
  for (const key of required) known.add(key)
  return { known, required }
}

/**
 * Checks the values a native form produced against the schema (every required field filled, no field the
 * schema does not name, strings only) and wraps them the way `confirm` expects.
 */
export function toCollectedData(
  requirement: Extract<CollectDataRequirement, { required: true }>,
  values: unknown,
): CollectedData {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new CollectDataError('collect_data_failed', 'The form hook must return an object of strings.')
  }
  const { known, required } = formFields(requirement)
  const entries = Object.entries(values as Record<string, unknown>)
  for (const [id, value] of entries) {
    if (typeof value !== 'string') {
      throw new CollectDataError('collect_data_failed', `Collected field "${id}" must be a string.`)
    }
    if (known.size > 0 && !known.has(id)) {
      throw new CollectDataError(
        'collect_data_failed',
        `Collected field "${id}" is not in the form's schema.`,
      )
    }
  }
  for (const id of required) {
    const value = (values as Record<string, unknown>)[id]
    if (typeof value !== 'string' || value.trim() === '') {
      throw new CollectDataError('collect_data_failed', `Required field "${id}" was not filled.`)
    }
  }
  return { fields: entries.map(([id, value]) => ({ id, value: value as string })) }
}
