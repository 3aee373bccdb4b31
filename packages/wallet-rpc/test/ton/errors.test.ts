import { describe, expect, it } from 'vitest'
import { request, tonWallet } from './fixtures.js'

/** How @tonconnect/sdk's WalletConnect provider categorises an error: by its message text (research ton.md §0.12). */
const tonConnectCode = (message: string) =>
  /reject/i.test(message) ? 300 : /tonvalidationerror/i.test(message) ? 1 : 0

describe('ton error answers as @tonconnect/sdk reads them', () => {
  it('bad input is a TonValidationError (bad request, 1) with our code and reason kept', async () => {
    const { rpc } = tonWallet()
    const answer = await rpc.handle({
      chainId: 'ton:-239',
      origin: 'https://app.example.com',
      request: request('ton_signData', [{ type: 'nope' }]),
    })
    if (!('error' in answer)) throw new Error('expected an error')
    expect(answer.error.code).toBe(-32602)
    expect(answer.error.message).toMatch(/^TonValidationError: /)
    expect(answer.error.message).toBe(
      `TonValidationError: ${(answer.error.data as { reason: string }).reason}`,
    )
    expect(tonConnectCode(answer.error.message)).toBe(1)
  })

  it('a rejection reads as user declined (300)', async () => {
    const { rpc } = tonWallet({ approve: false })
    const answer = await rpc.handle({
      chainId: 'ton:-239',
      origin: 'https://app.example.com',
      request: request('ton_signData', [{ type: 'text', text: 'hi' }]),
    })
    expect(answer).toMatchObject({ error: { code: 5000, message: 'User rejected.' } })
    if ('error' in answer) expect(tonConnectCode(answer.error.message)).toBe(300)
  })
})
