import fc from 'fast-check'
import { encodeFunctionData, erc20Abi, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import type { Review } from '../../../src/core/review.js'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { eip155, mnemonicKeys } from '../../../src/eip155/index.js'
import { createPayClient, PayActionError } from '../../../src/pay/index.js'
import { permit2Address, permit2TransferTypedData } from '../../eip155/permit2.js'
import { transferWithAuthorization } from '../../eip155/transferWithAuthorization.js'
import { optionsBody, scriptedGateway } from './fakes.js'

/**
 * The pay client against a gateway that lies at random (property): an option shows `amount` USDC on Base from the
 * wallet's first account, and its action (given at once, or behind a build action the client fetches) is an
 * EIP-3009 TransferWithAuthorization with any subset of these changed: the amount, the token, the chain, the
 * signing account. The real eip155 namespace decodes what it would sign; the review carries exactly one `danger`
 * per kind of difference, naming both values, and the honest action alone is signed and confirmed.
 */

const mnemonic = 'test test test test test test test test test test test junk'
const first = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const second = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const payee = '0x00000000000000000000000000000000000000b2'
const payCodes = [
  'pay.account_mismatch',
  'pay.action_unverified',
  'pay.amount_mismatch',
  'pay.asset_mismatch',
  'pay.chain_mismatch',
  'pay.recipient_mismatch',
]

type Lie = 'amount' | 'asset' | 'chain' | 'account'
const codeOf: Record<Lie, string> = {
  amount: 'pay.amount_mismatch',
  asset: 'pay.asset_mismatch',
  chain: 'pay.chain_mismatch',
  account: 'pay.account_mismatch',
}

const dangers = (review: Review) =>
  review.warnings.filter((warning) => warning.severity === 'danger' && warning.code.startsWith('pay.'))

const authorization = (chainId: number, token: string, from: string, value: bigint) =>
  JSON.stringify(transferWithAuthorization({ chainId, token, from, to: payee, value }))

const otherToken = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`)
  .filter((address) => address !== usdc.toLowerCase())

describe('pay client × eip155 namespace: every lie of the gateway is a danger naming both values (property)', () => {
  it('flags exactly the lies, at once or behind a build action; signs and confirms only the honest action', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray<Lie>(['amount', 'asset', 'chain', 'account']),
        fc.bigInt({ min: 1n, max: 10n ** 15n }),
        fc.bigInt({ min: 1n, max: 2n ** 200n }),
        otherToken,
        fc.boolean(),
        async (lies, amount, excess, token, behindBuild) => {
          const reviews: Review[] = []
          const wallet = createWalletRpc({
            namespaces: [
              eip155({ keys: mnemonicKeys({ mnemonic, addressIndex: [0, 1] }), chains: [8453, 1] }),
            ],
            // A user who says yes unless the review carries a pay danger (which the policy lets through).
            approve: (review) => {
              reviews.push(review)
              return dangers(review).length === 0
            },
            policy: { allowDangerous: payCodes },
          })
          const chain = lies.includes('chain') ? 1 : 8453
          const action = {
            type: 'walletRpc',
            data: {
              chain_id: `eip155:${chain}`,
              method: 'eth_signTypedData_v4',
              params: [
                lies.includes('account') ? second : first,
                authorization(
                  chain,
                  lies.includes('asset') ? token : usdc,
                  lies.includes('account') ? second : first,
                  lies.includes('amount') ? amount + excess : amount,
                ),
              ],
            },
          }
          const option = {
            id: 'opt_1',
            account: `eip155:8453:${first}`,
            amount: {
              unit: `caip19/eip155:8453/erc20:${usdc}`,
              value: amount.toString(),
              display: { assetSymbol: 'USDC', decimals: 6 },
            },
            actions: [behindBuild ? { type: 'build', data: { data: 'build-1' } } : action],
          }
          const gateway = scriptedGateway({
            options: [{ status: 200, body: optionsBody([option], {}, 4_000_000_000) }],
            fetch: [{ status: 200, body: { actions: [action] } }],
            confirm: [{ status: 200, body: { status: 'succeeded', isFinal: true, pollInMs: null } }],
          })
          const client = clientOf(wallet, gateway.fetch)
          const outcome = await client.pay('pay_1', 'opt_1').catch((error: unknown) => error)
          expect(reviews).toHaveLength(1)
          const flagged = dangers(reviews[0]!)
          // The gateway names no payee: the review names the decoded one, for the user to judge.
          const unverified = reviews[0]!.warnings.find(
            (warning) => warning.code === 'pay.recipient_unverified',
          )
          if (!lies.includes('asset')) expect(unverified).toMatchObject({ severity: 'caution' })
          if (!lies.includes('asset')) expect(unverified!.message).toContain(`to ${payee}`)
          // Another token is refused as such, its amount named in that warning (not compared as USDC).
          const expected = lies.filter((lie) => !(lie === 'amount' && lies.includes('asset')))
          expect(flagged.map((warning) => warning.code).sort()).toEqual(
            expected.map((lie) => codeOf[lie]).sort(),
          )
          for (const warning of flagged) {
            expect(warning.severity).toBe('danger')
            expect(warning.message).toMatch(/^The payment gateway shows \d+(\.\d+)? USDC/)
          }
          if (lies.length === 0) {
            expect(outcome).toMatchObject({ status: 'succeeded', results: [expect.stringMatching(/^0x/)] })
            expect(gateway.calls('confirm')).toHaveLength(1)
          } else {
            expect(outcome).toBeInstanceOf(PayActionError)
            expect(gateway.calls('confirm')).toHaveLength(0)
          }
          if (lies.includes('account')) {
            const warning = flagged.find((entry) => entry.code === 'pay.account_mismatch')!
            expect(warning.message).toContain(first)
            expect(warning.message).toContain(second)
          }
        },
      ),
      { numRuns: 60 },
    )
  })
})

describe("pay client × eip155 namespace: one payment's approvals and transfers are added up (property)", () => {
  const attacker = '0x00000000000000000000000000000000000000e5'
  const settlement = '0x00000000000000000000000000000000000000c4'
  const approval = (spender: string, value: bigint) => ({
    type: 'walletRpc',
    data: {
      chain_id: 'eip155:8453',
      method: 'eth_signTransaction',
      params: [
        {
          from: first,
          to: usdc,
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender as Hex, value] }),
          gas: '0x186a0',
          maxFeePerGas: '0x1',
          maxPriorityFeePerGas: '0x1',
          nonce: '0x0',
        },
      ],
    },
  })
  const signature = (typedData: unknown) => ({
    type: 'walletRpc',
    data: {
      chain_id: 'eip155:8453',
      method: 'eth_signTypedData_v4',
      params: [first, JSON.stringify(typedData)],
    },
  })
  const attackerAuthorization = (value: bigint) =>
    signature(transferWithAuthorization({ chainId: 8453, token: usdc, from: first, to: attacker, value }))
  const permit2Transfer = (value: bigint) =>
    signature(
      permit2TransferTypedData(8453, {
        token: usdc,
        amount: value.toString(),
        spender: settlement,
        nonce: '1',
        deadline: '4000000000',
      }),
    )

  /** Pays an option of `amount` USDC whose actions are `actions`, with a wallet whose policy allows no danger. */
  async function pay(amount: bigint, actions: unknown[]) {
    const reviews: Review[] = []
    const wallet = createWalletRpc({
      namespaces: [eip155({ keys: mnemonicKeys({ mnemonic }), chains: [8453] })],
      approve: (review) => {
        reviews.push(review)
        return true
      },
    })
    const option = {
      id: 'opt_1',
      account: `eip155:8453:${first}`,
      amount: { unit: `caip19/eip155:8453/erc20:${usdc}`, value: amount.toString() },
      actions,
    }
    const gateway = scriptedGateway({
      options: [{ status: 200, body: optionsBody([option], {}, 4_000_000_000) }],
      confirm: [{ status: 200, body: { status: 'succeeded', isFinal: true, pollInMs: null } }],
    })
    const client = clientOf(wallet, gateway.fetch)
    const outcome = await client.pay('pay_1', 'opt_1').catch((error: unknown) => error)
    return { outcome, reviews, confirmed: gateway.calls('confirm').length }
  }

  const amounts = fc
    .bigInt({ min: 1n, max: 10n ** 12n })
    .chain((amount) =>
      fc.tuple(fc.constant(amount), fc.bigInt({ min: 1n, max: amount }), fc.bigInt({ min: 1n, max: amount })),
    )

  it('approve(attacker) then a TransferWithAuthorization, or approvals to two spenders: the second action is refused once they add up to more than the option', async () => {
    await fc.assert(
      fc.asyncProperty(amounts, fc.boolean(), async ([amount, first, second], twoApprovals) => {
        const run = await pay(amount, [
          approval(attacker, first),
          twoApprovals ? approval(settlement, second) : attackerAuthorization(second),
        ])
        if (first + second <= amount) {
          expect(run.outcome).toMatchObject({ status: 'succeeded' })
          return
        }
        expect(run.outcome).toBeInstanceOf(PayActionError)
        expect(run.outcome).toMatchObject({
          actionIndex: 1,
          rpcError: { code: -32602, data: { rule: 'pay.amount_mismatch' } },
        })
        const reason = (run.outcome as { rpcError: { data: { reason: string } } }).rpcError.data.reason
        expect(reason).toContain(
          `so with the payment's earlier requests (up to ${first} base units) it can take up to ${first + second} base units`,
        )
        // Only the first action was asked; nothing was confirmed.
        expect(run.reviews).toHaveLength(1)
        expect(run.confirmed).toBe(0)
      }),
      { numRuns: 25 },
    )
  })

  it('approve(Permit2) then a Permit2 signature transfer that draws on it: clean, the larger of the two is what can leave', async () => {
    await fc.assert(
      fc.asyncProperty(amounts, async ([amount, approved, permitted]) => {
        const run = await pay(amount, [approval(permit2Address, approved), permit2Transfer(permitted)])
        expect(run.outcome).toMatchObject({
          status: 'succeeded',
          results: [expect.any(String), expect.any(String)],
        })
        for (const review of run.reviews) expect(dangers(review)).toEqual([])
        // A second Permit2 signature on top draws on the same allowance again: one too many.
        const again = await pay(amount, [
          approval(permit2Address, approved),
          permit2Transfer(permitted),
          permit2Transfer(amount - permitted + 1n),
        ])
        expect(again.outcome).toMatchObject({
          actionIndex: 2,
          rpcError: { data: { rule: 'pay.amount_mismatch' } },
        })
      }),
      { numRuns: 15 },
    )
  })
})

/** The pay client on `wallet`, against a scripted gateway, at a fixed time and without pauses. */
function clientOf(
  wallet: Parameters<typeof createPayClient>[0]['wallet'],
  fetch: NonNullable<Parameters<typeof createPayClient>[0]['fetch']>,
) {
  return createPayClient({
    baseUrl: 'https://api.pay.example.com',
    apiKey: 'svc_test_key',
    wallet,
    fetch,
    clock: () => 1_800_000_000_000,
    sleep: async () => {},
  })
}
