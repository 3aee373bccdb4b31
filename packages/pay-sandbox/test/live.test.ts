import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  deployLiveToken,
  devMnemonic,
  type LiveChains,
  startLiveChains,
} from '@wallet-rpc/devchains/liveChains'
import {
  type Address,
  createPublicClient,
  createWalletClient,
  decodeFunctionData,
  erc20Abi,
  type Hex,
  http,
  type PublicClient,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletRpc } from 'wallet-rpc'
import { eip155, httpProvider, mnemonicKeys } from 'wallet-rpc/eip155'
import { createPayClient } from 'wallet-rpc/pay'
import { type PaySandbox, startPaySandbox, startWebhookReceiver, type WebhookReceiver } from '../src/index.js'
import { api, expectError, usd } from './helpers.js'

/**
 * Live mode on real local chains (anvil with the sandbox's LiveToken, litesvm): the mode follows from the key,
 * test and live books are separate, and a live payment made by wallet-rpc's own wallet through wallet-rpc/pay
 * is judged on the chain and settled with a real transfer, checked here with an independent viem client.
 */

const checkoutHost = 'pay.sandbox.test'
const chainId = 'eip155:31337'
let chains: LiveChains
let sandbox: PaySandbox
let receiver: WebhookReceiver
let chain: PublicClient
const merchantPayout = mnemonicToAccount(devMnemonic, { addressIndex: 9 }).address
const buyerIndex = 3
const buyer = mnemonicToAccount(devMnemonic, { addressIndex: buyerIndex }).address

beforeAll(async () => {
  chains = await startLiveChains({ solana: false })
  chain = createPublicClient({ transport: http(chains.anvil.url) }) as PublicClient
  receiver = await startWebhookReceiver({ secrets: () => sandbox?.live?.webhooks.secrets() ?? [] })
  sandbox = await startPaySandbox({
    checkoutUrl: `https://${checkoutHost}`,
    pollInMs: 20,
    live: { ...chains.live, pollMs: 20, confirmTimeoutMs: 3_000, log: () => {} },
  })
  sandbox.live!.webhooks.setEndpoint(receiver.url)
}, 60_000)

afterAll(async () => {
  await sandbox?.stop()
  await receiver?.stop()
  await chains?.stop()
})

const liveApi = () =>
  api(sandbox, { 'api-key': sandbox.live!.apiKey, 'merchant-id': sandbox.live!.merchantId })
const testApi = () => api(sandbox, { 'merchant-id': sandbox.merchantId })
const token = () => sandbox.live!.tokens[chainId]!

const balance = (address: Address, tokenAddress: Address = token().address) =>
  chain.readContract({ address: tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [address] })

function payClient(addressIndex = buyerIndex, target?: PaySandbox) {
  const wallet = createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex }),
        chains: [{ chainId: 31337, provider: httpProvider(chains.anvil.url) }],
      }),
    ],
    approve: () => true,
  })
  const client = createPayClient({
    baseUrl: (target ?? sandbox).url,
    apiKey: (target ?? sandbox).live!.apiKey,
    wallet,
    trustedHosts: [checkoutHost],
    maxPollMs: 10_000,
  })
  return { wallet, client }
}

async function livePayment(cents = '1250', call = liveApi()) {
  const reply = await call('POST', '/v1/payments', {
    body: { referenceId: `live-${Math.random().toString(36).slice(2, 8)}`, amount: usd(cents) },
  })
  expect(reply.status).toBe(201)
  return reply.body as { id: string; paymentLink: string }
}

async function settleTo(address: Address) {
  const reply = await liveApi()('POST', `/v1/merchants/${sandbox.live!.merchantId}/settlements/crypto`, {
    body: {
      settlements: [{ asset: `${chainId}/erc20:${token().address}`, destination: `${chainId}:${address}` }],
    },
  })
  expect(reply.status).toBe(201)
}

