import type { RequestContext } from './namespace.js'
import { group, item, type ReviewItem, type ReviewWarning } from './review.js'

/**
 * Sign-in requests (Sign-In with Ethereum, EIP-4361; Sign-In with Solana reuses the same shape; TON's
 * `ton_signData` binds a domain too): what the wallet compares with the request before the user sees it.
 * Field names are namespace-neutral; each namespace parses its own message format into this shape.
 */
export type SignInRequest = {
  /** The scheme the message names before its domain (`https://example.org wants you …`), if any. */
  scheme: string | undefined
  /** The RFC 3986 authority the message says asks for the sign-in: `[userinfo@]host[:port]`, as written. */
  domain: string
  /** The account the message names, as written. */
  account: string
  /**
   * The chain the message names, as written (EIP-155 chain id, Solana cluster…). This and the fields below
   * are always present in EIP-4361; Sign In With Solana makes them optional.
   */
  chain: string | undefined
  uri: string | undefined
  version: string | undefined
  statement: string | undefined
  nonce: string | undefined
  issuedAt: string | undefined
  expirationTime: string | undefined
  notBefore: string | undefined
  requestId: string | undefined
  resources: readonly string[]
}

/** What the namespace checked itself: account and chain comparisons depend on its address and chain formats. */
export type SignInBindings = {
  /** The account that would sign, in the namespace's display form. */
  signer: string
  accountMatches: boolean
  /** The request's chain, in the namespace's display form (e.g. `1` for `eip155:1`). */
  requestChain: string
  chainMatches: boolean
}

/**
 * The review section a wallet shows for a sign-in: everything the message asks the user to assert, with
 * the host in its canonical (lowercase, punycode) form beside it when that differs from what is written,
 * so a homograph or an uppercase trick is visible.
 */
export function signInSection(request: SignInRequest): ReviewItem {
  const items: ReviewItem[] = []
  const domain = request.scheme === undefined ? request.domain : `${request.scheme}://${request.domain}`
  items.push(item('Domain', domain))
  const canonical = parseAuthority(request.domain)?.host
  if (canonical !== undefined && canonical !== hostOf(request.domain))
    items.push(item('Domain host', canonical))
  if (request.uri !== undefined) items.push(item('URI', request.uri))
  items.push(item('Account', request.account))
  if (request.chain !== undefined) items.push(item('Chain', request.chain))
  if (request.statement) items.push(item('Statement', request.statement))
  if (request.nonce !== undefined) items.push(item('Nonce', request.nonce))
  if (request.issuedAt !== undefined) items.push(item('Issued at', request.issuedAt))
  if (request.expirationTime !== undefined) items.push(item('Expires at', request.expirationTime))
  if (request.notBefore !== undefined) items.push(item('Not before', request.notBefore))
  if (request.requestId !== undefined) items.push(item('Request ID', request.requestId))
  if (request.resources.length > 0) {
    items.push(
      group(
        'Resources',
        request.resources.map((resource, index) => item(`${index + 1}`, resource)),
      ),
    )
  }
  if (request.version !== undefined) items.push(item('Version', request.version))
  return group('Sign-in', items)
}

/** A sign-in message's parse: the request it asks for, or why it is not one. */
export type SignInParseResult<Message extends SignInRequest = SignInRequest> =
  | { ok: true; message: Message }
  | { ok: false; reason: string }

/** Thrown by a sign-in grammar's `check`; turned into `{ ok: false, reason }` by `parseSignIn`. */
class SignInSyntaxError extends Error {}

/** A grammar rule: `reason` when `condition` does not hold. */
export function checkSyntax(condition: boolean, reason: string): asserts condition {
  if (!condition) throw new SignInSyntaxError(reason)
}

/** Runs a strict sign-in parser written with `checkSyntax`; any other error is a bug and is rethrown. */
export function parseSignIn<Message extends SignInRequest>(
  parseStrict: (text: string) => Message,
  text: string,
): SignInParseResult<Message> {
  try {
    return { ok: true, message: parseStrict(text) }
  } catch (error) {
    if (error instanceof SignInSyntaxError) return { ok: false, reason: error.message }
    throw error
  }
}

/** A dapp-chosen value quoted in a warning or an error reason, cut so a huge one cannot flood either. */
export function quoted(value: string, max = 120): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value)
}

/**
 * Every check of a sign-in against the request it arrived in, as review warnings under `prefix`
 * (`siwe`, `siws`…): the domain (scheme, host, port, no userinfo) and the URI's host against the request's
 * origin, the account against the signer, the chain against the request's chain, the validity window
 * against the clock, and the transport's verdict on the origin. Each mismatch is a `danger` warning, so the
 * router refuses it unless the wallet's `policy.allowDangerous` lists its code.
 */
