import { quoted } from './review.js'
import { parseAuthority, parseUrl } from './uri.js'

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
