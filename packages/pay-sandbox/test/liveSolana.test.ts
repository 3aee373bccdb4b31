import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { base58 } from '@scure/base'
import { devMnemonic, type LiveChains, startLiveChains } from '@wallet-rpc/devchains/liveChains'
import { createSplMint } from '@wallet-rpc/devchains/splToken'
import { FailedTransactionMetadata } from 'litesvm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletRpc, type WalletRpc } from 'wallet-rpc'
import { createPayClient } from 'wallet-rpc/pay'
import { decodeTransaction, solana, solanaKeys, solanaLocalnet, solanaRpc } from 'wallet-rpc/solana'
import { type PaySandbox, startPaySandbox, startWebhookReceiver, type WebhookReceiver } from '../src/index.js'
import { api, usd } from './helpers.js'

/**
 * Live mode's Solana option on the litesvm runtime: the wallet signs the gateway's SPL transfer to the treasury,
 * the gateway submits it and reads the treasury's token balance back, then settles the net amount to the
 * merchant's Solana destination with a transfer signed by the treasury. Balances are read from the runtime itself.
 */

const checkoutHost = 'pay.sandbox.test'
let chains: LiveChains
let sandbox: PaySandbox
let receiver: WebhookReceiver
const [payerKey] = solanaKeys.fromMnemonic(devMnemonic, { account: 6 })
const payer = base58.encode(payerKey!.publicKey)
const merchant = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'

/** The payer's wallet: account 6 of the dev mnemonic on the litesvm runtime at `rpcUrl`, approving all. */
const payerWallet = (rpcUrl: string): WalletRpc =>
  createWalletRpc({
    namespaces: [
      solana({
        keys: solanaKeys.fromMnemonic(devMnemonic, { account: 6 }),
        chains: [solanaLocalnet],
        providers: { [solanaLocalnet]: solanaRpc(rpcUrl) },
      }),
    ],
    approve: () => true,
  })

/** The payer's gateway client at `baseUrl`, the link's options, and the option for the payer's account. */
async function payerOption(baseUrl: string, apiKey: string, wallet: WalletRpc, paymentLink: string) {
  const client = createPayClient({ baseUrl, apiKey, wallet, trustedHosts: [checkoutHost], maxPollMs: 10_000 })
  const offered = await client.getOptions(paymentLink)
  const option = offered.options.find((candidate) => candidate.account === `${solanaLocalnet}:${payer}`)
  return { client, offered, option }
}

beforeAll(async () => {
  chains = await startLiveChains()
  sandbox = await startPaySandbox({
    checkoutUrl: `https://${checkoutHost}`,
    pollInMs: 20,
    fee: { fixed: '10', percentage: '1' },
    live: { ...chains.live, pollMs: 20, confirmTimeoutMs: 3_000, log: () => {} },
  })
  chains.solana!.svm.airdrop(payer as never, 1_000_000_000n as never)
  chains.fundSolana(payer, 100_000_000n)
  receiver = await startWebhookReceiver({ secrets: () => sandbox.live!.webhooks.secrets() })
  sandbox.live!.webhooks.setEndpoint(receiver.url)
}, 60_000)

afterAll(async () => {
  await sandbox?.stop()
  await receiver?.stop()
  await chains?.stop()
})

/** The runtime executed the transaction with this signature, successfully. */
function executed(signature: string): boolean {
  const outcome = chains.solana!.svm.getTransaction(signature as never)
  return outcome !== null && !(outcome instanceof FailedTransactionMetadata)
}