describe('modes: the key decides, the books are separate', () => {
  it('prints two keys: svc_test_ for test, svc_ (not svc_test_) for live', () => {
    expect(sandbox.apiKey).toMatch(/^svc_test_/)
    expect(sandbox.live!.apiKey).toMatch(/^svc_(?!test_)/)
    expect(sandbox.live!.merchantId).not.toBe(sandbox.merchantId)
  })

  it('a test key never sees live objects and a live key never sees test ones', async () => {
    const live = await livePayment('300')
    const test = await testApi()('POST', '/v1/payments', {
      body: { referenceId: 'test-1', amount: usd('300') },
    })
    expect(test.status).toBe(201)
    // Payments: each mode's status route answers 404 for the other mode's payment.
    expectError(await testApi()('GET', `/v1/payments/${live.id}/status`), 404, 'payment_not_found')
    // The live merchant does not exist for a test key, nor the test merchant for the live key.
    expectError(
      await api(sandbox)('GET', `/v1/payments/${live.id}/status`, {
        headers: { 'merchant-id': sandbox.live!.merchantId },
      }),
      404,
      'merchant_not_found',
    )
    expectError(
      await liveApi()('GET', `/v1/payments/${test.body.id}/status`, {
        headers: { 'merchant-id': sandbox.merchantId },
      }),
      404,
      'merchant_not_found',
    )
    expectError(await liveApi()('GET', `/v1/payments/${test.body.id}/status`), 404, 'payment_not_found')
    // The gateway too, with either credential.
    expectError(
      await api(sandbox)('POST', `/v1/gateway/payment/${live.id}/options`, {
        body: { accounts: [`${chainId}:${buyer}`] },
      }),
      404,
      'payment_not_found',
    )
    expectError(
      await liveApi()('POST', `/v1/gateway/payment/${test.body.id}/options`, {
        body: { accounts: [`${chainId}:${buyer}`] },
      }),
      404,
      'payment_not_found',
    )
    const liveByAppId = await api(sandbox)('GET', `/v1/gateway/payment/${live.id}`, {
      headers: { 'api-key': undefined, 'app-id': sandbox.live!.appId, 'client-id': 'c1' },
    })
    expect(liveByAppId.status).toBe(200)
    expectError(
      await api(sandbox)('GET', `/v1/gateway/payment/${live.id}`, {
        headers: { 'api-key': undefined, 'app-id': sandbox.appId, 'client-id': 'c1' },
      }),
      404,
      'payment_not_found',
    )
    // Lists and merchants.
    const testList = await api(sandbox)('GET', '/v1/payments')
    const liveList = await liveApi()('GET', '/v1/payments')
    const ids = (reply: { body: { data: { paymentId: string }[] } }) =>
      reply.body.data.map((item) => item.paymentId)
    expect(ids(testList)).toContain(test.body.id)
    expect(ids(testList)).not.toContain(live.id)
    expect(ids(liveList)).toContain(live.id)
    expect(ids(liveList)).not.toContain(test.body.id)
    const testMerchants = (await api(sandbox)('GET', '/v1/merchants')).body.data.map(
      (m: { id: string }) => m.id,
    )
    const liveMerchants = (await liveApi()('GET', '/v1/merchants')).body.data.map((m: { id: string }) => m.id)
    expect(testMerchants).toEqual([sandbox.merchantId])
    expect(liveMerchants).toEqual([sandbox.live!.merchantId])
    // Webhook endpoints: live has the receiver, test has none.
    expect((await liveApi()('GET', '/v1/webhook-endpoint')).body.endpoint.url).toBe(receiver.url)
    expectError(await api(sandbox)('GET', '/v1/webhook-endpoint'), 404, 'webhook_endpoint_not_found')
    // A live-form key the sandbox did not issue is refused, as a wrong test key is.
    expectError(
      await api(sandbox, { 'api-key': 'svc_notissued12345678' })('GET', '/v1/merchants'),
      401,
      'invalid_api_key',
    )
    // Live payments change state on the chain only: the test control that forces success is refused.
    expectError(await liveApi()('POST', `/_sandbox/payments/${live.id}/succeed`), 409, 'invalid_transition')
  })
  it("a test key can neither read nor change the live merchant's settlement destinations, nor a live key the test one's", async () => {
    const liveMerchant = sandbox.live!.merchantId
    const path = (merchantId: string) => `/v1/merchants/${merchantId}/settlements/crypto`
    const asset = `${chainId}/erc20:0x1111111111111111111111111111111111111111`
    const original = `${chainId}:${merchantPayout}`
    const created = await liveApi()('POST', path(liveMerchant), {
      body: { settlements: [{ asset, destination: original }] },
    })
    expect(created.status).toBe(201)
    const id = created.body.settlements[0].id as string
    const attacker = `${chainId}:${rogue.address}`
    // The test key: the live merchant does not exist for it, whatever the route.
    expectError(await testApi()('GET', path(liveMerchant)), 404, 'merchant_not_found')
    expectError(
      await testApi()('POST', path(liveMerchant), {
        body: {
          settlements: [
            { asset: `${chainId}/erc20:0x2222222222222222222222222222222222222222`, destination: attacker },
          ],
        },
      }),
      404,
      'merchant_not_found',
    )
    expectError(
      await testApi()('PUT', `${path(liveMerchant)}/${id}`, { body: { destination: attacker } }),
      404,
      'merchant_not_found',
    )
    // The live key on the test merchant: the same.
    expectError(await liveApi()('GET', path(sandbox.merchantId)), 404, 'merchant_not_found')
    expectError(
      await liveApi()('POST', path(sandbox.merchantId), {
        body: { settlements: [{ asset, destination: attacker }] },
      }),
      404,
      'merchant_not_found',
    )
    // The live entry is as it was registered, and the only one; the test merchant got none.
    const listed = await liveApi()('GET', path(liveMerchant))
    expect(
      listed.body.data.filter(
        (entry: { asset: string }) =>
          entry.asset.endsWith('0x1111111111111111111111111111111111111111') ||
          entry.asset.endsWith('0x2222222222222222222222222222222222222222'),
      ),
    ).toEqual([expect.objectContaining({ id, asset, destination: original })])
    expect((await testApi()('GET', path(sandbox.merchantId))).body.data).toEqual([])
  })

  it("each mode's events go to its own endpoint only, signed with its own secret, with its live flag", async () => {
    const testReceiver = await startWebhookReceiver({ secrets: () => sandbox.webhooks.secrets() })
    try {
      sandbox.webhooks.setEndpoint(testReceiver.url)
      const test = await testApi()('POST', '/v1/payments', {
        body: { referenceId: 'test-hooks', amount: usd('200') },
      })
      sandbox.control.succeed(test.body.id)
      const testEvent = await testReceiver.waitFor(
        (entry) => entry.eventType === 'payment.succeeded' && entry.paymentId === test.body.id,
      )
      expect(testEvent.verified).toBe(true)
      expect(testReceiver.inbox.snapshot(test.body.id)).toMatchObject({ live: false })
      // The live endpoint never got the test payment; the test one never a live payment; different secrets.
      expect(receiver.received.some((entry) => entry.paymentId === test.body.id)).toBe(false)
      expect(testReceiver.received.every((entry) => entry.paymentId === test.body.id)).toBe(true)
      expect(sandbox.webhooks.secrets()).not.toContain(sandbox.live!.webhooks.secret())
    } finally {
      sandbox.webhooks.deleteEndpoint()
      await testReceiver.stop()
    }
  })

  it("a live key with no live webhook endpoint is told so in live mode's words", async () => {
    const endpoint = await liveApi()('GET', '/v1/webhook-endpoint')
    expect(endpoint.status).toBe(200)
    const bare = await startPaySandbox({ live: { ...chains.live, log: () => {} } })
    try {
      const reply = await api(bare, { 'api-key': bare.live!.apiKey })('GET', '/v1/webhook-endpoint')
      expectError(reply, 404, 'webhook_endpoint_not_found')
      expect(reply.body.message).toBe('no webhook endpoint in live mode')
      const testReply = await api(bare)('GET', '/v1/webhook-endpoint')
      expect(testReply.body.message).toBe('no webhook endpoint in test mode')
    } finally {
      await bare.stop()
    }
  })
})

