import {
  AnswerTooLargeError,
  fetchFailureReason,
  quoteLongIntegers,
  readBoundedText,
  timeoutSignal,
} from '../../core/http.js'
import { printableLine } from '../../core/text.js'
import { EmulationAnswerError, isRecord } from './outcome.js'

/** The largest emulator answer read (a 20-transaction DEX trace with metadata is about 300 KB). */
export const maxEmulatorAnswerBytes = 4 * 1024 * 1024

/**
 * An emulator that did not answer with a trace: HTTP status and the service's `{"error": "…"}` text when it
 * gave one. Its message never holds the URL (which may carry an API key) or a credential.
 */
export class EmulatorError extends Error {
  override name = 'EmulatorError'
  constructor(
    message: string,
    readonly status?: number,
    readonly serviceError?: string,
  ) {
    super(message)
  }
}

export type EmulatorPost = {
  fetch: typeof fetch
  url: string
  headers: Record<string, string>
  body: unknown
  /** The request's own signal (the namespace stops waiting); the post also stops after `timeoutMs`. */
  signal: AbortSignal
  timeoutMs: number
  /** For reasons: `toncenter emulateTonConnect`. */
  what: string
}

/** POSTs `body` as JSON and reads the answer (at most `maxEmulatorAnswerBytes`), 64-bit numbers kept exact. */
export async function postToEmulator(post: EmulatorPost): Promise<unknown> {
  let response: Response
  let text: string
  try {
    response = await post.fetch(post.url, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', ...post.headers },
      body: JSON.stringify(post.body),
      signal: timeoutSignal(post.timeoutMs, post.signal),
    })
    text = await readBoundedText(response, maxEmulatorAnswerBytes)
  } catch (error) {
    const reason =
      error instanceof AnswerTooLargeError
        ? `the answer is larger than ${maxEmulatorAnswerBytes / 1024 / 1024} MiB`
        : fetchFailureReason(error)
    throw new EmulatorError(
      `${post.what}: ${reason === 'request timed out' ? `no answer within ${post.timeoutMs} ms` : reason}`,
    )
  }
  let answer: unknown
  try {
    answer = JSON.parse(quoteLongIntegers(text))
  } catch {
    throw new EmulatorError(`${post.what}: HTTP ${response.status}, the answer is not JSON`, response.status)
  }
  if (response.status !== 200) {
    const serviceError = isRecord(answer) && typeof answer.error === 'string' ? answer.error : undefined
    throw new EmulatorError(
      `${post.what}: HTTP ${response.status}${serviceError === undefined ? '' : `, ${printableLine(serviceError, 300)}`}`,
      response.status,
      serviceError,
    )
  }
  return answer
}

/** `read()`, an answer the reader cannot use reported as that emulator's failure (`toncenter emulateTrace: …`). */
export function readAnswer<T>(what: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (error instanceof EmulationAnswerError) throw new EmulatorError(`${what}: ${error.message}`)
    throw error
  }
}
