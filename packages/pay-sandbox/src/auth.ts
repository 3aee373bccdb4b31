import { createHash, timingSafeEqual } from 'node:crypto'
import type { Auth, RequestContext, SandboxConfig } from './context.js'
import { header } from './context.js'
import { PayHttpError } from './errors.js'

/**
 * `Api-Key` rules (the spec: 401 invalid_api_key for a key that is not valid, 403 only for a valid key
 * without permission): missing → 401 missing_api_key; any key the sandbox did not issue, test or live form
 * → 401 invalid_api_key. `wallet` routes also accept `App-Id` + `Client-Id`.
 */
export function authenticate(context: RequestContext, auth: Auth, config: SandboxConfig): void {
  if (auth === 'none') return
  const apiKey = header(context, 'api-key')
  if (apiKey === undefined && auth === 'wallet') {
    const appId = header(context, 'app-id')
    if (appId !== undefined) {
      if (appId !== config.appId) throw new PayHttpError(401, 'invalid_api_key', 'unknown App-Id')
      if (header(context, 'client-id') === undefined) {
        throw new PayHttpError(401, 'missing_api_key', 'App-Id needs a Client-Id header')
      }
      return
    }
  }
  if (apiKey === undefined) throw new PayHttpError(401, 'missing_api_key', 'the Api-Key header is required')
  if (sameSecret(apiKey, config.apiKey)) return
  if (apiKey.startsWith('svc_test_')) throw new PayHttpError(401, 'invalid_api_key', 'unknown test API key')
  if (apiKey.startsWith('svc_')) throw new PayHttpError(401, 'invalid_api_key', 'unknown live API key')
  throw new PayHttpError(401, 'invalid_api_key', 'API keys start with svc_test_ (test) or svc_ (live)')
}

const versionPattern = /^([0-9]{4})-([0-9]{2})-([0-9]{2})(\.preview)?$/

/** The request headers that carry the API version: the seed's, and the two the official wallet client sends. */
export const versionHeaders = ['pay-version', 'wcp-version', 'api-version'] as const

/**
 * The version the request asks for: the one value its version headers carry (absent → undefined). Headers that
 * disagree are 400 invalid_api_version: there is no rule for which one would win.
 */
export function requestedVersion(context: RequestContext): string | undefined {
  const values = new Set(
    versionHeaders.map((name) => header(context, name)).filter((value) => value !== undefined),
  )
  if (values.size > 1) {
    throw new PayHttpError(
      400,
      'invalid_api_version',
      `Pay-Version, WCP-Version and Api-Version disagree: ${[...values].join(', ')}`,
    )
  }
  return values.values().next().value
}

/** The resolved version on a reply: always as `Pay-Version`, and under each other version header the request used. */
export function versionReplyHeaders(context: RequestContext): Record<string, string> {
  const headers: Record<string, string> = { 'pay-version': context.version }
  for (const name of versionHeaders) if (header(context, name) !== undefined) headers[name] = context.version
  return headers
}

/**
 * The requested version (`Pay-Version`, `WCP-Version` or `Api-Version`): absent → the pin; malformed or not a calendar date → 400 invalid_api_version; well formed but
 * not a version this sandbox knows → 400 unknown_api_version; known but older than the pin → 400
 * api_version_downgrade. `versions` is ordered oldest first.
 */
export function resolveVersion(requested: string | undefined, config: SandboxConfig): string {
  if (requested === undefined) return config.pinnedVersion
  const match = versionPattern.exec(requested)
  if (match === null || !isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    throw new PayHttpError(
      400,
      'invalid_api_version',
      'the API version must be YYYY-MM-DD or YYYY-MM-DD.preview',
    )
  }
  const index = config.versions.indexOf(requested)
  if (index < 0) {
    throw new PayHttpError(400, 'unknown_api_version', `unknown API version ${requested}`, {
      details: { supported: [...config.versions] },
    })
  }
  if (index < config.versions.indexOf(config.pinnedVersion)) {
    throw new PayHttpError(
      400,
      'api_version_downgrade',
      `API version ${requested} is older than the pinned version`,
      {
        details: { pinned: config.pinnedVersion },
      },
    )
  }
  return requested
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

/** Constant-time, and over digests so the key's length does not show either. */
function sameSecret(given: string, secret: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(given), digest(secret))
}
