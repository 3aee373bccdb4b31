import fc from 'fast-check'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  type AssetEffect,
  type ExpectedPayment,
  expectationWarnings,
  readExpectation,
} from '../../src/core/expectation.js'
import { defineMethod, type Namespace } from '../../src/core/namespace.js'
import type { ReviewWarning } from '../../src/core/review.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'

/**
 * The rule for payments a third party describes (core/expectation.ts): every difference between the description
 * (`HandleInput.expected`) and what the request's bytes move (`Planned.effects`) is a `danger` naming both
 * values; a request whose effects are unknown is `pay.action_unverified`.
 */

const token = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'
const payer = '0x00000000000000000000000000000000000000a1'
const payee = '0x00000000000000000000000000000000000000b2'

const described: ExpectedPayment = {
  source: 'The payment gateway',
  chainId: 'eip155:8453',
  account: `eip155:8453:${payer}`,
  asset: `eip155:8453/erc20:${token}`,
  amount: '1000000',
  recipient: `eip155:8453:${payee}`,
  decimals: 6,
  symbol: 'USDC',
}
const expectation = readExpectation(described)!

const honest: AssetEffect = {
  chainId: 'eip155:8453',
  // Checksummed differently from the description: eip155 addresses compare without case.
  account: payer.toUpperCase().replace('0X', '0x'),
  asset: token.toUpperCase().replace('0X', '0x'),
  amount: 1_000_000n,
  recipient: payee,
  kind: 'transfer',
  form: 'EIP-3009 TransferWithAuthorization',
}

const codes = (warnings: ReviewWarning[]) => warnings.map((warning) => warning.code).sort()

type Difference = 'amount' | 'recipient' | 'asset' | 'chain' | 'account'
const differences: readonly Difference[] = ['amount', 'recipient', 'asset', 'chain', 'account']
const codeOf: Record<Difference, string> = {
  amount: 'pay.amount_mismatch',
  recipient: 'pay.recipient_mismatch',
  asset: 'pay.asset_mismatch',
  chain: 'pay.chain_mismatch',
  account: 'pay.account_mismatch',
}

