import { performance } from 'node:perf_hooks'
import { ed25519 } from '@noble/curves/ed25519.js'
import { base58, base64 } from '@scure/base'
import {
  type PaySandbox,
  startPaySandbox,
  startWebhookReceiver,
  type WebhookReceiver,
} from '@wallet-rpc/pay-sandbox'
import { type Address, createPublicClient, getAddress, type Hex, http, recoverTypedDataAddress } from 'viem'
import { createWalletRpc } from 'wallet-rpc'
import { eip155, httpProvider, mnemonicKeys } from 'wallet-rpc/eip155'
import { createPayClient, type FetchLike, parsePaymentLink } from 'wallet-rpc/pay'
import { solana, solanaKeys, solanaLocalnet, solanaRpc } from 'wallet-rpc/solana'
import { startAnvil } from '../../anvil.js'
import { type SolanaLocalChain, startSolanaLocal } from '../../solanaLocal.js'
import { createSplMint } from '../../splToken.js'

/**
 * The demo's payment act (issue 10 §5): a merchant creates a payment on the local test-mode gateway, the
 * wallet parses the buyer link, pays through the Pay client and the router on an anvil account (ERC-20
 * approval transaction, then an EIP-3009 typed-data signature), the payment turns `succeeded` then
 * `settled`, and a local merchant receiver verifies the signature of every webhook it gets. A second payment
 * takes the Solana option: the wallet signs the gateway's SPL transfer with `solana_signTransaction`, the
 * gateway submits it to the local Solana runtime, and the merchant's token balance there rises by the amount.
 * Each row is checked outside the code path that produced it (the receipt on anvil, the recovered signer,
 * the merchant's status endpoint, the receiver's HMAC check).
 */

export type PaymentDemoRow = { method: string; chain: string; verified: boolean; ms: number }

export type PaymentDemoOptions = {
  /** A running anvil (the demo's own). Without one the act starts one and stops it afterwards. */
  anvil?: { url: string; chainId: number }
  /** A running local Solana runtime (the demo's own). Without one the act starts one and stops it afterwards. */
  solana?: SolanaLocalChain
  /** Default: anvil's `test test … junk` dev mnemonic, whose first ten accounts anvil funds. */
  mnemonic?: string
  /** Payer account `m/44'/60'/0'/0/i`. Default 7, so the act does not share nonces with the eip155 act. */
  addressIndex?: number
  /** How long to wait for the settlement webhook. Default 15 s. */
  settleTimeoutMs?: number
}

const devMnemonic = 'test test test test test test test test test test test junk'
const checkoutHost = 'pay.sandbox.test'

