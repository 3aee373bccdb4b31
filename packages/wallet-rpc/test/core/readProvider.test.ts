import { describe, expect, it } from 'vitest'
import { InvalidParamsError, ProviderError } from '../../src/core/errors.js'
import { readProvider } from '../../src/core/readProvider.js'
import { hasHiddenCharacters } from '../../src/core/text.js'

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

  it("a node's words (Solana's RPC errors come this way) reach the dapp as one bounded, printable line", async () => {
    const words = `blockhash \u202egpj.exe\u0000\u001b[2J\r\n${'x'.repeat(5000)}`
    const error = await readProvider('getBalance', () => Promise.reject(new Error(words))).catch(
      (e: unknown) => e as ProviderError,
    )
    const { reason } = error.data as { reason: string }
    expect(reason.startsWith('getBalance: blockhash \\u{202E}gpj.exe\\u{0}\\u{1B}[2J\\u{D}\\u{A}xx')).toBe(
      true,
    )
    expect(hasHiddenCharacters(reason) || /[\t\n\r]/.test(reason)).toBe(false)
    expect(reason.length).toBeLessThan(600)
  })

  it('lets one of our errors through unchanged', async () => {
    const ours = new InvalidParamsError('blockhash expired', { path: 'transaction' })
    await expect(readProvider('isBlockhashValid', () => Promise.reject(ours))).rejects.toBe(ours)
  })
})
