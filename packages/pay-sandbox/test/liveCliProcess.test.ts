import type { ChildProcess } from 'node:child_process'
import {
  type Address,
  createPublicClient,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  isAddressEqual,
  type PublicClient,
  parseEventLogs,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletRpc } from 'wallet-rpc'
import { eip155, httpProvider, mnemonicKeys } from 'wallet-rpc/eip155'
import { createPayClient } from 'wallet-rpc/pay'
import { startWebhookReceiver, type WebhookReceiver } from '../src/index.js'
import { devMnemonic } from '../src/live/token.js'
import { api, expectError, spawnPaySandboxCli, usd } from './helpers.js'

/**
 * Issue 16 item 1 end to end: the real CLI, `wallet-rpc pay-sandbox --live --fee 30+2.9`, in its own process,
 * starting its own anvil. This process pays with the printed live svc_ key through wallet-rpc/pay and reads the
 * chain itself (its own viem client): the payment succeeds with a hash anvil mined, moving exactly the amount
 * of the printed token to the printed treasury; the settlement is a transfer anvil mined of the net amount
 * (amount − the spec's fee) to the merchant's destination, and the signed `payment.settled` carries its hash.
 */

const chainId = 'eip155:31337'
const buyerIndex = 7
const buyer = mnemonicToAccount(devMnemonic, { addressIndex: buyerIndex }).address
const payout = mnemonicToAccount(devMnemonic, { addressIndex: 6 }).address

let child: ChildProcess
let output: () => string = () => ''
let banner: {
  url: string
  testKey: string
  testMerchant: string
  liveKey: string
  liveMerchant: string
  anvilUrl: string
  token: Address
  treasury: Address
}
let chain: PublicClient
let receiver: WebhookReceiver | undefined
let webhookSecret = ''

beforeAll(async () => {
  const started = await spawnPaySandboxCli(['--live', '--port', '0', '--fee', '30+2.9'])
  child = started.child
  output = started.output
  const all = (pattern: RegExp) => [...output().matchAll(pattern)].map((match) => match[1]!)
  const [testKey, liveKey] = all(/Api-Key:\s+(\S+)/g)
  const [testMerchant, liveMerchant] = all(/Merchant-Id:\s+(\S+)/g)
  const evm = /eip155:31337: (http:\/\/127\.0\.0\.1:\d+), USDC (0x[0-9a-fA-F]{40})/.exec(output())!
  banner = {
    url: /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output())![1]!,
    testKey: testKey!,
    testMerchant: testMerchant!,
    liveKey: liveKey!,
    liveMerchant: liveMerchant!,
    anvilUrl: evm[1]!,
    token: getAddress(evm[2]!),
    treasury: getAddress(/treasury:\s+(0x[0-9a-fA-F]{40})/.exec(output())![1]!),
  }
  chain = createPublicClient({ transport: http(banner.anvilUrl) }) as PublicClient
  receiver = await startWebhookReceiver({ secrets: () => [webhookSecret] })
}, 90_000)

afterAll(async () => {
  await receiver?.stop()
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
})

/** The sandbox in the child process, reached over HTTP only. */
const sandboxAt = () => ({ url: banner.url, apiKey: banner.testKey })
const liveApi = () => api(sandboxAt(), { 'api-key': banner.liveKey, 'merchant-id': banner.liveMerchant })
const testApi = () => api(sandboxAt(), { 'merchant-id': banner.testMerchant })

const balance = (address: Address) =>
  chain.readContract({ address: banner.token, abi: erc20Abi, functionName: 'balanceOf', args: [address] })

/** The token's Transfer logs of a mined transaction, read from anvil. */
async function transfers(hash: Hex) {
  const receipt = await chain.getTransactionReceipt({ hash })
  const logs = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
  return {
    receipt,
    moved: logs
      .filter((log) => isAddressEqual(log.address, banner.token))
      .map((log) => ({
        from: getAddress(log.args.from),
        to: getAddress(log.args.to),
        value: log.args.value,
      })),
  }
}