describe('a live EVM payment, judged on the chain', () => {
  it('paid by the wallet through wallet-rpc/pay: succeeded with the real hash, settled by a real transfer', async () => {
    await settleTo(merchantPayout)
    const payment = await livePayment('1250')
    const buyerBefore = await balance(buyer)
    const payoutBefore = await balance(merchantPayout)
    const { wallet, client } = payClient()
    try {
      const offered = await client.getOptions(payment.paymentLink)
      const option = offered.options.find((candidate) => candidate.account === `${chainId}:${buyer}`)
      expect(option?.available).toBe(true)
      const result = await client.pay(payment.paymentLink, option!.id, { options: offered })
      expect(result.status).toBe('succeeded')
      const hash = result.results[0] as Hex
      // The chain, read independently: mined, from the buyer, 12.50 USDC moved.
      const receipt = await chain.getTransactionReceipt({ hash })
      expect(receipt.status).toBe('success')
      expect(receipt.from.toLowerCase()).toBe(buyer.toLowerCase())
      expect(buyerBefore - (await balance(buyer))).toBe(12_500_000n)
      const status = await liveApi()('GET', `/v1/payments/${payment.id}/status`)
      expect(status.body).toMatchObject({ status: 'succeeded', isFinal: true, info: { txId: hash } })
      // Settlement: payment.settled with the hash of a real transfer to the merchant's destination.
      const settled = await receiver.waitFor(
        (entry) => entry.eventType === 'payment.settled' && entry.paymentId === payment.id,
      )
      expect(settled.verified).toBe(true)
      // biome-ignore lint/suspicious/noExplicitAny: the snapshot is read field by field
      const data = receiver.inbox.snapshot(payment.id) as Record<string, any>
      expect(data).toMatchObject({
        live: true,
        status: 'succeeded',
        tx_id: hash,
        settlement: { settled: true },
      })
      const settlementReceipt = await chain.getTransactionReceipt({ hash: data.settlement.tx_hash })
      expect(settlementReceipt.status).toBe('success')
      expect(settlementReceipt.from.toLowerCase()).toBe(sandbox.live!.treasury.evm.toLowerCase())
      expect((await balance(merchantPayout)) - payoutBefore).toBe(12_500_000n)
    } finally {
      await wallet.close()
    }
  }, 60_000)
})