describe('a live Solana payment', () => {
  it('is paid to the treasury on the runtime, succeeds with the signature, and settles the net to the merchant', async () => {
    const live = sandbox.live!
    const solanaChain = chains.solana!
    const mint = createSplMint(solanaChain, { address: live.solanaMint! })
    const call = api(sandbox, { 'api-key': live.apiKey, 'merchant-id': live.merchantId })
    const asset = `${solanaLocalnet}/token:${live.solanaMint}`
    const registered = await call('POST', `/v1/merchants/${live.merchantId}/settlements/crypto`, {
      body: { settlements: [{ asset, destination: `${solanaLocalnet}:${merchant}` }] },
    })
    expect(registered.status).toBe(201)
    const created = await call('POST', '/v1/payments', { body: { referenceId: 'sol-1', amount: usd('420') } })
    const wallet = payerWallet(solanaChain.url)
    try {
      const payerBefore = mint.balance(payer)
      const { client, offered, option } = await payerOption(
        sandbox.url,
        live.apiKey,
        wallet,
        created.body.paymentLink,
      )
      expect(option?.amount?.unit).toBe(`caip19/${asset}`)
      const paid = await client.pay(created.body.paymentLink, option!.id, { options: offered })
      expect(paid.status).toBe('succeeded')
      // The runtime itself: 4.20 USDC left the payer, the treasury holds them.
      expect(payerBefore - mint.balance(payer)).toBe(4_200_000n)
      const status = await call('GET', `/v1/payments/${created.body.id}/status`)
      const signature = status.body.info.txId as string
      expect(executed(signature)).toBe(true)
      await live.idle()
      // biome-ignore lint/suspicious/noExplicitAny: the snapshot is read field by field
      const snapshot = live.control.payment(created.body.id) as Record<string, any>
      // 4.20 USD, fee 0.10 + 1 % (0.042 → 0.05) = 0.15: 4.05 USDC to the merchant, in the treasury's transfer.
      expect(snapshot).toMatchObject({ live: true, tx_id: signature, settlement: { settled: true } })
      expect(mint.balance(merchant)).toBe(4_050_000n)
      expect(mint.balance(live.treasury.solana)).toBe(150_000n)
      expect(executed(snapshot.settlement.tx_hash)).toBe(true)
      // The merchant hears of it: a signed payment.settled carrying the payment's and the settlement's signatures.
      const settled = await receiver.waitFor(
        (entry) => entry.eventType === 'payment.settled' && entry.paymentId === created.body.id,
      )
      expect(settled.verified).toBe(true)
      expect(receiver.inbox.snapshot(created.body.id)).toMatchObject({
        live: true,
        status: 'succeeded',
        tx_id: signature,
        settlement: {
          settled: true,
          amount: { unit: 'iso4217/USD', value: '405' },
          tx_hash: snapshot.settlement.tx_hash,
        },
      })
    } finally {
      await wallet.close()
    }
  }, 60_000)

  it('the runtime refuses the signed transfer (the buyer holds no USDC): failed with failure_reason, nothing moved', async () => {
    const live = sandbox.live!
    const [brokeKey] = solanaKeys.fromMnemonic(devMnemonic, { account: 9 })
    const broke = base58.encode(brokeKey!.publicKey)
    chains.solana!.svm.airdrop(broke as never, 1_000_000_000n as never)
    const mint = createSplMint(chains.solana!, { address: live.solanaMint! })
    const treasuryBefore = mint.balance(live.treasury.solana)
    const call = api(sandbox, { 'api-key': live.apiKey, 'merchant-id': live.merchantId })
    const created = await call('POST', '/v1/payments', {
      body: { referenceId: 'sol-broke', amount: usd('100') },
    })
    const id = created.body.id as string
    // wallet-rpc's own wallet would not sign a transfer its simulation shows failing: the buyer signs by hand.
    const options = await call('POST', `/v1/gateway/payment/${id}/options`, {
      body: { accounts: [`${solanaLocalnet}:${broke}`] },
    })
    const option = options.body.options[0]
    const fetched = await call('POST', `/v1/gateway/payment/${id}/fetch`, {
      body: { optionId: option.id, data: option.actions.at(-1).data.data },
    })
    const [{ transaction }] = fetched.body.actions[0].data.params as [{ transaction: string }]
    const bytes = Buffer.from(transaction, 'base64')
    bytes.set(await brokeKey!.sign(bytes.subarray(65)), 1)
    const confirm = await call('POST', `/v1/gateway/payment/${id}/confirm`, {
      body: { optionId: option.id, results: [{ type: 'walletRpc', data: [bytes.toString('base64')] }] },
    })
    expect(confirm.body.status).toBe('failed')
    const snapshot = live.control.payment(id) as Record<string, unknown>
    expect(snapshot).toMatchObject({ live: true, status: 'failed' })
    expect(snapshot.failure_reason).toMatch(
      /^result 0: the runtime refused the transaction: .*InvalidAccountData/,
    )
    expect(mint.balance(live.treasury.solana)).toBe(treasuryBefore)
    const failed = await receiver.waitFor(
      (entry) => entry.eventType === 'payment.failed' && entry.paymentId === id,
    )
    expect(failed.verified).toBe(true)
  }, 60_000)
})

