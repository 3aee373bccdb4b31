import { expect, it } from 'vitest'
import { runPaymentDemoAct } from '../../src/demo/acts/payment.js'

it('the demo payment act: every row verified, succeeded then settled, every webhook signature checked, the Solana option paid on the runtime', async () => {
  const rows = await runPaymentDemoAct()
  expect(rows.map((row) => [row.method, row.chain, row.verified])).toEqual([
    ['merchant: POST /v1/payments', 'pay-sandbox', true],
    ['wallet: parsePaymentLink', 'pay-sandbox', true],
    ['gateway: options (CAIP-10 accounts)', 'eip155:31337', true],
    ['eth_sendTransaction (ERC-20 approve)', 'eip155:31337', true],
    ['eth_signTypedData_v4 (EIP-3009 transfer)', 'eip155:31337', true],
    ['gateway: confirm → succeeded', 'pay-sandbox', true],
    ['webhook: payment.settled', 'pay-sandbox', true],
    ['webhooks: every signature verified', 'pay-sandbox', true],
    ['merchant: Solana settlement + POST /v1/payments', 'pay-sandbox', true],
    ['solana_signTransaction (SPL transfer)', 'solana:localnet', true],
    ['gateway: submitted, merchant +4.2 USDC on the runtime', 'solana:localnet', true],
  ])
  for (const row of rows) expect(Number.isInteger(row.ms) && row.ms >= 0).toBe(true)
})