/** A wallet that does not do what the option asked: it sends its own transaction, then confirms with its hash. */
async function confirmWithOwnTransaction(
  send: (
    wallet: ReturnType<typeof rogueWallet>,
    option: { account: Address; payee: Address; value: bigint },
  ) => Promise<Hex>,
  cents = '700',
) {
  const payment = await livePayment(cents)
  const call = liveApi()
  const options = await call('POST', `/v1/gateway/payment/${payment.id}/options`, {
    body: { accounts: [`${chainId}:${rogue.address}`] },
  })
  expect(options.status).toBe(200)
  const option = options.body.options[0]
  const [transaction] = option.actions[0].data.params as [{ data: Hex }]
  const { args } = decodeFunctionData({ abi: erc20Abi, data: transaction.data })
  const wallet = rogueWallet()
  const hash = await send(wallet, {
    account: rogue.address,
    payee: args[0] as Address,
    value: args[1] as bigint,
  })
  const confirm = await call('POST', `/v1/gateway/payment/${payment.id}/confirm?maxPollMs=10000`, {
    body: { optionId: option.id, results: [{ type: 'walletRpc', data: [hash] }] },
  })
  expect(confirm.status).toBe(200)
  const snapshot = sandbox.live!.control.payment(payment.id)
  return { payment, confirm: confirm.body, snapshot, hash }
}