export function signInWarnings(
  context: RequestContext,
  request: SignInRequest,
  bindings: SignInBindings,
  prefix: string,
): ReviewWarning[] {
  const warnings: ReviewWarning[] = []
  const danger = (rule: string, message: string) =>
    warnings.push({ code: `${prefix}.${rule}`, severity: 'danger', message })
  const origin = originOf(context.origin)
  if (origin === undefined) {
    danger(
      'origin_missing',
      context.origin === undefined
        ? `The request carries no origin, so the wallet cannot check that ${quoted(request.domain)} is asking.`
        : `The request's origin ${quoted(context.origin)} is not a web origin; ${quoted(request.domain)} cannot be checked against it.`,
    )
  } else {
    const domainProblem = domainMismatch(request.scheme, request.domain, origin)
    if (domainProblem !== undefined) {
      danger(
        'domain_mismatch',
        `This sign-in is for ${quoted(request.domain)}, but ${origin.text} asks: ${domainProblem}.`,
      )
    }
    // A sign-in without a URI (optional in Sign In With Solana) binds only its domain, checked above.
    const uriProblem = request.uri === undefined ? undefined : uriMismatch(request.uri, origin)
    if (uriProblem !== undefined) danger('uri_mismatch', uriProblem)
  }
  warnings.push(...originVerificationWarnings(context, prefix, request.domain))
  if (!bindings.accountMatches) {
    danger(
      'account_mismatch',
      `The message signs in as ${request.account}, but the signing account is ${bindings.signer}.`,
    )
  }
  if (!bindings.chainMatches) {
    danger(
      'chain_mismatch',
      `The message names chain ${quoted(request.chain ?? '')}, but the request is for chain ${bindings.requestChain}.`,
    )
  }
  const now = context.clock()
  const expiresAt = request.expirationTime === undefined ? undefined : parseDateTime(request.expirationTime)
  if (expiresAt !== undefined && expiresAt <= now) {
    danger('expired', `This sign-in expired at ${request.expirationTime}.`)
  }
  const notBefore = request.notBefore === undefined ? undefined : parseDateTime(request.notBefore)
  if (notBefore !== undefined && notBefore > now) {
    danger('not_yet_valid', `This sign-in is not valid before ${request.notBefore}.`)
  }
  return warnings
}

/** Why the sign-in URI does not name the requesting site's host, or undefined when it does. */
function uriMismatch(uri: string, origin: Origin): string | undefined {
  const authority = parseUri(uri)?.authority
  if (authority === undefined)
    return `The sign-in URI ${quoted(uri)} names no host to check against ${origin.text}.`
  if (authority.userinfo !== undefined) {
    return `The sign-in URI carries ${quoted(`${authority.userinfo}@`)} before its real host ${quoted(authority.host)}.`
  }
  if (authority.host !== origin.host) {
    return `The sign-in URI's host ${quoted(authority.host)} is not ${origin.host}, the host of the requesting site.`
  }
  return undefined
}

/**
 * What the transport said about the origin, for anything that binds a signature to the dapp's domain:
 * `INVALID` is a `danger` (refused unless allowed); `UNKNOWN` or no verdict at all (a plain `handle()` call,
 * WalletConnect without Verify) is a `caution`: the domain is only what the dapp claims.
 */
export function originVerificationWarnings(
  context: Pick<RequestContext, 'originValidation'>,
  prefix: string,
  domain: string,
): ReviewWarning[] {
  if (context.originValidation === 'VALID') return []
  if (context.originValidation === 'INVALID') {
    return [
      {
        code: `${prefix}.origin_invalid`,
        severity: 'danger',
        message: `The transport could not verify that this request comes from ${quoted(domain)}: its origin does not match the dapp's verified domain.`,
      },
    ]
  }
  return [
    {
      code: `${prefix}.origin_unverified`,
      severity: 'caution',
      message: `${quoted(domain)} is the domain the dapp claims; the transport did not verify it. Sign in only if you opened this site yourself.`,
    },
  ]
}

/** A web origin, reduced to what a sign-in domain is compared with. */
export type Origin = { text: string; scheme: string; host: string; port: string }