/**
 * The runtime's JSON-RPC behind a proxy that can lose the treasury's settlement broadcasts: 'lose-reply' forwards
 * the sendTransaction and then cuts the connection before the answer (the node took it, the sandbox cannot know);
 * 'drop' cuts it before forwarding (nothing reached the node). The buyer's payment broadcast can lose its reply
 * too (`paymentMode`), and `afterPayment` runs right after the runtime executed it, before the answer goes back.
 * Everything else passes through.
 */
async function startRuntimeProxy(upstream: string, treasury: () => string) {
  let mode: 'pass' | 'lose-reply' | 'drop' = 'pass'
  let paymentMode: 'pass' | 'lose-reply' = 'pass'
  let afterPayment: () => void = () => {}
  const cut: string[] = []
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const call = JSON.parse(body) as { method: string; params: unknown[] }
    const settlement =
      call.method === 'sendTransaction' &&
      decodeTransaction(Buffer.from(call.params[0] as string, 'base64'), 'tx').message.staticAddresses[0] ===
        treasury()
    if (settlement && mode === 'drop') {
      cut.push('drop')
      request.socket.destroy()
      return
    }
    const answer = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    const text = await answer.text()
    if (settlement && mode === 'lose-reply') {
      cut.push('lose-reply')
      request.socket.destroy()
      return
    }
    if (call.method === 'sendTransaction' && !settlement) {
      afterPayment()
      if (paymentMode === 'lose-reply') {
        cut.push('payment lose-reply')
        request.socket.destroy()
        return
      }
    }
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut,
    setMode: (next: typeof mode) => {
      mode = next
    },
    onPayment: (next: { mode: typeof paymentMode; after?: () => void }) => {
      paymentMode = next.mode
      afterPayment = next.after ?? (() => {})
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A sandbox whose Solana chain work goes through the proxy; the buyer pays 4.20 USD; the net is 4.05 USDC. */
async function paidThroughProxy(merchantAccount: number) {
  let treasury = ''
  const proxy = await startRuntimeProxy(chains.solana!.url, () => treasury)
  const logged: string[] = []
  const proxied = await startPaySandbox({
    checkoutUrl: `https://${checkoutHost}`,
    pollInMs: 20,
    fee: { fixed: '10', percentage: '1' },
    live: {
      ...chains.live,
      solana: { rpcUrl: proxy.url, mint: chains.live.solana!.mint },
      pollMs: 20,
      confirmTimeoutMs: 300,
      log: (line) => logged.push(line),
    },
  })
  const live = proxied.live!
  treasury = live.treasury.solana
  const [merchantKey] = solanaKeys.fromMnemonic(devMnemonic, { account: merchantAccount })
  const destination = base58.encode(merchantKey!.publicKey)
  const call = api(proxied, { 'api-key': live.apiKey, 'merchant-id': live.merchantId })
  const asset = `${solanaLocalnet}/token:${live.solanaMint}`
  const registered = await call('POST', `/v1/merchants/${live.merchantId}/settlements/crypto`, {
    body: { settlements: [{ asset, destination: `${solanaLocalnet}:${destination}` }] },
  })
  expect(registered.status).toBe(201)
  const created = await call('POST', '/v1/payments', {
    body: { referenceId: `sol-${merchantAccount}`, amount: usd('420') },
  })
  const wallet = payerWallet(chains.solana!.url)
  return {
    proxy,
    proxied,
    live,
    logged,
    destination,
    mint: createSplMint(chains.solana!, { address: live.solanaMint! }),
    /** Pays with the proxy in `mode` for the settlement broadcast; resolves once the settlement attempt ended. */
    pay: async (mode: 'lose-reply' | 'drop') => {
      proxy.setMode(mode)
      try {
        const { client, offered, option } = await payerOption(
          proxied.url,
          live.apiKey,
          wallet,
          created.body.paymentLink,
        )
        const paid = await client.pay(created.body.paymentLink, option!.id, { options: offered })
        expect(paid.status).toBe('succeeded')
      } finally {
        await wallet.close()
      }
      await live.idle()
      return created.body.id as string
    },
    stop: async () => {
      await proxied.stop()
      await proxy.stop()
    },
  }
}

describe('a live Solana settlement whose broadcast is lost is never paid twice', () => {
  it('the node took it but the reply was lost: the signature status says it landed, settled once with that hash', async () => {
    const run = await paidThroughProxy(7)
    try {
      const paymentId = await run.pay('lose-reply')
      expect(run.proxy.cut).toEqual(['lose-reply'])
      // biome-ignore lint/suspicious/noExplicitAny: the snapshot is read field by field
      const snapshot = run.live.control.payment(paymentId) as Record<string, any>
      expect(snapshot.settlement).toMatchObject({
        settled: true,
        amount: { unit: 'iso4217/USD', value: '405' },
      })
      expect(executed(snapshot.settlement.tx_hash)).toBe(true)
      expect(run.mint.balance(run.destination)).toBe(4_050_000n)
      // A new blockhash and another settle request change nothing: it is settled, the merchant paid once.
      chains.solana!.svm.expireBlockhash()
      expect(() => run.live.control.settle(paymentId)).toThrow(/only a succeeded, unsettled payment settles/)
      await run.live.idle()
      expect(run.mint.balance(run.destination)).toBe(4_050_000n)
    } finally {
      await run.stop()
    }
  }, 60_000)

  it('nothing reached the node: the same signed bytes are sent again, and re-signed only once their blockhash expired', async () => {
    const run = await paidThroughProxy(8)
    try {
      const paymentId = await run.pay('drop')
      expect(run.proxy.cut).toEqual(['drop'])
      // Unknown outcome, blockhash still valid: pending, not settled, nothing re-signed.
      expect(run.live.control.payment(paymentId)).toMatchObject({
        status: 'succeeded',
        settlement: { settled: false },
      })
      expect(run.logged.some((line) => line.includes('not mined yet; will be broadcast again'))).toBe(true)
      const firstSignature = /settlement (\S+) not mined yet/.exec(run.logged.join('\n'))![1]!
      // Retried while still dropped: the same bytes (the same signature), still pending.
      run.live.control.settle(paymentId)
      await run.live.idle()
      expect(run.proxy.cut).toEqual(['drop', 'drop'])
      expect(
        run.logged.filter((line) => line.includes(`settlement ${firstSignature} not mined yet`)),
      ).toHaveLength(2)
      // The blockhash expires with the signature unknown: now it can never land, so it is dropped…
      chains.solana!.svm.expireBlockhash()
      run.proxy.setMode('pass')
      run.live.control.settle(paymentId)
      await run.live.idle()
      expect(
        run.logged.some((line) => line.includes(`settlement ${firstSignature} failed: never landed`)),
      ).toBe(true)
      expect(executed(firstSignature)).toBe(false)
      expect(run.mint.balance(run.destination)).toBe(0n)
      // …and the next attempt signs a new transfer, which settles: the merchant is paid exactly once.
      run.live.control.settle(paymentId)
      await run.live.idle()
      // biome-ignore lint/suspicious/noExplicitAny: the snapshot is read field by field
      const snapshot = run.live.control.payment(paymentId) as Record<string, any>
      expect(snapshot.settlement.settled).toBe(true)
      expect(snapshot.settlement.tx_hash).not.toBe(firstSignature)
      expect(executed(snapshot.settlement.tx_hash)).toBe(true)
      expect(run.mint.balance(run.destination)).toBe(4_050_000n)
    } finally {
      await run.stop()
    }
  }, 60_000)
})

describe('a live Solana confirm judges the transaction itself', () => {
  it('another credit to the treasury while the payment runs does not blur it, and a lost reply is not a refusal', async () => {
    const run = await paidThroughProxy(10)
    try {
      // Right after the runtime executed the buyer's transfer, 1 unit more reaches the treasury's token account
      // (as an overlapping payment would), and the answer to the sandbox is lost on the way back.
      run.proxy.onPayment({
        mode: 'lose-reply',
        after: () => run.mint.fund(run.live.treasury.solana, run.mint.balance(run.live.treasury.solana) + 1n),
      })
      const paymentId = await run.pay('lose-reply')
      expect(run.proxy.cut).toEqual(['payment lose-reply', 'lose-reply'])
      // biome-ignore lint/suspicious/noExplicitAny: the snapshot is read field by field
      const snapshot = run.live.control.payment(paymentId) as Record<string, any>
      expect(run.logged.filter((line) => !line.includes('fetch failed'))).toEqual([])
      expect(snapshot).toMatchObject({ status: 'succeeded', settlement: { settled: true } })
      expect(executed(snapshot.tx_id)).toBe(true)
      expect(run.mint.balance(run.destination)).toBe(4_050_000n)
      // The treasury keeps the fee (0.15 USDC) and the extra unit.
      expect(run.mint.balance(run.live.treasury.solana)).toBe(150_001n)
    } finally {
      await run.stop()
    }
  }, 60_000)
})