const rogue = mnemonicToAccount(devMnemonic, { addressIndex: 5 })
const rogueWallet = () => createWalletClient({ account: rogue, transport: http(chains.anvil.url) })

describe('a live payment the chain does not support fails with failure_reason', () => {
  it('pays too little', async () => {
    const { confirm, snapshot } = await confirmWithOwnTransaction((wallet, option) =>
      wallet.writeContract({
        ...contract(),
        functionName: 'transfer',
        args: [option.payee, option.value - 1n],
        chain: null,
      }),
    )
    expect(confirm).toMatchObject({ status: 'failed', isFinal: true })
    expect(snapshot.failure_reason).toMatch(/paid too little: 6999999 of 7000000/)
  })

  it('pays in the wrong token', async () => {
    const other = await deployLiveToken(chains.anvil.url, { symbol: 'FAKE', fund: [rogue.address] })
    const { confirm, snapshot } = await confirmWithOwnTransaction((wallet, option) =>
      wallet.writeContract({
        address: other.address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [option.payee, option.value],
        chain: null,
      }),
    )
    expect(confirm.status).toBe('failed')
    expect(snapshot.failure_reason).toMatch(new RegExp(`paid in token ${other.address}`))
  })

  it('pays the wrong address', async () => {
    const { confirm, snapshot } = await confirmWithOwnTransaction((wallet, option) =>
      wallet.writeContract({
        ...contract(),
        functionName: 'transfer',
        args: [merchantPayout, option.value],
        chain: null,
      }),
    )
    expect(confirm.status).toBe('failed')
    expect(snapshot.failure_reason).toMatch(new RegExp(`paid ${merchantPayout}, not the payment address`))
  })

  it('sends a transaction that reverts', async () => {
    const { confirm, snapshot, hash } = await confirmWithOwnTransaction((wallet, option) =>
      // More than the account holds: the token reverts; a fixed gas limit skips estimation so it is mined.
      wallet.writeContract({
        ...contract(),
        functionName: 'transfer',
        args: [option.payee, 10n ** 30n],
        gas: 200_000n,
        chain: null,
      }),
    )
    expect((await chain.getTransactionReceipt({ hash })).status).toBe('reverted')
    expect(confirm.status).toBe('failed')
    expect(snapshot.failure_reason).toMatch(/reverted on chain/)
    expect(snapshot.tx_id).toBe(hash)
  })

  it('reuses the transaction of a payment that already succeeded', async () => {
    let first: Hex | undefined
    const paid = await confirmWithOwnTransaction(async (wallet, option) => {
      first = await wallet.writeContract({
        ...contract(),
        functionName: 'transfer',
        args: [option.payee, option.value],
        chain: null,
      })
      return first
    })
    expect(paid.confirm.status).toBe('succeeded')
    const replayed = await confirmWithOwnTransaction(async () => first!)
    expect(replayed.confirm.status).toBe('failed')
    expect(replayed.snapshot.failure_reason).toMatch(new RegExp(`already paid payment ${paid.payment.id}`))
  })

  it('confirms with a hash that is never mined: failed after the bounded wait', async () => {
    const { confirm, snapshot } = await confirmWithOwnTransaction(async () => `0x${'ab'.repeat(32)}` as Hex)
    expect(confirm.status).toBe('failed')
    expect(snapshot.failure_reason).toMatch(/was not mined within 3 s/)
  }, 30_000)
})

const contract = () => ({ address: token().address, abi: erc20Abi })

