/**
 * The explorer interface's parameter rules (spec, "Explorer interface"), in one place: the sandbox server
 * applies them to the query string it receives and the client applies them to the query string it is about
 * to send, so both refuse the same requests with the same `{field, message}` issues.
 *
 * Where the spec is silent the rules are strict and stated here: an unknown parameter or one given twice is
 * refused (a typo such as `chain=` must not silently return everything), list elements must be non-empty,
 * and `version` (deprecated) cannot be combined with its replacement `sdks`. The parsers never throw: input
 * that is not name/value pairs of strings is an issue like any other.
 */

export type ExplorerIssue = { field: string; message: string }

export type ExplorerPlatform = 'ios' | 'android' | 'mac' | 'injected'
export type ExplorerSdk = 'sign_v1' | 'sign_v2' | 'auth_v1'
export type ExplorerListingType = 'wallets' | 'dapps' | 'hybrid' | 'all'
export type ExplorerLogoSize = 'sm' | 'md' | 'lg'

export const explorerPlatforms: readonly ExplorerPlatform[] = ['ios', 'android', 'mac', 'injected']
export const explorerSdks: readonly ExplorerSdk[] = ['sign_v1', 'sign_v2', 'auth_v1']
export const explorerLogoSizes: readonly ExplorerLogoSize[] = ['sm', 'md', 'lg']

/** A listing request as the server reads it, after every rule passed. */
export type ListingQuery = {
  projectId: string
  /** Present only when both `entries` and `page` were given. */
  paging?: { entries: number; page: number }
  search?: string
  ids?: string[]
  chains?: string[]
  platforms?: ExplorerPlatform[]
  /** `sdks`, or the deprecated `version` N read as `sign_vN`. */
  sdks?: ExplorerSdk[]
  standards?: string[]
  /** True when the request used the deprecated `version`. */
  deprecatedVersion?: true
}

export type ChainsQuery = { projectId: string; testnets: boolean; namespaces?: string[] }

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: ExplorerIssue[] }

/** Project ids are opaque; the sandbox accepts any of this form (WalletConnect's are 32 hex digits). */
export const projectIdPattern = /^[A-Za-z0-9_-]{1,128}$/
/** Listing ids and image ids: URL-safe, never all digits (listings are keyed by id in a JSON object). */
export const listingIdPattern = /^(?![0-9]+$)[A-Za-z0-9_.-]{1,128}$/
export const caip2Pattern = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/
export const namespacePattern = /^[-a-z0-9]{3,8}$/
/** `eip-712`, `eip-3085`, `caip-25`: a lowercase standards body and a number. */
export const standardPattern = /^[a-z]{2,8}-[1-9][0-9]{0,5}$/
const positivePattern = /^[1-9][0-9]{0,8}$/
const maxListElements = 100
const maxSearchLength = 256

const listingParams = [
  'projectId',
  'entries',
  'page',
  'search',
  'ids',
  'chains',
  'platforms',
  'sdks',
  'standards',
  'version',
] as const
const chainsParams = ['projectId', 'testnets', 'namespaces'] as const

/** Reads a query string's pairs once each; an unknown or repeated name is an issue. */
function collect(
  pairs: Iterable<readonly [string, string]>,
  known: readonly string[],
  issues: ExplorerIssue[],
): Map<string, string> {
  const values = new Map<string, string>()
  const repeated = new Set<string>()
  try {
    for (const pair of pairs) {
      const [name, value]: readonly unknown[] = Array.isArray(pair) ? pair : []
      if (typeof name !== 'string' || typeof value !== 'string') {
        issues.push({ field: 'query', message: 'every parameter is a name and a value' })
      } else if (!known.includes(name)) {
        issues.push({ field: name, message: `unknown parameter; this endpoint takes ${known.join(', ')}` })
      } else if (values.has(name)) {
        if (!repeated.has(name)) issues.push({ field: name, message: 'given more than once' })
        repeated.add(name)
      } else {
        values.set(name, value)
      }
    }
  } catch {
    // Not iterable, or an iterator that throws: a caller's bug, answered as an issue like every other.
    issues.push({ field: 'query', message: 'the parameters could not be read' })
  }
  return values
}

function checkProjectId(values: Map<string, string>, issues: ExplorerIssue[]): string {
  const projectId = values.get('projectId')
  if (projectId === undefined) issues.push({ field: 'projectId', message: 'required' })
  else if (!projectIdPattern.test(projectId)) {
    issues.push({ field: 'projectId', message: 'must be 1-128 characters of A-Z a-z 0-9 _ -' })
  }
  return projectId ?? ''
}

/** A comma-separated list whose every element passes `valid`; undefined when absent or broken. */
function commaList<T extends string>(
  values: Map<string, string>,
  field: string,
  valid: (element: string) => element is T,
  expected: string,
  issues: ExplorerIssue[],
): T[] | undefined {
  const raw = values.get(field)
  if (raw === undefined) return undefined
  const elements = raw.split(',')
  if (elements.length > maxListElements) {
    issues.push({ field, message: `at most ${maxListElements} comma-separated values` })
    return undefined
  }
  const before = issues.length
  elements.forEach((element, index) => {
    if (element.length === 0) issues.push({ field, message: `value ${index + 1} is empty` })
    else if (!valid(element)) {
      issues.push({ field, message: `value ${index + 1} (${clip(element)}) must be ${expected}` })
    }
  })
  return issues.length === before ? [...new Set(elements as T[])] : undefined
}

