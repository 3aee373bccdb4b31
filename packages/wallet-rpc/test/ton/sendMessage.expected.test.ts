import { Address, beginCell } from '@ton/core'
import { describe, expect, it } from 'vitest'
import type { ExpectedPayment } from '../../src/core/expectation.js'
import { memoryProvider, plainDestination, request, tonWallet } from './fixtures.js'

/**
 * ton_sendMessage for a payment someone else describes (`HandleInput.expected`, core/expectation.ts): TON sent in
 * messages without a body or with a comment is what it moves; any other body (a jetton transfer: which jetton needs
 * a chain read) or a StateInit cannot be checked and is refused as unverified.
 */

const chainId = 'ton:-239'

async function wallet() {
  const { provider, sent } = memoryProvider()
  const made = tonWallet({ chains: [chainId], providers: { [chainId]: provider } })
  const [account] = await made.rpc.accounts(chainId)
  return { ...made, sent, account: account! }
}

const described = (account: string): ExpectedPayment => ({
  source: 'The payment gateway',
  chainId,
  account: `${chainId}:${account}`,
  asset: `${chainId}/slip44:607`,
  amount: '1000000000',
  recipient: `${chainId}:${plainDestination}`,
  decimals: 9,
  symbol: 'TON',
})

const comment = (text: string) =>
  beginCell().storeUint(0, 32).storeStringTail(text).endCell().toBoc().toString('base64')
const jettonTransfer = beginCell()
  .storeUint(0x0f8a7ea5, 32)
  .storeUint(0, 64)
  .storeCoins(5n)
  .storeAddress(null)
  .storeAddress(null)
  .storeBit(false)
  .storeCoins(0n)
  .storeBit(false)
  .endCell()
  .toBoc()
  .toString('base64')

describe('ton_sendMessage against a described payment', () => {
  it('sends exactly the payment (with a comment); refuses more TON, or a body it cannot read', async () => {
    const { rpc, sent, account } = await wallet()
    const send = (messages: unknown[]) =>
      rpc.handle({
        chainId,
        request: request('ton_sendMessage', [{ messages }]),
        expected: described(account),
      })
    expect(
      await send([{ address: plainDestination, amount: '1000000000', payload: comment('order 42') }]),
    ).toMatchObject({
      result: expect.any(String),
    })
    expect(await send([{ address: plainDestination, amount: '2000000000' }])).toMatchObject({
      error: {
        data: {
          rule: 'pay.amount_mismatch',
          reason: `The payment gateway shows 1 TON; this request transfers 2 TON to ${plainDestination} (TON transfer).`,
        },
      },
    })
    expect(
      await send([{ address: plainDestination, amount: '50000000', payload: jettonTransfer }]),
    ).toMatchObject({
      error: { data: { rule: 'pay.action_unverified' } },
    })
    expect(sent).toHaveLength(1)
  })

  it('compares addresses as the accounts they name: any TEP-2 form of the payee and the wallet is the same', async () => {
    const { rpc, sent, account } = await wallet()
    const bounceable = (text: string) => Address.parse(text).toString({ bounceable: true, urlSafe: false })
    const send = (expected: ExpectedPayment) =>
      rpc.handle({
        chainId,
        request: request('ton_sendMessage', [
          { messages: [{ address: plainDestination, amount: '1000000000' }] },
        ]),
        expected,
      })
    const otherForms = {
      ...described(account),
      account: `${chainId}:${Address.parse(account).toString({ bounceable: true })}`,
      recipient: `${chainId}:${Address.parse(plainDestination).toString({ bounceable: true })}`,
    }
    expect(otherForms.recipient).not.toBe(`${chainId}:${plainDestination}`)
    expect(await send(otherForms)).toMatchObject({ result: expect.any(String) })
    // Standard base64 (with + and /) is not a CAIP-10 account: refused at the field, never compared as text.
    expect(
      await send({ ...described(account), recipient: `${chainId}:${bounceable(plainDestination)}` }),
    ).toMatchObject({ error: { code: -32602, data: { path: 'expected.recipient' } } })
    const someoneElse = Address.parse(plainDestination)
    someoneElse.hash[0] = (someoneElse.hash[0]! + 1) % 256
    expect(
      await send({
        ...described(account),
        recipient: `${chainId}:${someoneElse.toString({ bounceable: false })}`,
      }),
    ).toMatchObject({ error: { data: { rule: 'pay.recipient_mismatch' } } })
    expect(sent).toHaveLength(1)
  })
})