describe('fees and a restart with --data', () => {
  it('settles the net amount after the spec fee, and the live book survives a restart', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pay-live-'))
    const payout = mnemonicToAccount(devMnemonic, { addressIndex: 8 }).address
    const start = () =>
      startPaySandbox({
        checkoutUrl: `https://${checkoutHost}`,
        pollInMs: 20,
        dataDir,
        fee: { fixed: '30', percentage: '2.9' },
        live: { ...chains.live, pollMs: 20, confirmTimeoutMs: 3_000, log: () => {} },
      })
    let first: PaySandbox | undefined = await start()
    let second: PaySandbox | undefined
    const { wallet, client } = payClient(4, first)
    const payer = mnemonicToAccount(devMnemonic, { addressIndex: 4 }).address
    try {
      const live = first.live!
      const call = api(first, { 'api-key': live.apiKey, 'merchant-id': live.merchantId })
      const settlement = await call('POST', `/v1/merchants/${live.merchantId}/settlements/crypto`, {
        body: {
          settlements: [
            { asset: `${chainId}/erc20:${token().address}`, destination: `${chainId}:${payout}` },
          ],
        },
      })
      expect(settlement.status).toBe(201)
      const created = await call('POST', '/v1/payments', {
        body: { referenceId: 'fee-1', amount: usd('1250') },
      })
      const pending = await call('POST', '/v1/payments', {
        body: { referenceId: 'fee-2', amount: usd('500') },
      })
      const payoutBefore = await balance(payout)
      const paid = await client.pay(
        created.body.paymentLink,
        (await options(client, created.body.paymentLink, payer)).id,
      )
      expect(paid.status).toBe('succeeded')
      await live.idle()
      // 12.50 USD, fee 0.30 + 2.9 % (0.3625 rounded up to 0.37) = 0.67: 11.83 USDC reach the merchant.
      expect((await balance(payout)) - payoutBefore).toBe(11_830_000n)
      const before = live.control.payment(created.body.id)
      expect(before).toMatchObject({
        live: true,
        fee: { kind: 'base_plus_percent', total_amount: { unit: 'iso4217/USD', value: '67' } },
        settlement: { settled: true, amount: { unit: 'iso4217/USD', value: '1183' } },
      })
      const pendingOption = await options(client, pending.body.paymentLink, payer)
      const keys = { apiKey: live.apiKey, merchantId: live.merchantId, treasury: live.treasury.evm }
      await first.stop()
      first = undefined

      second = await start()
      const again = second.live!
      expect({ apiKey: again.apiKey, merchantId: again.merchantId, treasury: again.treasury.evm }).toEqual(
        keys,
      )
      expect(again.restoredPayments).toBe(2)
      expect(again.control.payment(created.body.id)).toEqual(before)
      const callAgain = api(second, { 'api-key': again.apiKey, 'merchant-id': again.merchantId })
      const status = await callAgain('GET', `/v1/payments/${created.body.id}/status`)
      expect(status.body).toMatchObject({ status: 'succeeded', info: { txId: paid.results[0] } })
      // Still invisible to the test key after the restart.
      expectError(
        await api(second, { 'merchant-id': second.merchantId })(
          'GET',
          `/v1/payments/${created.body.id}/status`,
        ),
        404,
        'payment_not_found',
      )
      // The option offered before the restart is paid after it, and settles from the same treasury.
      const laterClient = createPayClient({
        baseUrl: second.url,
        apiKey: again.apiKey,
        wallet,
        trustedHosts: [checkoutHost],
        maxPollMs: 10_000,
      })
      const paidLater = await laterClient.pay(pending.body.paymentLink, pendingOption.id)
      expect(paidLater.status).toBe('succeeded')
      await again.idle()
      // 5.00 USD, fee 0.30 + 0.145 → 0.15 = 0.45: 4.55 USDC.
      expect((await balance(payout)) - payoutBefore).toBe(11_830_000n + 4_550_000n)
      expect(again.control.payment(pending.body.id)).toMatchObject({ settlement: { settled: true } })
    } finally {
      await wallet.close()
      await first?.stop()
      await second?.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})

async function options(client: ReturnType<typeof createPayClient>, link: string, payer: Address) {
  const offered = await client.getOptions(link)
  const option = offered.options.find((candidate) => candidate.account === `${chainId}:${payer}`)
  if (option === undefined) throw new Error('no option for the payer')
  return option
}

describe('live chain work across restarts (anvil with automine off, so nothing is mined until the test says so)', () => {
  const rpc = (method: string, params: unknown[] = []): Promise<unknown> =>
    chain.request({ method: method as 'eth_chainId', params: params as never })
  const nonce = (address: Address, blockTag: 'latest' | 'pending') =>
    chain.getTransactionCount({ address, blockTag })
  async function until(condition: () => boolean | Promise<boolean>, label: string): Promise<void> {
    for (let tries = 0; tries < 500; tries++) {
      if (await condition()) return
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error(`timed out waiting for ${label}`)
  }

  it('a payment confirmed before a restart is judged after it; a settlement broadcast before one is not paid twice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'pay-live-crash-'))
    const payout = mnemonicToAccount(devMnemonic, { addressIndex: 7 }).address
    const start = () =>
      startPaySandbox({
        checkoutUrl: `https://${checkoutHost}`,
        dataDir,
        live: { ...chains.live, pollMs: 20, confirmTimeoutMs: 30_000, log: () => {} },
      })
    let current = await start()
    try {
      const live = current.live!
      const call = api(current, { 'api-key': live.apiKey, 'merchant-id': live.merchantId })
      await call('POST', `/v1/merchants/${live.merchantId}/settlements/crypto`, {
        body: {
          settlements: [
            { asset: `${chainId}/erc20:${token().address}`, destination: `${chainId}:${payout}` },
          ],
        },
      })
      const created = await call('POST', '/v1/payments', {
        body: { referenceId: 'crash-1', amount: usd('900') },
      })
      const id = created.body.id as string
      const offered = await call('POST', `/v1/gateway/payment/${id}/options`, {
        body: { accounts: [`${chainId}:${rogue.address}`] },
      })
      const option = offered.body.options[0]
      const treasury = live.treasury.evm as Address
      const payoutBefore = await balance(payout)
      await rpc('evm_setAutomine', [false])
      const hash = await rogueWallet().writeContract({
        ...contract(),
        functionName: 'transfer',
        args: [treasury, 9_000_000n],
        gas: 100_000n,
        chain: null,
      })
      const confirmed = await call('POST', `/v1/gateway/payment/${id}/confirm`, {
        body: { optionId: option.id, results: [{ type: 'walletRpc', data: [hash] }] },
      })
      expect(confirmed.body.status).toBe('processing')
      await current.stop()

      // Restart 1: the payment is still processing; once its block is mined it succeeds and settlement starts.
      current = await start()
      expect(current.live!.control.payment(id)).toMatchObject({ status: 'processing', tx_id: hash })
      await rpc('evm_mine')
      await until(async () => (await nonce(treasury, 'pending')) === 1, 'the settlement transfer in the pool')
      expect(current.live!.control.payment(id)).toMatchObject({
        status: 'succeeded',
        settlement: { settled: false },
      })
      const [pending] = Object.values(
        ((await rpc('txpool_content')) as { pending: Record<string, Record<string, { hash: Hex }>> }).pending,
      ).flatMap((byNonce) => Object.values(byNonce))
      await current.stop()

      // Restart 2: the journaled settlement is broadcast again, the same bytes; mined once, paid once.
      current = await start()
      await rpc('evm_mine')
      await until(
        () => (current.live!.control.payment(id).settlement as { settled: boolean }).settled,
        'payment.settled',
      )
      const settled = current.live!.control.payment(id) as { settlement: { tx_hash: string } }
      expect(settled.settlement.tx_hash).toBe(pending!.hash)
      expect(await nonce(treasury, 'latest')).toBe(1)
      expect((await balance(payout)) - payoutBefore).toBe(9_000_000n)
      const events = current.live!.control.events().filter((event) => event.data.payment_id === id)
      expect(events.map((event) => event.type)).toEqual([
        'payment.created',
        'payment.processing',
        'payment.succeeded',
        'payment.settled',
      ])
    } finally {
      await rpc('evm_setAutomine', [true])
      await current.stop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})