/** `https://Example.org:443/` → `{scheme: 'https', host: 'example.org', port: '443'}` (port always explicit). */
export function originOf(origin: string | undefined): Origin | undefined {
  const url = parseUrl(origin)
  if (url === undefined) return undefined
  const scheme = url.protocol.slice(0, -1)
  if (url.hostname === '' || url.username !== '' || url.password !== '') return undefined
  return {
    text: `${scheme}://${url.host}`,
    scheme,
    host: url.hostname,
    port: effectivePort(url.port, scheme),
  }
}

/**
 * Why `[scheme://]domain` is not the origin, or undefined when it is. The host must be the origin's exactly
 * (after lowercasing and IDNA, so `EXAMPLE.org` is `example.org` but `app.example.org.evil.example` and
 * `example.org.evil.example` are not); the scheme defaults to https (EIP-4361); the port defaults to the
 * scheme's; userinfo is never accepted, since `example.org@evil.example` reads as example.org to a human.
 */
export function domainMismatch(
  scheme: string | undefined,
  domain: string,
  origin: Origin,
): string | undefined {
  const authority = parseAuthority(domain)
  if (authority === undefined) return 'the domain is not a valid authority'
  if (authority.userinfo !== undefined) {
    return `the domain carries ${quoted(`${authority.userinfo}@`)} before its real host ${quoted(authority.host)}`
  }
  const claimedScheme = (scheme ?? 'https').toLowerCase()
  if (claimedScheme !== origin.scheme) return `the scheme ${claimedScheme} is not the site's ${origin.scheme}`
  if (authority.host !== origin.host) return `the host ${quoted(authority.host)} is not ${origin.host}`
  const port = effectivePort(authority.port ?? '', claimedScheme)
  if (port !== origin.port)
    return `port ${port || '(none)'} is not the site's port ${origin.port || '(none)'}`
  return undefined
}

/** The port a connection uses: the written one without leading zeros, else the scheme's default ('' if none). */
function effectivePort(port: string, scheme: string): string {
  if (port !== '') return BigInt(port).toString()
  return scheme === 'https' || scheme === 'wss' ? '443' : scheme === 'http' || scheme === 'ws' ? '80' : ''
}

// ---------------------------------------------------------------------------------------------------------
// RFC 3986 (URI, authority) and RFC 3339 (date-time), strictly: the grammar sign-in messages are built from.

/** An RFC 3986 authority; `host` canonical (WHATWG URL host: lowercase, punycode, IPv6 in brackets). */
export type Authority = { userinfo: string | undefined; host: string; port: string | undefined }

export type Uri = {
  scheme: string
  authority: Authority | undefined
  path: string
  query: string | undefined
  fragment: string | undefined
}

const pct = '%[0-9A-Fa-f]{2}'
const unreservedSubDelims = "A-Za-z0-9\\-._~!$&'()*+,;="
const userinfoPattern = new RegExp(`^(?:[${unreservedSubDelims}:]|${pct})*$`)
const regNamePattern = new RegExp(`^(?:[${unreservedSubDelims}]|${pct})*$`)
const pathPattern = new RegExp(`^(?:[${unreservedSubDelims}:@/]|${pct})*$`)
const queryPattern = new RegExp(`^(?:[${unreservedSubDelims}:@/?]|${pct})*$`)
const ipvFuturePattern = new RegExp(`^v[0-9A-Fa-f]+\\.[${unreservedSubDelims}:]+$`)
export const pcharPattern = new RegExp(`^(?:[${unreservedSubDelims}:@]|${pct})*$`)
export const schemePattern = /^[A-Za-z][A-Za-z0-9+\-.]*$/
const uriPattern = /^([A-Za-z][A-Za-z0-9+\-.]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s
const portPattern = /^[0-9]*$/
const ipv4Pattern =
  /^(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?:\.(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}$/
const h16Pattern = /^[0-9A-Fa-f]{1,4}$/

/** RFC 3986 `IPv6address`: eight 16-bit groups, one `::` for a run of zeros, an IPv4 tail allowed. */
function isIpv6(text: string): boolean {
  const halves = text.split('::')
  if (halves.length > 2) return false
  const groups = (part: string) => (part === '' ? [] : part.split(':'))
  const head = groups(halves[0]!)
  const tail = halves.length === 2 ? groups(halves[1]!) : []
  const all = [...head, ...tail]
  let count = 0
  for (const [index, group] of all.entries()) {
    if (index === all.length - 1 && ipv4Pattern.test(group)) count += 2
    else if (h16Pattern.test(group)) count += 1
    else return false
  }
  return halves.length === 2 ? count <= 7 : count === 8
}

/** `[userinfo@]host[:port]` per RFC 3986, or undefined. The host must not be empty. */
export function parseAuthority(text: string): Authority | undefined {
  const at = text.indexOf('@')
  const userinfo = at === -1 ? undefined : text.slice(0, at)
  if (userinfo !== undefined && !userinfoPattern.test(userinfo)) return undefined
  const hostPort = text.slice(at + 1)
  let host: string
  let port: string | undefined
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']')
    if (close === -1) return undefined
    const literal = hostPort.slice(1, close)
    if (!isIpv6(literal) && !ipvFuturePattern.test(literal)) return undefined
    host = hostPort.slice(0, close + 1)
    const rest = hostPort.slice(close + 1)
    if (rest !== '' && !rest.startsWith(':')) return undefined
    port = rest === '' ? undefined : rest.slice(1)
  } else {
    const colon = hostPort.indexOf(':')
    host = colon === -1 ? hostPort : hostPort.slice(0, colon)
    port = colon === -1 ? undefined : hostPort.slice(colon + 1)
    if (!regNamePattern.test(host)) return undefined
  }
  if (host === '' || (port !== undefined && !portPattern.test(port))) return undefined
  return { userinfo, host: canonicalHost(host), port }
}