export async function runPaymentDemoAct(options: PaymentDemoOptions = {}): Promise<PaymentDemoRow[]> {
  const ownAnvil = options.anvil === undefined ? await startAnvil() : undefined
  const anvil = options.anvil ?? ownAnvil!
  const ownSolana = options.solana === undefined ? await startSolanaLocal() : undefined
  const solanaChain = options.solana ?? ownSolana!
  // A USDC-style mint on the runtime; the payer's token account holds 100 tokens and some SOL for fees.
  const usdc = createSplMint(solanaChain, { address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' })
  const merchantSolana = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'
  const [solanaPayer] = solanaKeys.fromMnemonic(options.mnemonic ?? devMnemonic, { account: 7 })
  const solanaOwner = base58.encode(solanaPayer!.publicKey)
  solanaChain.svm.airdrop(
    solanaOwner as Parameters<typeof solanaChain.svm.airdrop>[0],
    1_000_000_000n as never,
  )
  usdc.fund(solanaOwner, 100_000_000n)
  const chain = `eip155:${anvil.chainId}`
  let sandbox: PaySandbox | undefined
  let receiver: WebhookReceiver | undefined
  const wallet = createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({
          mnemonic: options.mnemonic ?? devMnemonic,
          addressIndex: options.addressIndex ?? 7,
        }),
        chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
      }),
      solana({
        keys: solanaKeys.fromMnemonic(options.mnemonic ?? devMnemonic, { account: 7 }),
        chains: [solanaLocalnet],
        providers: { [solanaLocalnet]: solanaRpc(solanaChain.url) },
      }),
    ],
    // The demo's user approves every request; the review each approval shows carries the payment context.
    approve: () => true,
  })
  const rows: PaymentDemoRow[] = []
  const timed = async <T>(method: string, rowChain: string, run: () => Promise<[T, boolean]>): Promise<T> => {
    const started = performance.now()
    const [value, verified] = await run()
    rows.push({ method, chain: rowChain, verified, ms: Math.round(performance.now() - started) })
    return value
  }

  try {
    receiver = await startWebhookReceiver({ secrets: () => sandbox?.webhooks.secrets() ?? [] })
    sandbox = await startPaySandbox({
      checkoutUrl: `https://${checkoutHost}`,
      webhookUrl: receiver.url,
      chains: { [chain]: anvil.url },
      solana: { rpcUrl: solanaChain.url, mint: usdc.mint },
      processingMs: 200,
      settlementMs: 200,
      pollInMs: 100,
    })
    const gateway = sandbox

    const payment = await timed('merchant: POST /v1/payments', 'pay-sandbox', async () => {
      const response = await fetch(`${gateway.url}/v1/payments`, {
        method: 'POST',
        headers: {
          'Api-Key': gateway.apiKey,
          'Merchant-Id': gateway.merchantId,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ referenceId: 'demo-order-1', amount: { unit: 'iso4217/USD', value: '1250' } }),
      })
      const body = (await response.json()) as { id?: string; paymentLink?: string }
      const ok =
        response.status === 201 && typeof body.id === 'string' && typeof body.paymentLink === 'string'
      return [{ id: body.id ?? '', link: body.paymentLink ?? '' }, ok]
    })

    const paymentId = await timed('wallet: parsePaymentLink', 'pay-sandbox', async () => {
      const id = parsePaymentLink(payment.link, { trustedHosts: [checkoutHost] })
      return [id, id === payment.id]
    })

    // Timestamps of each action handed to the wallet and of the confirm call, for per-action timings, and
    // the actions the gateway's fetch returned, to check the signature against what the wallet was shown.
    const marks: number[] = []
    const fetchedActions: unknown[] = []
    const timedFetch: FetchLike = async (url, init) => {
      if (url.includes('/confirm') && marks.length === 2) marks.push(performance.now())
      const response = await fetch(url, init)
      if (url.includes('/fetch') && response.ok) {
        const body = (await response.clone().json()) as { actions?: unknown[] }
        fetchedActions.push(...(body.actions ?? []))
      }
      return response
    }
    const client = createPayClient({
      baseUrl: gateway.url,
      apiKey: gateway.apiKey,
      wallet,
      fetch: timedFetch,
      trustedHosts: [checkoutHost],
      maxPollMs: 5_000,
    })
    const [payer] = (await wallet.accounts(chain)) as Address[]

    const offered = await timed('gateway: options (CAIP-10 accounts)', chain, async () => {
      const response = await client.getOptions(payment.link, { includePaymentInfo: true })
      const option = response.options.find((candidate) => candidate.account === `${chain}:${payer}`)
      return [{ response, option }, option?.available === true]
    })
    if (paymentId === null || offered.option === undefined) return rows

    const paidAt = performance.now()
    const result = await client.pay(payment.link, offered.option.id, {
      options: offered.response,
      onAction: () => marks.push(performance.now()),
    })
    const confirmedAt = performance.now()
    const actionMs = (index: number) =>
      Math.round((marks[index + 1] ?? confirmedAt) - (marks[index] ?? paidAt))

    const rpc = createPublicClient({ transport: http(anvil.url) })
    const approvalHash = result.results[0] as Hex | undefined
    const receipt =
      approvalHash === undefined
        ? undefined
        : await rpc.waitForTransactionReceipt({ hash: approvalHash, timeout: 10_000, pollingInterval: 50 })
    rows.push({
      method: 'eth_sendTransaction (ERC-20 approve)',
      chain,
      verified: receipt?.status === 'success' && receipt.from.toLowerCase() === payer?.toLowerCase(),
      ms: actionMs(0),
    })

    const signature = result.results[1] as Hex | undefined
    rows.push({
      method: 'eth_signTypedData_v4 (EIP-3009 transfer)',
      chain,
      verified: signature !== undefined && (await signerMatches(fetchedActions, signature, payer)),
      ms: actionMs(1),
    })

    await timed('gateway: confirm → succeeded', 'pay-sandbox', async () => {
      const response = await fetch(`${gateway.url}/v1/payments/${payment.id}/status`, {
        headers: { 'Api-Key': gateway.apiKey, 'Merchant-Id': gateway.merchantId },
      })
      const status = (await response.json()) as { status?: string; isFinal?: boolean }
      return [
        undefined,
        result.status === 'succeeded' && status.status === 'succeeded' && status.isFinal === true,
      ]
    })
    rows[rows.length - 1]!.ms += Math.round(confirmedAt - (marks[2] ?? confirmedAt))

    const inbox = receiver
    await timed('webhook: payment.settled', 'pay-sandbox', async () => {
      const settled = await withTimeout(
        inbox.waitFor((entry) => entry.eventType === 'payment.settled' && entry.paymentId === payment.id),
        options.settleTimeoutMs ?? 15_000,
      )
      const snapshot = inbox.inbox.snapshot(payment.id)
      return [undefined, settled?.verified === true && snapshot?.status === 'succeeded']
    })

    await timed('webhooks: every signature verified', 'pay-sandbox', async () => {
      await gateway.webhooks.idle()
      const types = new Set(inbox.received.map((entry) => entry.eventType))
      const complete = [
        'payment.created',
        'payment.processing',
        'payment.succeeded',
        'payment.settled',
      ].every((type) => types.has(type))
      return [undefined, complete && inbox.received.every((entry) => entry.verified && entry.status === 200)]
    })
    await solanaPayment({ gateway, client, timed, rows, usdc, payer: solanaOwner, merchant: merchantSolana })
    return rows
  } finally {
    await wallet.close()
    await sandbox?.stop()
    await receiver?.stop()
    await ownAnvil?.stop()
    await ownSolana?.stop()
  }
}

