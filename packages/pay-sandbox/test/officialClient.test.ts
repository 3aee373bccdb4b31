import { WalletKit } from '@reown/walletkit'
import { base58 } from '@scure/base'
import { devMnemonic, type LiveChains, startLiveChains } from '@wallet-rpc/devchains/liveChains'
import { createSplMint } from '@wallet-rpc/devchains/splToken'
import { PayError, type PaymentOption, WalletConnectPay } from '@walletconnect/pay'
import { FailedTransactionMetadata } from 'litesvm'
import { type Address, createPublicClient, erc20Abi, http, type PublicClient } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletRpc, type WalletRpc } from 'wallet-rpc'
import { eip155, httpProvider, mnemonicKeys } from 'wallet-rpc/eip155'
import { executePayActions } from 'wallet-rpc/pay'
import { solana, solanaKeys, solanaLocalnet, solanaRpc } from 'wallet-rpc/solana'
import { relayCore, startLocalRelay } from '../../wallet-rpc/test/walletkit/localRelay.js'
import { gatewayErrorCodes } from '../src/errors.js'
import { type PaySandbox, startPaySandbox } from '../src/index.js'
import { api, usd } from './helpers.js'
import { blockOutsideFetch, startWireRecorder } from './wire.js'

/**
 * WalletConnect's own wallet-side Pay client, `@walletconnect/pay` 1.1.0 (its WASM core, as WalletKit's
 * `walletKit.pay` wraps it), pays against the sandbox end to end: test mode and live mode on anvil, and the
 * live Solana option on litesvm. Every action it hands over runs through a wallet-rpc router
 * (`executePayActions`); the chains are read back with independent clients. A recording proxy between client
 * and sandbox keeps every exchange, so each refusal's status and code can be checked against the client's list.
 */

const checkoutHost = 'pay.sandbox.test'
const evmChain = 'eip155:31337'
let chains: LiveChains
let sandbox: PaySandbox
let recorder: Awaited<ReturnType<typeof startWireRecorder>>
let offline: ReturnType<typeof blockOutsideFetch>
let chain: PublicClient

beforeAll(async () => {
  offline = blockOutsideFetch()
  chains = await startLiveChains()
  chain = createPublicClient({ transport: http(chains.anvil.url) }) as PublicClient
  sandbox = await startPaySandbox({
    checkoutUrl: `https://${checkoutHost}`,
    chains: { [evmChain]: chains.anvil.url },
    processingMs: 20,
    settlementMs: 20,
    pollInMs: 20,
    live: { ...chains.live, pollMs: 20, confirmTimeoutMs: 5_000, log: () => {} },
  })
  recorder = await startWireRecorder(sandbox.url)
}, 60_000)

afterAll(async () => {
  await recorder?.stop()
  await sandbox?.stop()
  await chains?.stop()
  offline?.restore()
})

/** The official client, through the recorder, with a test-mode or live key (`Api-Key`), as a wallet backend uses it. */
const officialClient = (apiKey: string) =>
  new WalletConnectPay({ apiKey, baseUrl: recorder.url, logger: 'silent' })

function evmWallet(addressIndex: number): WalletRpc {
  return createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex }),
        chains: [{ chainId: 31337, provider: httpProvider(chains.anvil.url) }],
      }),
    ],
    approve: () => true,
  })
}

async function createPayment(apiKey: string, merchantId: string, cents: string) {
  const reply = await api({ url: sandbox.url, apiKey }, { 'merchant-id': merchantId })(
    'POST',
    '/v1/payments',
    {
      body: { referenceId: `official-${Math.random().toString(36).slice(2, 8)}`, amount: usd(cents) },
    },
  )
  expect(reply.status).toBe(201)
  return reply.body as { id: string; paymentLink: string }
}

/** The wallet flow of the client's own docs: options, the option's actions, each executed by the wallet, confirm. */
async function payWithOfficialClient(
  client: InstanceType<typeof WalletConnectPay>,
  wallet: WalletRpc,
  paymentLink: string,
  account: string,
) {
  const offered = await client.getPaymentOptions({
    paymentLink,
    accounts: [account],
    includePaymentInfo: true,
  })
  const option = offered.options.find((candidate: PaymentOption) => candidate.account === account)
  expect(option, `an option for ${account}`).toBeDefined()
  const actions = await client.getRequiredPaymentActions({
    paymentId: offered.paymentId,
    optionId: option!.id,
  })
  const signatures = await executePayActions(wallet, actions, {
    paymentId: offered.paymentId,
    optionId: option!.id,
    option: option!,
    origin: 'https://wallet.example',
  })
  const confirmed = await client.confirmPayment({
    paymentId: offered.paymentId,
    optionId: option!.id,
    signatures,
  })
  return { offered, option: option!, actions, signatures, confirmed }
}