/** The host as a browser's origin would show it; an RFC 3986 host WHATWG refuses stays as written, lowercased. */
function canonicalHost(host: string): string {
  return parseUrl(`http://${host}/`)?.hostname ?? host.toLowerCase()
}

/**
 * `new URL(text)`, or undefined where it throws. Not `URL.canParse`: React Native's URL polyfill
 * (react-native-url-polyfill) and older browsers lack it.
 */
function parseUrl(text: string | undefined): URL | undefined {
  if (text === undefined) return undefined
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

function hostOf(authority: string): string {
  const hostPort = authority.slice(authority.indexOf('@') + 1)
  return hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.split(':')[0]!
}

/** An RFC 3986 `URI` (absolute, with scheme), or undefined. */
export function parseUri(text: string): Uri | undefined {
  const match = uriPattern.exec(text)
  if (match === null) return undefined
  const [, scheme, authorityText, path = '', query, fragment] = match
  const authority = authorityText === undefined ? undefined : parseAuthorityOrEmpty(authorityText)
  if (authority === null) return undefined
  if (!pathPattern.test(path)) return undefined
  // With an authority the path is empty or absolute; without one it must not look like an authority.
  if (authorityText !== undefined && path !== '' && !path.startsWith('/')) return undefined
  if (query !== undefined && !queryPattern.test(query)) return undefined
  if (fragment !== undefined && !queryPattern.test(fragment)) return undefined
  return { scheme: scheme!, authority, path, query, fragment }
}

// RFC 3986 lets a URI's reg-name be empty (`file:///x`, `https://@/x`, `x://user@:80`): the URI is valid but
// names no host, which sign-in checks then refuse as naming no site. null: not an authority at all.
function parseAuthorityOrEmpty(text: string): Authority | undefined | null {
  const authority = parseAuthority(text)
  if (authority !== undefined) return authority
  const at = text.indexOf('@')
  const hostPort = text.slice(at + 1)
  const userinfoValid = at === -1 || userinfoPattern.test(text.slice(0, at))
  const emptyHost = hostPort === '' || (hostPort.startsWith(':') && portPattern.test(hostPort.slice(1)))
  return userinfoValid && emptyHost ? undefined : null
}

const dateTimePattern =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))$/

/**
 * An RFC 3339 `date-time` as Unix milliseconds, or undefined when it is not one (calendar and clock ranges
 * checked; a leap second `:60` counts as the next second; fractions beyond milliseconds are truncated).
 */
export function parseDateTime(text: string): number | undefined {
  const match = dateTimePattern.exec(text)
  if (match === null) return undefined
  const [, year, month, day, hour, minute, second, fraction, zulu, sign, offsetHour, offsetMinute] = match
  const y = Number(year)
  const mo = Number(month)
  const d = Number(day)
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 60) return undefined
  let offset = 0
  if (zulu === undefined) {
    if (Number(offsetHour) > 23 || Number(offsetMinute) > 59) return undefined
    offset = (sign === '-' ? -1 : 1) * (Number(offsetHour) * 60 + Number(offsetMinute)) * 60_000
  }
  const millis = fraction === undefined ? 0 : Number(fraction.slice(1, 4).padEnd(3, '0'))
  // setUTCFullYear, not Date.UTC: Date.UTC maps the years 0-99 to 1900-1999.
  const date = new Date(0)
  date.setUTCFullYear(y, mo - 1, d)
  date.setUTCHours(Number(hour), Number(minute), Number(second), millis)
  return date.getTime() - offset
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}
