import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { fetchFailureReason, splitCredentials, timeoutSignal } from '../../src/core/http.js'

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