/** Every refusal the recorder saw is a 4xx (never a 500) whose code the official client parses. */
function expectOnlyClientErrorCodes() {
  const refusals = recorder.exchanges.filter((exchange) => exchange.status >= 400)
  for (const refusal of refusals) {
    expect(refusal.status, refusal.response).toBeLessThan(500)
    expect(gatewayErrorCodes.has(JSON.parse(refusal.response).code), refusal.response).toBe(true)
  }
}

describe('@walletconnect/pay 1.1.0 against the sandbox, actions executed by wallet-rpc', () => {
  it('test mode, bare id and the checkout link (sent twice-encoded): approval mined on anvil, signature checked, succeeded', async () => {
    const wallet = evmWallet(4)
    const [address] = await wallet.accounts(evmChain)
    for (const form of ['id', 'link'] as const) {
      const created = await createPayment(sandbox.apiKey, sandbox.merchantId, '1250')
      const paymentLink = form === 'id' ? created.id : created.paymentLink
      const before = recorder.exchanges.length
      const paid = await payWithOfficialClient(
        officialClient(sandbox.apiKey),
        wallet,
        paymentLink,
        `${evmChain}:${address}`,
      )
      const sent = recorder.exchanges.slice(before)
      if (form === 'link') {
        // The client keeps the once-encoded link as its payment id and encodes it again into every path.
        expect(paid.offered.paymentId).toBe(encodeURIComponent(created.paymentLink))
        expect(sent[0]!.target).toContain(encodeURIComponent(encodeURIComponent(created.paymentLink)))
      } else expect(paid.offered.paymentId).toBe(created.id)
      expect(paid.offered.info).toMatchObject({
        status: 'requires_action',
        merchant: { name: 'Sandbox Merchant' },
      })
      expect(paid.actions.map((action) => action.walletRpc.method)).toEqual([
        'eth_sendTransaction',
        'eth_signTypedData_v4',
      ])
      expect(paid.confirmed).toMatchObject({
        status: 'succeeded',
        isFinal: true,
        info: {
          txId: `test:${created.id}`,
          optionAmount: { value: '12500000', display: { assetSymbol: 'USDC' } },
        },
      })
      // The approval the wallet sent is on the chain, from the wallet's account.
      const receipt = await chain.getTransactionReceipt({ hash: paid.signatures[0] as `0x${string}` })
      expect(receipt.status).toBe('success')
      expect(receipt.from.toLowerCase()).toBe(address!.toLowerCase())
      expect(sandbox.control.payment(created.id)).toMatchObject({ status: 'succeeded' })
      expect(
        sent.map((exchange) => `${exchange.method} ${exchange.target.split('/').pop()} ${exchange.status}`),
      ).toEqual([
        'POST options?includePaymentInfo=true 200',
        'POST fetch 200',
        'POST confirm 200',
        ...sent.slice(3).map(() => 'GET status 200'),
      ])
      // The resolved version is echoed under the headers the client sent.
      expect(sent[0]!.responseHeaders).toMatchObject({
        'pay-version': '2026-02-19.preview',
        'wcp-version': '2026-02-19.preview',
        'api-version': '2026-02-19.preview',
      })
    }
    expectOnlyClientErrorCodes()
  })

  it('WalletKit 1.6.0’s walletKit.pay runs in Node: App-Id (payConfig) and the Core’s Client-Id, test mode, succeeded', async () => {
    const relay = await startLocalRelay()
    try {
      const walletKit = await WalletKit.init({
        core: relayCore(relay, 'pay-wallet'),
        metadata: { name: 'Test Wallet', description: '', url: 'https://wallet.example', icons: [] },
        payConfig: { baseUrl: recorder.url, appId: sandbox.appId, logger: 'silent' },
      })
      expect(walletKit.pay).toBeDefined()
      const wallet = evmWallet(4)
      const [address] = await wallet.accounts(evmChain)
      const created = await createPayment(sandbox.apiKey, sandbox.merchantId, '990')
      const before = recorder.exchanges.length
      const paid = await payWithOfficialClient(
        walletKit.pay as InstanceType<typeof WalletConnectPay>,
        wallet,
        created.paymentLink,
        `${evmChain}:${address}`,
      )
      expect(paid.confirmed).toMatchObject({ status: 'succeeded', isFinal: true })
      const [first] = recorder.exchanges.slice(before)
      expect(first!.headers).toMatchObject({
        'app-id': sandbox.appId,
        'client-id': await walletKit.core.crypto.getClientId(),
      })
      expect(first!.headers['api-key']).toBeUndefined()
      await walletKit.core.relayer.transportClose()
    } finally {
      await relay.close()
    }
    expectOnlyClientErrorCodes()
  })

  it('live on anvil: the token moves to the treasury, the payment succeeds with the hash, the merchant is settled on chain', async () => {
    const live = sandbox.live!
    const token = live.tokens[evmChain]!
    const payout = mnemonicToAccount(devMnemonic, { addressIndex: 8 }).address
    const registered = await api({ url: sandbox.url, apiKey: live.apiKey })(
      'POST',
      `/v1/merchants/${live.merchantId}/settlements/crypto`,
      {
        body: {
          settlements: [
            { asset: `${evmChain}/erc20:${token.address}`, destination: `${evmChain}:${payout}` },
          ],
        },
      },
    )
    expect(registered.status).toBe(201)
    const balance = (owner: Address) =>
      chain.readContract({ address: token.address, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
    const wallet = evmWallet(5)
    const [buyer] = (await wallet.accounts(evmChain)) as Address[]
    const created = await createPayment(live.apiKey, live.merchantId, '725')
    const buyerBefore = await balance(buyer!)
    const payoutBefore = await balance(payout)
    const paid = await payWithOfficialClient(
      officialClient(live.apiKey),
      wallet,
      created.paymentLink,
      `${evmChain}:${buyer}`,
    )
    const hash = paid.signatures[0] as `0x${string}`
    expect(paid.actions.map((action) => action.walletRpc.method)).toEqual(['eth_sendTransaction'])
    expect(paid.confirmed).toMatchObject({ status: 'succeeded', isFinal: true, info: { txId: hash } })
    expect(buyerBefore - (await balance(buyer!))).toBe(7_250_000n)
    await live.idle()
    // biome-ignore lint/suspicious/noExplicitAny: the snapshot is read field by field
    const snapshot = live.control.payment(created.id) as Record<string, any>
    expect(snapshot).toMatchObject({
      live: true,
      status: 'succeeded',
      tx_id: hash,
      settlement: { settled: true },
    })
    const settlement = await chain.getTransactionReceipt({ hash: snapshot.settlement.tx_hash })
    expect(settlement.status).toBe('success')
    expect((await balance(payout)) - payoutBefore).toBe(7_250_000n)
    expectOnlyClientErrorCodes()
  })

  it('live Solana option on litesvm: the wallet signs the transfer, the sandbox submits it, it executes and settles', async () => {
    const live = sandbox.live!
    const runtime = chains.solana!
    const [payerKey] = solanaKeys.fromMnemonic(devMnemonic, { account: 7 })
    const payer = base58.encode(payerKey!.publicKey)
    runtime.svm.airdrop(payer as never, 1_000_000_000n as never)
    chains.fundSolana(payer, 100_000_000n)
    const merchant = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
    const asset = `${solanaLocalnet}/token:${live.solanaMint}`
    const registered = await api({ url: sandbox.url, apiKey: live.apiKey })(
      'POST',
      `/v1/merchants/${live.merchantId}/settlements/crypto`,
      { body: { settlements: [{ asset, destination: `${solanaLocalnet}:${merchant}` }] } },
    )
    expect(registered.status).toBe(201)
    const mint = createSplMint(runtime, { address: live.solanaMint! })
    const wallet = createWalletRpc({
      namespaces: [
        solana({
          keys: solanaKeys.fromMnemonic(devMnemonic, { account: 7 }),
          chains: [solanaLocalnet],
          providers: { [solanaLocalnet]: solanaRpc(runtime.url) },
        }),
      ],
      approve: () => true,
    })
    const created = await createPayment(live.apiKey, live.merchantId, '310')
    const payerBefore = mint.balance(payer)
    const merchantBefore = mint.balance(merchant)
    const paid = await payWithOfficialClient(
      officialClient(live.apiKey),
      wallet,
      created.paymentLink,
      `${solanaLocalnet}:${payer}`,
    )
    expect(paid.option.amount.unit).toBe(`caip19/${asset}`)
    expect(paid.actions.map((action) => action.walletRpc.method)).toEqual(['solana_signTransaction'])
    expect(paid.confirmed).toMatchObject({ status: 'succeeded', isFinal: true })
    const signature = paid.confirmed.info!.txId
    const outcome = runtime.svm.getTransaction(signature as never)
    expect(outcome !== null && !(outcome instanceof FailedTransactionMetadata)).toBe(true)
    expect(payerBefore - mint.balance(payer)).toBe(3_100_000n)
    await live.idle()
    expect(live.control.payment(created.id)).toMatchObject({
      tx_id: signature,
      settlement: { settled: true },
    })
    expect(mint.balance(merchant) - merchantBefore).toBe(3_100_000n)
    expectOnlyClientErrorCodes()
  })
})

describe('bad input through the official client: a 4xx with a code from its list, never a 500, nothing moved', () => {
  const account = () => `${evmChain}:${mnemonicToAccount(devMnemonic, { addressIndex: 4 }).address}`

  it('a link on an untrusted host (or a lookalike) is refused before any option is made', async () => {
    const created = await createPayment(sandbox.apiKey, sandbox.merchantId, '500')
    const client = officialClient(sandbox.apiKey)
    for (const link of [
      created.paymentLink.replace(checkoutHost, 'evil.test'),
      created.paymentLink.replace(checkoutHost, `${checkoutHost}.evil.test`),
      created.paymentLink.replace(checkoutHost, `evil${checkoutHost}`),
      created.paymentLink.replace('https://', `https://${checkoutHost}@evil.test/`),
      created.paymentLink.replace('https://', 'http://'),
    ]) {
      const before = recorder.exchanges.length
      const error = await client.getPaymentOptions({ paymentLink: link, accounts: [account()] }).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(error, link).toBeInstanceOf(PayError)
      expect((error as Error).message, link).toMatch(/Invalid request: 400/)
      const [refusal] = recorder.exchanges.slice(before)
      expect(refusal).toMatchObject({ status: 400 })
      expect(JSON.parse(refusal!.response)).toMatchObject({
        code: 'invalid_params',
        issues: [{ field: 'id' }],
      })
    }
    expect(sandbox.control.payment(created.id)).toMatchObject({ status: 'requires_action' })
    expect(sandbox.control.events().filter((event) => event.data.payment_id === created.id)).toHaveLength(1)
  })

  it('a double-encoded id that decodes to garbage is a 4xx (404 for an id that names nothing, 400 for bad encoding)', async () => {
    const client = officialClient(sandbox.apiKey)
    for (const link of ['%25ZZ', 'pay_%2541bc', '%E0%A4%A']) {
      const error = await client.getPaymentOptions({ paymentLink: link, accounts: [account()] }).then(
        () => undefined,
        (caught: unknown) => caught,
      )
      expect(error, link).toBeInstanceOf(PayError)
    }
    const call = api(sandbox)
    for (const [segment, status, code] of [
      ['%25E0%25A4%25A', 400, 'invalid_params'], // twice encoded, once decoded: %E0%A4%A, not valid encoding
      ['%2525ZZ', 404, 'payment_not_found'],
      ['https%253A%252F%252Fpay.sandbox.test%252Fpay_%2525FF', 400, 'invalid_params'],
      ['pay_doesNotExist', 404, 'payment_not_found'],
    ] as const) {
      const reply = await call('POST', `/v1/gateway/payment/${segment}/options`, {
        body: { accounts: [account()] },
      })
      expect({ status: reply.status, code: reply.body.code }, segment).toEqual({ status, code })
    }
    expectOnlyClientErrorCodes()
  })

  it('an unknown option: actions and confirm are refused (400 invalid_params, the client’s "invalid option"), nothing moves', async () => {
    const created = await createPayment(sandbox.apiKey, sandbox.merchantId, '500')
    const client = officialClient(sandbox.apiKey)
    await client.getPaymentOptions({ paymentLink: created.paymentLink, accounts: [account()] })
    const paymentId = encodeURIComponent(created.paymentLink)
    const actions = await client.getRequiredPaymentActions({ paymentId, optionId: 'opt_unknown' }).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect((actions as Error).message).toMatch(/400: no option opt_unknown/)
    const confirmed = await client
      .confirmPayment({ paymentId, optionId: 'opt_unknown', signatures: [`0x${'11'.repeat(65)}`] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      )
    expect((confirmed as Error).message).toMatch(/Invalid option: 400: no option opt_unknown/)
    expect(sandbox.control.payment(created.id)).toMatchObject({ status: 'requires_action' })
    expectOnlyClientErrorCodes()
  })

  it('the client sent nothing anywhere but the sandbox (its telemetry posts were blocked)', () => {
    expect(offline.blocked.length).toBeGreaterThan(0)
    expect(offline.blocked.every((origin) => /^https:\/\/[a-z.-]+\.walletconnect\.org$/.test(origin))).toBe(
      true,
    )
  })
})