const clip = (text: string): string => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)

const matching =
  (pattern: RegExp) =>
  (element: string): element is string =>
    pattern.test(element)
const oneOf =
  <T extends string>(allowed: readonly T[]) =>
  (element: string): element is T =>
    (allowed as readonly string[]).includes(element)

/** The rules of `/v3/wallets`, `/v3/dapps`, `/v3/hybrid` and `/v3/all`. */
export function parseListingQuery(pairs: Iterable<readonly [string, string]>): Parsed<ListingQuery> {
  const issues: ExplorerIssue[] = []
  const values = collect(pairs, listingParams, issues)
  const query: ListingQuery = { projectId: checkProjectId(values, issues) }

  const entries = values.get('entries')
  const page = values.get('page')
  for (const [field, value] of [
    ['entries', entries],
    ['page', page],
  ] as const) {
    if (value !== undefined && !positivePattern.test(value)) {
      issues.push({ field, message: 'must be a whole number from 1 to 999999999' })
    }
  }
  if (entries !== undefined && page === undefined) {
    issues.push({ field: 'page', message: 'required with entries (entries and page go together)' })
  }
  if (page !== undefined && entries === undefined) {
    issues.push({ field: 'entries', message: 'required with page (entries and page go together)' })
  }
  if (entries !== undefined && page !== undefined) {
    query.paging = { entries: Number(entries), page: Number(page) }
  }

  const search = values.get('search')
  if (search !== undefined) {
    if (search.trim().length === 0) issues.push({ field: 'search', message: 'must not be empty' })
    else if (search.length > maxSearchLength) {
      issues.push({ field: 'search', message: `at most ${maxSearchLength} characters` })
    } else query.search = search.trim()
  }

  const ids = commaList(values, 'ids', matching(listingIdPattern), 'a listing id', issues)
  if (ids !== undefined) query.ids = ids
  const chains = commaList(values, 'chains', matching(caip2Pattern), 'a CAIP-2 chain id (eip155:1)', issues)
  if (chains !== undefined) query.chains = chains
  const platforms = commaList(
    values,
    'platforms',
    oneOf(explorerPlatforms),
    `one of ${explorerPlatforms.join(', ')}`,
    issues,
  )
  if (platforms !== undefined) query.platforms = platforms
  const standards = commaList(
    values,
    'standards',
    matching(standardPattern),
    'a standard such as eip-712',
    issues,
  )
  if (standards !== undefined) query.standards = standards

  const sdks = commaList(values, 'sdks', oneOf(explorerSdks), `one of ${explorerSdks.join(', ')}`, issues)
  const version = values.get('version')
  if (version !== undefined) {
    if (version !== '1' && version !== '2') {
      issues.push({ field: 'version', message: 'must be 1 or 2 (deprecated: use sdks=sign_v1 or sign_v2)' })
    } else if (values.has('sdks')) {
      issues.push({ field: 'version', message: 'deprecated and replaced by sdks: give only sdks' })
    } else {
      query.sdks = [version === '1' ? 'sign_v1' : 'sign_v2']
      query.deprecatedVersion = true
    }
  }
  if (sdks !== undefined) query.sdks = sdks

  return issues.length === 0 ? { ok: true, value: query } : { ok: false, issues }
}

/** The rules of `/v3/chains`: `testnets` true or false (default true), `namespaces` a comma list. */
export function parseChainsQuery(pairs: Iterable<readonly [string, string]>): Parsed<ChainsQuery> {
  const issues: ExplorerIssue[] = []
  const values = collect(pairs, chainsParams, issues)
  const query: ChainsQuery = { projectId: checkProjectId(values, issues), testnets: true }
  const testnets = values.get('testnets')
  if (testnets === 'false') query.testnets = false
  else if (testnets !== undefined && testnets !== 'true') {
    issues.push({ field: 'testnets', message: 'must be true or false' })
  }
  const namespaces = commaList(
    values,
    'namespaces',
    matching(namespacePattern),
    'a CAIP-2 namespace (eip155, solana)',
    issues,
  )
  if (namespaces !== undefined) query.namespaces = namespaces
  return issues.length === 0 ? { ok: true, value: query } : { ok: false, issues }
}

/** The rules of `/v3/logo/:size/:image_id` (only `projectId` in the query). */
export function parseLogoRequest(
  size: string,
  imageId: string,
  pairs: Iterable<readonly [string, string]>,
): Parsed<{ projectId: string; size: ExplorerLogoSize; imageId: string }> {
  const issues: ExplorerIssue[] = []
  const values = collect(pairs, ['projectId'], issues)
  const projectId = checkProjectId(values, issues)
  if (!oneOf(explorerLogoSizes)(size)) {
    issues.push({ field: 'size', message: `must be one of ${explorerLogoSizes.join(', ')}` })
  }
  if (typeof imageId !== 'string' || !listingIdPattern.test(imageId)) {
    issues.push({
      field: 'image_id',
      message: 'must be 1-128 characters of A-Z a-z 0-9 _ . -, not all digits',
    })
  }
  return issues.length === 0
    ? { ok: true, value: { projectId, size: size as ExplorerLogoSize, imageId: imageId as string } }
    : { ok: false, issues }
}
