// RFC 3986 (URI, authority), strictly: the grammar sign-in messages are built from.

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
export function parseUrl(text: string | undefined): URL | undefined {
  if (text === undefined) return undefined
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

/** The host of an authority as written (no canonical form): `user@[::1]:80` → `[::1]`. */
export function hostOf(authority: string): string {
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