type Timed = <T>(method: string, rowChain: string, run: () => Promise<[T, boolean]>) => Promise<T>

/**
 * The Solana option: the merchant registers its Solana destination, a 4.20 USD payment is paid with the
 * gateway's SPL transfer signed by the wallet and submitted by the gateway; checked on the runtime.
 */
async function solanaPayment(input: {
  gateway: PaySandbox
  client: ReturnType<typeof createPayClient>
  timed: Timed
  rows: PaymentDemoRow[]
  usdc: ReturnType<typeof createSplMint>
  payer: string
  merchant: string
}): Promise<void> {
  const { gateway, client, timed, usdc, payer, merchant } = input
  const headers = {
    'Api-Key': gateway.apiKey,
    'Merchant-Id': gateway.merchantId,
    'Content-Type': 'application/json',
  }
  const link = await timed('merchant: Solana settlement + POST /v1/payments', 'pay-sandbox', async () => {
    const settlement = await fetch(`${gateway.url}/v1/merchants/${gateway.merchantId}/settlements/crypto`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        settlements: [
          { asset: `${solanaLocalnet}/token:${usdc.mint}`, destination: `${solanaLocalnet}:${merchant}` },
        ],
      }),
    })
    const response = await fetch(`${gateway.url}/v1/payments`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ referenceId: 'demo-order-2', amount: { unit: 'iso4217/USD', value: '420' } }),
    })
    const body = (await response.json()) as { paymentLink?: string }
    return [body.paymentLink ?? '', settlement.status === 201 && response.status === 201]
  })
  const offered = await client.getOptions(link)
  const option = offered.options.find((candidate) => candidate.account === `${solanaLocalnet}:${payer}`)
  if (option === undefined) {
    input.rows.push({ method: 'gateway: Solana option', chain: solanaLocalnet, verified: false, ms: 0 })
    return
  }
  const before = usdc.balance(merchant)
  const result = await timed('solana_signTransaction (SPL transfer)', solanaLocalnet, async () => {
    const paid = await client.pay(link, option.id, { options: offered })
    // The base64 signed transaction: the payer's signature over its message verifies (an independent check).
    const signed = base64.decode(String(paid.results[0] ?? ''))
    const signatureValid =
      signed.length > 65 && ed25519.verify(signed.subarray(1, 65), signed.subarray(65), base58.decode(payer))
    return [paid, signatureValid]
  })
  await timed('gateway: submitted, merchant +4.2 USDC on the runtime', solanaLocalnet, async () => [
    undefined,
    result.status === 'succeeded' && usdc.balance(merchant) - before === 4_200_000n,
  ])
}

/** Recovers the signer of the EIP-712 signature from the typed data the gateway's fetch handed the wallet. */
async function signerMatches(
  actions: unknown[],
  signature: Hex,
  payer: Address | undefined,
): Promise<boolean> {
  const action = actions.find(
    (entry): entry is { data: { method: string; params: unknown } } =>
      typeof entry === 'object' &&
      entry !== null &&
      (entry as { data?: { method?: unknown } }).data?.method === 'eth_signTypedData_v4',
  )
  if (action === undefined || payer === undefined) return false
  try {
    // The gateway sends params as an array (older sandboxes: its JSON text).
    const raw = action.data.params
    const params = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [
      string,
      string | Record<string, unknown>,
    ]
    const typedData = typeof params[1] === 'string' ? JSON.parse(params[1]) : params[1]
    const recovered = await recoverTypedDataAddress({
      ...(typedData as Parameters<typeof recoverTypedDataAddress>[0]),
      signature,
    })
    return getAddress(recovered) === getAddress(payer)
  } catch {
    return false
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
