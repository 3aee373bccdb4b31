import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { createWalletClient, type Hex, http, type LocalAccount } from 'viem'
import { foundry } from 'viem/chains'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaySandbox, startPaySandbox } from '../src/index.js'
import { api, buyer, createPayment, signTypedDataParams, stranger } from './helpers.js'

let anvil: AnvilInstance
let sandbox: PaySandbox
let call: ReturnType<typeof api>

beforeAll(async () => {
  anvil = await startAnvil()
  sandbox = await startPaySandbox({ chains: { 'eip155:31337': anvil.url }, processingMs: 0, settlementMs: 0 })
  call = api(sandbox)
})
afterAll(async () => {
  await sandbox?.stop()
  await anvil?.stop()
})

type TransactionType = 'eip1559' | 'legacy' | 'eip2930'

async function send(
  account: LocalAccount,
  transaction: { to: Hex; data: Hex },
  type: TransactionType,
): Promise<Hex> {
  const wallet = createWalletClient({ account, chain: foundry, transport: http(anvil.url) })
  return wallet.sendTransaction({ ...transaction, type } as Parameters<typeof wallet.sendTransaction>[0])
}

/** Runs a payment where `sendAs` sends the approval (possibly altered) and the buyer signs the authorization. */
async function payOnChain(options: {
  sendAs?: LocalAccount
  type?: TransactionType
  alterData?: boolean
  hash?: Hex
}) {
  const id = await createPayment(sandbox, `anvil-${Math.random()}`)
  const offered = await call('POST', `/v1/gateway/payment/${id}/options`, {
    body: { accounts: [`eip155:31337:${buyer.address}`] },
  })
  const option = offered.body.options[0]
  const [approval] = option.actions[0].data.params as [{ to: Hex; data: Hex }]
  const data = options.alterData === true ? (`${approval.data.slice(0, -2)}00` as Hex) : approval.data
  const hash =
    options.hash ??
    (await send(options.sendAs ?? buyer, { to: approval.to, data }, options.type ?? 'eip1559'))
  const fetched = await call('POST', `/v1/gateway/payment/${id}/fetch`, {
    body: { optionId: option.id, data: option.actions[1].data.data },
  })
  const signature = await signTypedDataParams(buyer, fetched.body.actions[0].data.params)
  const reply = await call('POST', `/v1/gateway/payment/${id}/confirm?maxPollMs=30000`, {
    body: {
      optionId: option.id,
      results: [
        { type: 'walletRpc', data: [hash] },
        { type: 'walletRpc', data: [signature] },
      ],
    },
  })
  return { id, hash, reply }
}

describe('confirm checks eth_sendTransaction results on a real chain (anvil)', () => {
  for (const type of ['eip1559', 'legacy', 'eip2930'] as const) {
    it(`accepts the buyer's own ${type} approval transaction`, async () => {
      const { id, hash, reply } = await payOnChain({ type })
      expect(reply.body.status).toBe('succeeded')
      expect(sandbox.control.payment(id).transaction_hash).toBe(hash)
    })
  }

  it('fails the payment when the approval was signed by another account', async () => {
    const { id, reply } = await payOnChain({ sendAs: stranger })
    expect(reply.body.status).toBe('failed')
    expect(sandbox.control.payment(id).failure_reason).toBe(
      'result 0: transaction is not signed by the account',
    )
  })

  it('fails the payment when the transaction carries other calldata', async () => {
    const { id, reply } = await payOnChain({ alterData: true })
    expect(reply.body.status).toBe('failed')
    expect(sandbox.control.payment(id).failure_reason).toBe('result 0: transaction calldata differs')
  })

  it('fails the payment when the hash names no transaction on the chain', async () => {
    const { id, reply } = await payOnChain({ hash: `0x${'12'.repeat(32)}` })
    expect(reply.body.status).toBe('failed')
    expect(sandbox.control.payment(id).failure_reason).toBe('result 0: transaction not found on the chain')
  })
})
