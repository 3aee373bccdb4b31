import { base58, base64 } from '@scure/base'
import { describe, expect, it } from 'vitest'
import { solana, solanaKeys, solanaMainnet } from '../../../src/solana/index.js'
import { verifySolanaSignTransaction } from '../../../src/verify/index.js'
import { kitTransaction, mnemonic, ours } from '../../solana/helpers.js'
import { optionsBody, payClientFixture } from './fakes.js'

const succeeded = { status: 200, body: { status: 'succeeded', isFinal: true, pollInMs: null } }

function solanaOption(params: unknown) {
  return {
    id: 'opt_sol',
    account: `${solanaMainnet}:${ours()}`,
    // What kitTransaction's System transfer moves: 0.0015 SOL.
    amount: {
      unit: `caip19/${solanaMainnet}/slip44:501`,
      value: '1500000',
      display: { assetSymbol: 'SOL', decimals: 9 },
    },
    actions: [
      { type: 'walletRpc', data: { chain_id: solanaMainnet, method: 'solana_signTransaction', params } },
    ],
  }
}

describe('pay: solana_signTransaction actions (spec rule 4)', () => {
  for (const [shape, wrap] of [
    ['JSON text of an object', (p: object) => JSON.stringify(p)],
    ['a one-object array', (p: object) => [p]],
  ] as const) {
    it(`runs through the router and confirms the base64 signed transaction, not broadcast (${shape})`, async () => {
      const { base64: transaction } = kitTransaction({ feePayer: ours() })
      const { client, gateway, reviews } = payClientFixture(
        {
          options: [{ status: 200, body: optionsBody([solanaOption(wrap({ transaction }))]) }],
          confirm: [succeeded],
        },
        { namespaces: [solana({ keys: solanaKeys.fromMnemonic(mnemonic) })] },
      )
      const result = await client.pay('pay_1', 'opt_sol')
      const confirmed = (gateway.calls('confirm')[0]!.body as { results: { type: string; data: string[] }[] })
        .results
      expect(confirmed).toEqual([{ type: 'walletRpc', data: result.results }])
      const signed = result.results[0]!
      expect(verifySolanaSignTransaction({ transaction, pubkey: ours() }, { transaction: signed })).toEqual({
        valid: true,
      })
      expect(reviews[0]!.context).toMatchObject({ payment: 'pay_1', action: '1 of 1' })
    })
  }

  it('a base58 transaction is answered to the gateway in base64', async () => {
    const { base64: transaction } = kitTransaction({ feePayer: ours() })
    const { client } = payClientFixture(
      {
        options: [
          {
            status: 200,
            body: optionsBody([
              solanaOption(JSON.stringify({ transaction: base58.encode(base64.decode(transaction)) })),
            ]),
          },
        ],
        confirm: [succeeded],
      },
      { namespaces: [solana({ keys: solanaKeys.fromMnemonic(mnemonic) })] },
    )
    const result = await client.pay('pay_1', 'opt_sol')
    expect(() => base64.decode(result.results[0]!)).not.toThrow()
    expect(verifySolanaSignTransaction({ transaction }, { transaction: result.results[0] }).valid).toBe(true)
  })
})
