import { header, type RequestContext } from '../context.js'

/**
 * A state-changing form POST must come from the sandbox's own pages: its `Origin` (or, when a browser sent none,
 * `Sec-Fetch-Site`) names this host. Ports differ between sites on one host, so a SameSite cookie alone would not
 * stop a page on 127.0.0.1:other. A client that is not a browser sends neither and passes (the dashboard still
 * needs its CSRF token).
 */
export function isSameOrigin(context: RequestContext): boolean {
  const origin = header(context, 'origin')
  const host = header(context, 'host')
  if (origin !== undefined) {
    if (host === undefined) return false
    try {
      return new URL(origin).host === host
    } catch {
      return false // "null" (sandboxed frames, some redirects) and garbage
    }
  }
  const site = header(context, 'sec-fetch-site')
  return site === undefined || site === 'same-origin'
}
