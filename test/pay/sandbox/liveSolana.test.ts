import { base58 } from '@scure/base'
import { FailedTransactionMetadata } from 'litesvm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { createSplMint } from '../../../src/devchains/splToken.js'
import { createPayClient } from '../../../src/pay/index.js'
import { type PaySandbox, startPaySandbox } from '../../../src/pay/sandbox/index.js'
import { devMnemonic, type LiveChains, startLiveChains } from '../../../src/pay/sandbox/live/chains.js'
import { solana, solanaKeys, solanaLocalnet, solanaRpc } from '../../../src/solana/index.js'
import { api, usd } from './helpers.js'

/**
 * Live mode's Solana option on the litesvm runtime: the wallet signs the gateway's SPL transfer to the treasury,
 * the gateway submits it and reads the treasury's token balance back, then settles the net amount to the
 * merchant's Solana destination with a transfer signed by the treasury. Balances are read from the runtime itself.
 */

const checkoutHost = 'pay.sandbox.test'
let chains: LiveChains
let sandbox: PaySandbox
const [payerKey] = solanaKeys.fromMnemonic(devMnemonic, { account: 6 })
const payer = base58.encode(payerKey!.publicKey)
const merchant = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'

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
}, 60_000)

afterAll(async () => {
  await sandbox?.stop()
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
    const wallet = createWalletRpc({
      namespaces: [
        solana({
          keys: solanaKeys.fromMnemonic(devMnemonic, { account: 6 }),
          chains: [solanaLocalnet],
          providers: { [solanaLocalnet]: solanaRpc(solanaChain.url) },
        }),
      ],
      approve: () => true,
    })
    try {
      const client = createPayClient({
        baseUrl: sandbox.url,
        apiKey: live.apiKey,
        wallet,
        trustedHosts: [checkoutHost],
        maxPollMs: 10_000,
      })
      const payerBefore = mint.balance(payer)
      const offered = await client.getOptions(created.body.paymentLink)
      const option = offered.options.find((candidate) => candidate.account === `${solanaLocalnet}:${payer}`)
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
    } finally {
      await wallet.close()
    }
  }, 60_000)
})
