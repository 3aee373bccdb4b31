/**
 * A provider URL without its `user:password@` part, and that part as a Basic authorization header. fetch
 * refuses URLs with credentials, and its error would print them into a reason the dapp reads.
 */
export function splitCredentials(
  url: string,
  provider: string,
): { url: string; authorization: string | undefined } {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new TypeError(`${provider}: the URL is not valid`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`${provider}: the URL must be http(s)`)
  }
  if (!parsed.username && !parsed.password) return { url: parsed.href, authorization: undefined }
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`
  parsed.username = ''
  parsed.password = ''
  const latin1 = String.fromCharCode(...new TextEncoder().encode(credentials))
  return { url: parsed.href, authorization: `Basic ${btoa(latin1)}` }
}

/**
 * Why a fetch failed, in words that cannot carry the URL (which may hold an API key in its query): a
 * timeout, the system code of a network error (`ECONNREFUSED`, …), or the error's own message when it
 * names no URL.
 */
export function fetchFailureReason(error: unknown): string {
  if (!(error instanceof Error)) return 'request failed'
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'request timed out'
  const code = (error.cause as { code?: unknown } | undefined)?.code
  if (typeof code === 'string') return `network error ${code}`
  return error.message.includes('://') ? 'network error' : error.message.slice(0, 200)
}

/**
 * A signal that aborts after `timeoutMs` with a `TimeoutError`. `AbortSignal.timeout` where it exists; React
 * Native's AbortSignal polyfill lacks it, so there a timer aborts a controller instead.
 */
export function timeoutSignal(timeoutMs: number): AbortSignal {
  if (typeof AbortSignal.timeout === 'function') return AbortSignal.timeout(timeoutMs)
  const controller = new AbortController()
  setTimeout(() => {
    const error = new Error(`timed out after ${timeoutMs} ms`)
    error.name = 'TimeoutError'
    controller.abort(error)
  }, timeoutMs)
  return controller.signal
}
