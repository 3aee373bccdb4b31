import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import {
  AnswerTooLargeError,
  fetchFailureReason,
  quoteLongIntegers,
  readBoundedText,
  splitCredentials,
  timeoutSignal,
} from '../../src/core/http.js'

describe('splitCredentials', () => {
  it('moves user:password@ into a Basic authorization header', () => {
    expect(splitCredentials('https://alice:p%40ss@node.example/api', 'esplora')).toEqual({
      url: 'https://node.example/api',
      authorization: `Basic ${Buffer.from('alice:p@ss').toString('base64')}`,
    })
    expect(splitCredentials('http://127.0.0.1:3002/', 'esplora')).toEqual({
      url: 'http://127.0.0.1:3002/',
      authorization: undefined,
    })
  })

  it.each(['not a url', 'ftp://node.example', 'file:///etc/passwd'])(
    'refuses %s without echoing it',
    (url) => {
      expect(() => splitCredentials(url, 'toncenter')).toThrow(
        /^toncenter: the URL (is not valid|must be http\(s\))$/,
      )
    },
  )
})

describe('fetchFailureReason', () => {
  it('names timeouts and network codes, and never a URL', async () => {
    const refused = await fetch('http://user:secret@127.0.0.1:9/?api_key=secret').catch(
      (error: unknown) => error,
    )
    expect(fetchFailureReason(refused)).not.toContain('secret')
    const port = await closedPort()
    const unreachable = await fetch(`http://127.0.0.1:${port}/?api_key=secret`).catch(
      (error: unknown) => error,
    )
    expect(fetchFailureReason(unreachable)).toBe('network error ECONNREFUSED')
    expect(fetchFailureReason(new DOMException('x', 'TimeoutError'))).toBe('request timed out')
    expect(fetchFailureReason(new Error('socket hang up'))).toBe('socket hang up')
    expect(fetchFailureReason('weird')).toBe('request failed')
  })
})

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('timeoutSignal', () => {
  it('aborts with a TimeoutError, also where AbortSignal.timeout is missing (React Native)', async () => {
    const aborted = (signal: AbortSignal) =>
      new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason)))
    expect(await aborted(timeoutSignal(10))).toMatchObject({ name: 'TimeoutError' })
    vi.stubGlobal(
      'AbortSignal',
      Object.assign(function AbortSignal() {}, { timeout: undefined }),
    )
    try {
      const reason = await aborted(timeoutSignal(10))
      expect(reason).toMatchObject({ name: 'TimeoutError', message: 'timed out after 10 ms' })
      expect(fetchFailureReason(reason)).toBe('request timed out')
    } finally {
      vi.unstubAllGlobals()
    }
  })
})

describe('timeoutSignal with a parent', () => {
  it('aborts with the parent’s reason when the parent aborts first, with a TimeoutError otherwise', async () => {
    const parent = new AbortController()
    const signal = timeoutSignal(60_000, parent.signal)
    parent.abort(new Error('stopped'))
    expect(signal.aborted).toBe(true)
    expect((signal.reason as Error).message).toBe('stopped')
    const already = timeoutSignal(60_000, AbortSignal.abort(new Error('before')))
    expect((already.reason as Error).message).toBe('before')
    const timed = timeoutSignal(10, new AbortController().signal)
    await new Promise((resolve) => timed.addEventListener('abort', resolve))
    expect(timed.reason).toMatchObject({ name: 'TimeoutError' })
  })
})

describe('readBoundedText', () => {
  const body = (text: string, chunked: boolean) =>
    new Response(
      chunked
        ? new ReadableStream({
            start(controller) {
              for (const part of text.match(/.{1,4}/gs) ?? [])
                controller.enqueue(new TextEncoder().encode(part))
              controller.close()
            },
          })
        : text,
      chunked ? {} : { headers: { 'content-length': String(new TextEncoder().encode(text).length) } },
    )

  it('reads an answer within the bound, whole characters across chunks', async () => {
    expect(await readBoundedText(body('héllo, wörld', true), 64)).toBe('héllo, wörld')
    expect(await readBoundedText(body('{"a":1}', false), 7)).toBe('{"a":1}')
  })

  it('refuses a longer one by its Content-Length, or while streaming it', async () => {
    await expect(readBoundedText(body('0123456789', false), 9)).rejects.toBeInstanceOf(AnswerTooLargeError)
    await expect(readBoundedText(body('0123456789', true), 9)).rejects.toThrow('larger than 9 bytes')
  })
})

describe('quoteLongIntegers', () => {
  it('keeps every digit of 64-bit numbers, leaves strings and short numbers alone', () => {
    const parsed = JSON.parse(
      quoteLongIntegers('{"a":-9007199254740993,"b":"12345678901234567890","c":42,"d":1.5e3}'),
    )
    expect(parsed).toEqual({ a: '-9007199254740993', b: '12345678901234567890', c: 42, d: 1500 })
    expect(BigInt(parsed.a)).toBe(-9_007_199_254_740_993n)
  })
})