const otherAddress = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`)
  .filter((address) => ![payer, payee, token].includes(address))

describe('expectationWarnings', () => {
  it('finds nothing when the effects are exactly the description, with or without a fee on top', () => {
    expect(expectationWarnings(expectation, 'eip155:8453', [honest])).toEqual([])
    const withFee = readExpectation({ ...described, maxFee: '5000' })!
    expect(expectationWarnings(withFee, 'eip155:8453', [{ ...honest, amount: 1_005_000n }])).toEqual([])
    expect(codes(expectationWarnings(withFee, 'eip155:8453', [{ ...honest, amount: 1_005_001n }]))).toEqual([
      'pay.amount_mismatch',
    ])
  })

  it('flags each random difference, and only those (property)', () => {
    fc.assert(
      fc.property(
        fc.subarray([...differences]),
        fc.bigInt({ min: 1n, max: 2n ** 200n }),
        otherAddress,
        fc.integer({ min: 1, max: 100_000 }),
        fc.constantFrom<AssetEffect['kind']>('transfer', 'allowance'),
        (changed, excess, address, chain, kind) => {
          fc.pre(chain !== 8453)
          const effect: AssetEffect = { ...honest, kind }
          if (changed.includes('amount')) effect.amount = 1_000_000n + excess
          if (changed.includes('recipient')) effect.recipient = address
          if (changed.includes('asset')) effect.asset = address
          if (changed.includes('chain')) effect.chainId = `eip155:${chain}`
          if (changed.includes('account')) effect.account = address
          const warnings = expectationWarnings(expectation, 'eip155:8453', [effect])
          // Another asset is not compared by amount or recipient: it is already refused as such.
          const expected = changed
            .filter(
              (difference) =>
                !(changed.includes('asset') && (difference === 'amount' || difference === 'recipient')),
            )
            .map((difference) => codeOf[difference])
          expect(codes(warnings)).toEqual([...expected].sort())
          for (const warning of warnings) {
            expect(warning.severity).toBe('danger')
            expect(warning.message).toMatch(/^The payment gateway shows 1 USDC/)
          }
          // Both values named: what the description shows and what the request moves.
          const amount = warnings.find((warning) => warning.code === 'pay.amount_mismatch')
          if (amount !== undefined && kind === 'transfer' && effect.amount < 2n ** 128n) {
            const moved = effect.amount.toString().padStart(7, '0')
            const whole = moved.slice(0, -6)
            expect(amount.message).toContain(`this request transfers ${whole}`)
          }
          const recipient = warnings.find((warning) => warning.code === 'pay.recipient_mismatch')
          if (recipient !== undefined) expect(recipient.message).toContain(payee)
          if (recipient !== undefined) expect(recipient.message).toContain(address)
        },
      ),
    )
  })

  it('also flags the request being on another chain than the payment, whatever its effects', () => {
    expect(codes(expectationWarnings(expectation, 'eip155:1', [{ ...honest, chainId: 'eip155:1' }]))).toEqual(
      ['pay.chain_mismatch'],
    )
  })

  it('sums transfers of the asset: two of the amount each are twice the payment', () => {
    const warnings = expectationWarnings(expectation, 'eip155:8453', [honest, honest])
    expect(warnings).toEqual([
      {
        code: 'pay.amount_mismatch',
        severity: 'danger',
        message: 'The payment gateway shows 1 USDC; this request transfers 2 USDC in 2 transfers.',
      },
    ])
  })

  it('names an unlimited allowance as such', () => {
    const [warning] = expectationWarnings(expectation, 'eip155:8453', [
      { ...honest, kind: 'allowance', amount: 2n ** 256n - 1n, form: 'ERC-20 approve' },
    ])
    expect(warning!.message).toBe(
      `The payment gateway shows 1 USDC; this request lets ${payee} spend an unlimited amount (ERC-20 approve).`,
    )
  })

  it('accepts a token account whose owner the request establishes as the recipient (solana)', () => {
    const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
    const solana = readExpectation({
      source: 'The dapp’s walletPay',
      chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      account: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:7S3P4HxJpyyigGzodYwHtCxZyUQe9JiBMHyRWXArAaKv',
      asset: `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/token:${mint}`,
      amount: '5',
      recipient: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
    })!
    const transfer: AssetEffect = {
      chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      account: '7S3P4HxJpyyigGzodYwHtCxZyUQe9JiBMHyRWXArAaKv',
      asset: mint,
      amount: 5n,
      recipient: 'BQcdHdAQW1hczDbBi9hiegXAR7A98Q9jx3X3iBBBDiq4',
      kind: 'transfer',
      form: 'SPL transferChecked',
    }
    expect(codes(expectationWarnings(solana, solana.chainId, [transfer]))).toEqual(['pay.recipient_mismatch'])
    const owned = { ...transfer, recipientOwner: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin' }
    expect(expectationWarnings(solana, solana.chainId, [owned])).toEqual([])
    // Base58 is case-sensitive: another case is another account.
    expect(
      codes(expectationWarnings(solana, solana.chainId, [{ ...owned, asset: mint.toLowerCase() }])),
    ).toEqual(['pay.asset_mismatch'])
  })

  it('unknown effects are unverified; known ones of zero move nothing to compare', () => {
    expect(codes(expectationWarnings(expectation, 'eip155:8453', undefined))).toEqual([
      'pay.action_unverified',
    ])
    expect(expectationWarnings(expectation, 'eip155:8453', [])).toEqual([])
    const revoke: AssetEffect = { ...honest, asset: '0x'.padEnd(42, '9'), amount: 0n, kind: 'allowance' }
    expect(expectationWarnings(expectation, 'eip155:8453', [revoke])).toEqual([])
  })
})

describe('readExpectation', () => {
  it('refuses a malformed description at its field, and writes a third party’s text out visibly', () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ source: '' }, 'expected.source'],
      [{ chainId: 'eip155' }, 'expected.chainId'],
      [{ account: 'eip155:1:0xabc' }, 'expected.account'],
      [{ asset: 'eip155:8453/erc20' }, 'expected.asset'],
      [{ recipient: 'eip155:1:0xabc' }, 'expected.recipient'],
      [{ amount: '1e6' }, 'expected.amount'],
      [{ amount: 1_000_000 }, 'expected.amount'],
      [{ maxFee: '-1' }, 'expected.maxFee'],
      [{ decimals: 77 }, 'expected.decimals'],
    ]
    for (const [change, path] of bad) {
      expect(() => readExpectation({ ...described, ...change }), path).toThrow(
        expect.objectContaining({ code: -32602, data: expect.objectContaining({ path }) }),
      )
    }
    const read = readExpectation({ ...described, source: 'Gateway\u202e\n', symbol: 'US\u200bDC' })!
    expect([read.source, read.symbol]).toEqual(['Gateway\\u{202E}\\u{A}', 'US\\u{200B}DC'])
  })
})

describe('the router applies it after the method planned the exact request', () => {
  function walletWith(effects: AssetEffect[] | undefined, allowDangerous: string[] = []) {
    const reviews: unknown[] = []
    const signed: unknown[] = []
    const namespace: Namespace = {
      name: 'eip155',
      chains: ['eip155:8453', 'eip155:1'],
      methods: {
        pay: defineMethod({
          params: v.unknown(),
          plan: () => ({
            review: { account: payer, title: 'Pay', items: [], warnings: [] },
            plan: null,
            effects,
          }),
          execute: () => {
            signed.push(true)
            return 'signed'
          },
        }),
      },
    }
    const wallet = createWalletRpc({
      namespaces: [namespace],
      approve: (review) => {
        reviews.push(review)
        return true
      },
      policy: { allowDangerous },
    })
    return { wallet, reviews, signed }
  }
  const request = { id: 7, jsonrpc: '2.0' as const, method: 'pay', params: [] }

  it('refuses a mismatch unasked, naming the rule and both values; nothing is signed', async () => {
    const { wallet, reviews, signed } = walletWith([{ ...honest, amount: 1_000_000_000n }])
    const response = await wallet.handle({ chainId: 'eip155:8453', request, expected: described })
    expect(response).toEqual({
      id: 7,
      jsonrpc: '2.0',
      error: {
        code: -32602,
        message: 'Refused by wallet policy.',
        data: {
          rule: 'pay.amount_mismatch',
          reason: `The payment gateway shows 1 USDC; this request transfers 1000 USDC to ${payee} (EIP-3009 TransferWithAuthorization).`,
        },
      },
    })
    expect(reviews).toEqual([])
    expect(signed).toEqual([])
  })

  it('a method that cannot tell what it moves is unverified; the same request without a description is untouched', async () => {
    const { wallet } = walletWith(undefined)
    const refused = await wallet.handle({ chainId: 'eip155:8453', request, expected: described })
    expect(refused).toMatchObject({ error: { data: { rule: 'pay.action_unverified' } } })
    expect(await wallet.handle({ chainId: 'eip155:8453', request })).toMatchObject({ result: 'signed' })
  })

  it('a request on another chain than the description is refused', async () => {
    const { wallet } = walletWith([{ ...honest, chainId: 'eip155:1' }])
    const refused = await wallet.handle({ chainId: 'eip155:1', request, expected: described })
    expect(refused).toMatchObject({ error: { data: { rule: 'pay.chain_mismatch' } } })
  })

  it('a policy may let the user decide; the danger is in the review, and a caller cannot replace it', async () => {
    const { wallet, reviews } = walletWith([{ ...honest, amount: 2_000_000n }], ['pay.amount_mismatch'])
    const response = await wallet.handle({
      chainId: 'eip155:8453',
      request,
      expected: described,
      warnings: [{ code: 'pay.amount_mismatch', severity: 'info', message: 'fine' }],
    })
    expect(response).toMatchObject({ result: 'signed' })
    expect(reviews[0]).toMatchObject({
      warnings: [
        { code: 'pay.amount_mismatch', severity: 'info', message: 'fine' },
        {
          code: 'pay.amount_mismatch',
          severity: 'danger',
          message: `The payment gateway shows 1 USDC; this request transfers 2 USDC to ${payee} (EIP-3009 TransferWithAuthorization).`,
        },
      ],
    })
  })

  it('a malformed description is -32602 at its field, before any planning', async () => {
    const { wallet } = walletWith([honest])
    const response = await wallet.handle({
      chainId: 'eip155:8453',
      request,
      expected: { ...described, amount: 'lots' },
    })
    expect(response).toMatchObject({ error: { code: -32602, data: { path: 'expected.amount' } } })
  })
})
