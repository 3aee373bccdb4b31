import { describe, expect, it } from 'vitest'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { type TonChainProvider, ton, tonKeys } from '../../src/ton/index.js'
import { memoryProvider, plainDestination, request, vectors } from './fixtures.js'

// test-vectors/ton/mnemonic-wallets.json: the ton-connect/kit WalletV5R1 fixture mnemonic and its seed.
const fixture = vectors('mnemonic-wallets.json').wallets[1]
const now = 1_700_000_000

describe('secrets stay inside the ton namespace', () => {
  it('no mnemonic word run or seed in any review, response or reported error, signed or refused', async () => {
    const failing: TonChainProvider = {
      ...memoryProvider().provider,
      sendBoc: async () => {
        throw new Error('connection reset')
      },
    }
    const reviews: unknown[] = []
    const errors: unknown[] = []
    const rpc = createWalletRpc({
      namespaces: [
        ton({
          keys: tonKeys.fromMnemonic(fixture.mnemonic),
          providers: { 'ton:-239': memoryProvider().provider, 'ton:-3': failing },
        }),
      ],
      approve: (review) => {
        reviews.push(review)
        return true
      },
      onError: (error) => errors.push(error),
      clock: () => now * 1000,
    })
    const message = { address: plainDestination, amount: '1' }
    const calls = [
      { chainId: 'ton:-239', method: 'ton_sendMessage', params: { messages: [message] } },
      { chainId: 'ton:-3', method: 'ton_sendMessage', params: { messages: [message] } },
      { chainId: 'ton:-239', method: 'ton_sendMessage', params: { messages: [{ ...message, amount: '0' }] } },
      { chainId: 'ton:-239', method: 'ton_signData', params: { type: 'text', text: 'x' } },
      { chainId: 'ton:-239', method: 'ton_signData', params: { type: 'binary', bytes: 'AAAA' } },
      { chainId: 'ton:-239', method: 'ton_signData', params: { type: 'cell', schema: 'x', cell: 'AAAA' } },
    ]
    const responses = []
    for (const { chainId, method, params } of calls) {
      responses.push(
        await rpc.handle({ chainId, request: request(method, params), origin: 'https://dapp.example' }),
      )
    }
    // Both outcomes were reached: signed answers and refusals.
    expect(responses.filter((response) => 'result' in response)).toHaveLength(3)
    expect(responses.filter((response) => 'error' in response)).toHaveLength(3)
    expect(reviews).toHaveLength(4)

    const seen =
      JSON.stringify({ responses, reviews, sessionProperties: await rpc.sessionProperties() }) +
      errors.map((error) => `${String(error)} ${(error as Error).stack ?? ''}`).join('\n')
    const words = (fixture.mnemonic as string).split(' ')
    for (let index = 0; index + 3 <= words.length; index++) {
      expect(seen).not.toContain(words.slice(index, index + 3).join(' '))
    }
    expect(seen).not.toContain(fixture.seed)
    expect(seen).not.toContain(Buffer.from(fixture.seed, 'hex').toString('base64'))
    await rpc.close()
  })
})
