import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExpectedPayment } from '../../src/core/expectation.js'
import { chainId, foreignParty, type Harness, startHarness } from './psbtFixture.js'

/**
 * sendTransfer for a payment someone else describes (`HandleInput.expected`, core/expectation.ts): its effect is
 * the amount to the recipient, from the account; the router refuses any difference, on the embedded regtest chain.
 */

const recipient = foreignParty('described payee')
const stranger = foreignParty('someone else')
let h: Harness

beforeAll(async () => {
  h = await startHarness()
  h.chain.fund((await h.address(84, 0, 0)).address, 100_000)
})
afterAll(async () => {
  await h.stop()
})

const described = (): ExpectedPayment => ({
  source: 'The payment gateway',
  chainId,
  account: `${chainId}:${h.accountId}`,
  asset: `${chainId}/slip44:1`,
  amount: '30000',
  recipient: `${chainId}:${recipient.address}`,
  decimals: 8,
  symbol: 'BTC',
})

const send = (to: string, amount: string, expected = described()) =>
  h.rpc.handle({
    chainId,
    request: {
      id: 1,
      jsonrpc: '2.0',
      method: 'sendTransfer',
      params: { account: h.accountId, recipientAddress: to, amount },
    },
    expected,
  })

describe('sendTransfer against a described payment', () => {
  it('refuses more than shown, or another recipient, before anything is signed; sends exactly the payment', async () => {
    expect(await send(recipient.address, '30001')).toMatchObject({
      error: {
        data: {
          rule: 'pay.amount_mismatch',
          reason: `The payment gateway shows 0.0003 BTC; this request transfers 0.00030001 BTC to ${recipient.address} (bitcoin transfer).`,
        },
      },
    })
    expect(await send(stranger.address, '30000')).toMatchObject({
      error: { data: { rule: 'pay.recipient_mismatch' } },
    })
    expect(h.approvals).toEqual([])
    // The payee as a QR code writes it (upper-case bech32) is the same script: compared as such, not as text.
    const upperCase = { ...described(), recipient: `${chainId}:${recipient.address.toUpperCase()}` }
    expect(await send(recipient.address, '30000', upperCase)).toMatchObject({
      result: { txid: expect.any(String) },
    })
  })
})
