import { describe, expect, it } from 'vitest'
import { InvalidParamsError, ProviderError } from '../../src/core/errors.js'
import { readProvider } from '../../src/core/readProvider.js'

describe('readProvider', () => {
  it('returns what the call returns', async () => {
    expect(await readProvider('getSeqno', async () => 7)).toBe(7)
  })

  it("turns a provider's own failure into -32603 naming the call, with the original as cause", async () => {
    const original = new TypeError('fetch failed')
    const error = await readProvider('getSeqno', () => Promise.reject(original)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect(error).toMatchObject({ code: -32603, data: { reason: 'getSeqno: fetch failed' } })
    expect((error as ProviderError).cause).toBe(original)
    await expect(readProvider('send', () => Promise.reject('down'))).rejects.toMatchObject({
      data: { reason: 'send: down' },
    })
  })

  it('lets one of our errors through unchanged', async () => {
    const ours = new InvalidParamsError('blockhash expired', { path: 'transaction' })
    await expect(readProvider('isBlockhashValid', () => Promise.reject(ours))).rejects.toBe(ours)
  })
})
