import { decodeUtf8 } from './utf8.js'

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
 * A signal that aborts after `timeoutMs` with a `TimeoutError`, or earlier when `parent` aborts (with the
 * parent's reason). `AbortSignal.timeout` where it exists and there is no parent; React Native's AbortSignal
 * polyfill lacks it and Hermes lacks `AbortSignal.any`, so otherwise a timer aborts a controller.
 */
export function timeoutSignal(timeoutMs: number, parent?: AbortSignal): AbortSignal {
  if (parent === undefined && typeof AbortSignal.timeout === 'function') return AbortSignal.timeout(timeoutMs)
  const controller = new AbortController()
  const timer = setTimeout(() => {
    const error = new Error(`timed out after ${timeoutMs} ms`)
    error.name = 'TimeoutError'
    controller.abort(error)
  }, timeoutMs)
  // Node: a pending timer must not keep a CLI process alive after its work is done.
  ;(timer as { unref?: () => void }).unref?.()
  if (parent !== undefined) {
    const stop = () => {
      clearTimeout(timer)
      controller.abort(parent.reason)
    }
    if (parent.aborted) stop()
    else parent.addEventListener('abort', stop, { once: true })
  }
  return controller.signal
}

/** An answer longer than a reader accepts (`readBoundedText`). */
export class AnswerTooLargeError extends Error {
  override name = 'AnswerTooLargeError'
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`)
  }
}

/**
 * The body of `response` as text, refusing one longer than `maxBytes` (checked against Content-Length first,
 * then while reading, so a huge or endless answer is never held whole). Where the runtime's Response has no
 * body stream (React Native's fetch), the text is read and then measured.
 */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN)
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {})
    throw new AnswerTooLargeError(maxBytes)
  }
  const body = response.body
  if (body === null || typeof body?.getReader !== 'function') {
    const text = await response.text()
    if (text.length > maxBytes) throw new AnswerTooLargeError(maxBytes)
    return text
  }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let length = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    length += value.length
    if (length > maxBytes) {
      await reader.cancel().catch(() => {})
      throw new AnswerTooLargeError(maxBytes)
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(length)
  let at = 0
  for (const chunk of chunks) {
    bytes.set(chunk, at)
    at += chunk.length
  }
  return decodeUtf8(bytes)
}

/**
 * Quotes integers of 16 digits or more outside JSON strings, so 64-bit values (lamports, nanotons, token
 * amounts) survive `JSON.parse` with every digit; `BigInt` reads them back.
 */
export function quoteLongIntegers(json: string): string {
  let out = ''
  let index = 0
  while (index < json.length) {
    const char = json[index]!
    if (char === '"') {
      let end = index + 1
      while (end < json.length && json[end] !== '"') end += json[end] === '\\' ? 2 : 1
      out += json.slice(index, end + 1)
      index = end + 1
    } else if (char === '-' || (char >= '0' && char <= '9')) {
      let end = index + 1
      while (end < json.length && /[0-9.eE+-]/.test(json[end]!)) end++
      const token = json.slice(index, end)
      out += /^-?\d{16,}$/.test(token) ? `"${token}"` : token
      index = end
    } else {
      out += char
      index++
    }
  }
  return out
}