describe('wallet-rpc pay-sandbox --live, as a child process on the anvil it starts', () => {
  it('prints the live svc_ key beside the svc_test_ one and the fee', () => {
    expect(banner.testKey).toMatch(/^svc_test_/)
    expect(banner.liveKey).toMatch(/^svc_(?!test_)/)
    expect(banner.liveMerchant).not.toBe(banner.testMerchant)
    expect(output()).toContain('live chains:  started here')
    expect(output()).toContain('fee:          30 minor units + 2.9 % per payment')
  })

  it('a payment with the live key: mined on anvil, succeeded with its hash, settled net of the fee by a mined transfer', async () => {
    // The merchant's side, with the live key: a settlement destination and a webhook endpoint.
    const registered = await liveApi()('POST', `/v1/merchants/${banner.liveMerchant}/settlements/crypto`, {
      body: {
        settlements: [{ asset: `${chainId}/erc20:${banner.token}`, destination: `${chainId}:${payout}` }],
      },
    })
    expect(registered.status).toBe(201)
    const endpoint = await liveApi()('PUT', '/v1/webhook-endpoint', { body: { url: receiver!.url } })
    expect(endpoint.status).toBe(200)
    webhookSecret = endpoint.body.secret
    // The test book has no endpoint: the live one is the live mode's only.
    expectError(await testApi()('GET', '/v1/webhook-endpoint'), 404, 'webhook_endpoint_not_found')

    const created = await liveApi()('POST', '/v1/payments', {
      body: { referenceId: 'cli-live-1', amount: usd('2000') },
    })
    expect(created.status).toBe(201)
    const paymentId = created.body.id as string
    const buyerBefore = await balance(buyer)
    const payoutBefore = await balance(payout)

    // The wallet: wallet-rpc's eip155 namespace on the child's anvil, through wallet-rpc/pay.
    const wallet = createWalletRpc({
      namespaces: [
        eip155({
          keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: buyerIndex }),
          chains: [{ chainId: 31337, provider: httpProvider(banner.anvilUrl) }],
        }),
      ],
      approve: () => true,
    })
    let hash: Hex
    try {
      const client = createPayClient({
        baseUrl: banner.url,
        apiKey: banner.liveKey,
        wallet,
        trustedHosts: ['pay.sandbox.test'],
        maxPollMs: 10_000,
      })
      const offered = await client.getOptions(created.body.paymentLink)
      const option = offered.options.find((candidate) => candidate.account === `${chainId}:${buyer}`)
      expect(option?.amount?.unit).toBe(`caip19/${chainId}/erc20:${banner.token}`)
      const paid = await client.pay(created.body.paymentLink, option!.id, { options: offered })
      expect(paid.status).toBe('succeeded')
      hash = paid.results[0] as Hex
    } finally {
      await wallet.close()
    }

    // Anvil mined it: exactly 20.00 USDC (6 decimals) from the buyer to the treasury.
    const payment = await transfers(hash)
    expect(payment.receipt.status).toBe('success')
    expect(payment.moved).toEqual([{ from: buyer, to: banner.treasury, value: 20_000_000n }])
    expect(buyerBefore - (await balance(buyer))).toBe(20_000_000n)
    const status = await liveApi()('GET', `/v1/payments/${paymentId}/status`)
    expect(status.body).toMatchObject({ status: 'succeeded', isFinal: true, info: { txId: hash } })
    expect(status.body.info.txId).not.toMatch(/^test:/)

    // payment.settled, signed with the live endpoint's secret, carrying the settlement's hash.
    const settled = await receiver!.waitFor(
      (entry) => entry.eventType === 'payment.settled' && entry.paymentId === paymentId,
    )
    expect(settled.verified).toBe(true)
    // biome-ignore lint/suspicious/noExplicitAny: the snapshot is read field by field
    const data = receiver!.inbox.snapshot(paymentId) as Record<string, any>
    // Fee 0.30 + 2.9 % of 20.00 (0.58) = 0.88; net 19.12.
    expect(data).toMatchObject({
      live: true,
      status: 'succeeded',
      tx_id: hash,
      fee: { kind: 'base_plus_percent', total_amount: { unit: 'iso4217/USD', value: '88' } },
      processing: { fee: { kind: 'base_plus_percent', total_amount: { unit: 'iso4217/USD', value: '88' } } },
      settlement: { settled: true, amount: { unit: 'iso4217/USD', value: '1912' } },
    })
    const settlementHash = data.settlement.tx_hash as Hex
    expect(settlementHash).toMatch(/^0x[0-9a-f]{64}$/)
    const settlement = await transfers(settlementHash)
    expect(settlement.receipt.status).toBe('success')
    expect(getAddress(settlement.receipt.from)).toBe(banner.treasury)
    expect(settlement.moved).toEqual([{ from: banner.treasury, to: payout, value: 19_120_000n }])
    expect((await balance(payout)) - payoutBefore).toBe(19_120_000n)

    // The list item: the spec's fees and settlement fields, the real hashes; the test key does not see it.
    const list = await liveApi()('GET', '/v1/payments')
    const item = list.body.data.find((entry: { paymentId: string }) => entry.paymentId === paymentId)
    expect(item).toMatchObject({
      status: 'succeeded',
      transaction: { networkId: '31337', hash },
      fees: {
        total: { unit: 'iso4217/USD', value: '88' },
        fixed: { unit: 'iso4217/USD', value: '30' },
        percentage: '2.9',
      },
      settlement: { settled: true, amount: { unit: 'iso4217/USD', value: '1912' }, txHash: settlementHash },
    })
    expect(typeof item.settledAt).toBe('string')
    const testList = await testApi()('GET', '/v1/payments')
    expect(testList.body.data.map((entry: { paymentId: string }) => entry.paymentId)).not.toContain(paymentId)
    expectError(await testApi()('GET', `/v1/payments/${paymentId}/status`), 404, 'payment_not_found')
  }, 90_000)

  it('stops on SIGTERM, with the chains it started', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(output()).toContain('pay sandbox stopped')
    await expect(fetch(banner.anvilUrl, { method: 'POST', body: '{}' })).rejects.toThrow()
  }, 30_000)
})
