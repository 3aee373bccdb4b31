import fc from 'fast-check'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import {
  type AssetEffect,
  type ExpectedPayment,
  expectationWarnings,
  exposureAfter,
  type PaymentExposure,
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
        message: `The payment gateway shows 1 USDC; this request transfers 1 USDC to ${payee} (EIP-3009 TransferWithAuthorization) and transfers 1 USDC to ${payee} (EIP-3009 TransferWithAuthorization), so the payment can take up to 2 USDC.`,
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

describe("a payment's exposure: its transfers and allowances added up over all its requests", () => {
  const permit2 = '0x000000000022d473030f116ddee9f6b43ac78ba3'
  const attacker = '0x00000000000000000000000000000000000000e5'
  const gateway = readExpectation({ ...described, recipient: undefined })!
  const approval = (spender: string, amount = 1_000_000n): AssetEffect => ({
    ...honest,
    recipient: spender,
    amount,
    kind: 'allowance',
    form: 'ERC-20 approve',
  })
  const permit2Transfer: AssetEffect = {
    ...honest,
    recipient: attacker,
    kind: 'allowance',
    form: 'Permit2 PermitTransferFrom',
    via: permit2,
  }
  const dangers = (warnings: ReviewWarning[]) => warnings.filter((warning) => warning.severity === 'danger')

  /** Runs the requests in order as one payment, each carrying the exposure the one before left. */
  function payment(requests: AssetEffect[][], maxFee = 0n) {
    let exposure: PaymentExposure | undefined
    return requests.map((effects) => {
      // Through JSON and the strict reader, as a caller passes it on.
      const carried = { ...described, recipient: undefined, maxFee: maxFee.toString(), ...exposure }
      const expected = readExpectation(JSON.parse(JSON.stringify(carried)))!
      exposure = exposureAfter(expected, effects)
      return expectationWarnings(expected, 'eip155:8453', effects)
    })
  }

  it('an approval, then a TransferWithAuthorization of the amount each: the second takes it twice', () => {
    const [first, second] = payment([[approval(attacker)], [{ ...honest, recipient: attacker }]])
    expect(dangers(first!)).toEqual([])
    expect(dangers(second!)).toEqual([
      {
        code: 'pay.amount_mismatch',
        severity: 'danger',
        message: `The payment gateway shows 1 USDC; this request transfers 1 USDC to ${attacker} (EIP-3009 TransferWithAuthorization), so with the payment's earlier requests (up to 1 USDC) it can take up to 2 USDC.`,
      },
    ])
  })

  it('approvals to two spenders add up; two to one spender do not (the later replaces the earlier)', () => {
    expect(
      codes(dangers(expectationWarnings(gateway, 'eip155:8453', [approval(payee), approval(attacker)]))),
    ).toEqual(['pay.amount_mismatch'])
    // Three requests, one approval each, another spender each: the second is already one too many.
    const spread = payment([[approval(payee)], [approval(attacker)], [approval(permit2)]])
    expect(spread.map((warnings) => codes(dangers(warnings)))).toEqual([
      [],
      ['pay.amount_mismatch'],
      ['pay.amount_mismatch'],
    ])
    const again = payment([[approval(payee)], [approval(payee.toUpperCase().replace('0X', '0x'))]])
    expect(again.map((warnings) => codes(dangers(warnings)))).toEqual([[], []])
  })

  it('approve(Permit2, X) then a Permit2 signature for X that draws on it: X in all, clean', () => {
    const [approve, signature] = payment([[approval(permit2)], [permit2Transfer]])
    expect(dangers(approve!)).toEqual([])
    expect(dangers(signature!)).toEqual([])
    // In one request too; and a second signature through Permit2 draws X more than the approval covers.
    expect(
      dangers(expectationWarnings(gateway, 'eip155:8453', [approval(permit2), permit2Transfer])),
    ).toEqual([])
    const twice = payment([[approval(permit2)], [permit2Transfer], [permit2Transfer]])
    expect(twice.map((warnings) => codes(dangers(warnings)))).toEqual([[], [], ['pay.amount_mismatch']])
    // The same signature next to an approval to anyone else: both can be taken.
    const [, other] = payment([[approval(attacker)], [permit2Transfer]])
    expect(codes(dangers(other!))).toEqual(['pay.amount_mismatch'])
  })

  it('an unlimited approval is flagged whatever was approved before; a request that adds nothing is not', () => {
    const [, unlimited] = payment([[approval(permit2)], [approval(permit2, 2n ** 256n - 1n)]])
    expect(dangers(unlimited!)[0]!.message).toBe(
      `The payment gateway shows 1 USDC; this request lets ${permit2} spend an unlimited amount (ERC-20 approve), so with the payment's earlier requests (up to 1 USDC) it can take an unlimited amount.`,
    )
    const [over, nothing] = payment([[approval(payee), approval(attacker)], [approval(payee, 1n)]])
    expect(codes(dangers(over!))).toEqual(['pay.amount_mismatch'])
    expect(dangers(nothing!)).toEqual([])
  })

  type Move = { kind: AssetEffect['kind']; spender: number; via: boolean; amount: bigint }
  const spenders = [permit2, attacker, payee]
  const effectOf = (move: Move): AssetEffect => {
    const address = spenders[move.spender]!
    // Another case of the same address is the same spender.
    const written = move.amount % 2n === 0n ? address : address.toUpperCase().replace('0X', '0x')
    return {
      ...honest,
      amount: move.amount,
      kind: move.kind,
      recipient: move.kind === 'allowance' || !move.via ? written : payee,
      form: move.kind === 'allowance' ? 'ERC-20 approve' : 'ERC-20 transferFrom',
      ...(move.via ? { via: written } : {}),
    }
  }
  /** The payment's exposure from all its effects at once: Σ transfers without via + Σ_S max(allowance to S, Σ via S). */
  const modelExposure = (moves: Move[]) => {
    const free = moves.filter((move) => !move.via && move.kind === 'transfer')
    let total = free.reduce((sum, move) => sum + move.amount, 0n)
    for (const index of spenders.keys()) {
      const granted = moves
        .filter((move) => !move.via && move.kind === 'allowance' && move.spender === index)
        .reduce((most, move) => (move.amount > most ? move.amount : most), 0n)
      const drawn = moves
        .filter((move) => move.via && move.spender === index)
        .reduce((sum, move) => sum + move.amount, 0n)
      total += granted > drawn ? granted : drawn
    }
    return total
  }

  it('random sequences of transfers, allowances and draws through them: a danger exactly when a request raises the exposure over the limit (property)', () => {
    const move = fc.record({
      kind: fc.constantFrom<AssetEffect['kind']>('transfer', 'allowance'),
      spender: fc.integer({ min: 0, max: spenders.length - 1 }),
      via: fc.boolean(),
      amount: fc.oneof(
        fc.bigInt({ min: 0n, max: 1_200_000n }),
        fc.constant(1_000_000n),
        fc.constant(2n ** 256n - 1n),
      ),
    })
    fc.assert(
      fc.property(
        fc.array(fc.array(move, { maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        fc.bigInt({ min: 0n, max: 500_000n }),
        (requests, maxFee) => {
          const limit = 1_000_000n + maxFee
          const warnings = payment(
            requests.map((moves) => moves.map(effectOf)),
            maxFee,
          )
          let before = 0n
          requests.forEach((moves, index) => {
            const after = modelExposure(requests.slice(0, index + 1).flat())
            const flagged = warnings[index]!.some((warning) => warning.code === 'pay.amount_mismatch')
            expect(flagged, `request ${index + 1}: exposure ${before} → ${after}, limit ${limit}`).toBe(
              after > limit && after > before,
            )
            // No recipient described: whatever moves of the asset is named in a caution.
            const unverified = warnings[index]!.find((warning) => warning.code === 'pay.recipient_unverified')
            expect(unverified?.severity).toBe(
              moves.some((entry) => entry.amount > 0n) ? 'caution' : undefined,
            )
            before = after
          })
        },
      ),
    )
  })
})

describe('pay.recipient_unverified: a description that names no recipient', () => {
  const gateway = readExpectation({ ...described, recipient: undefined })!

  it('is a caution naming whom the request pays, up to three of them', () => {
    expect(expectationWarnings(gateway, 'eip155:8453', [honest])).toEqual([
      {
        code: 'pay.recipient_unverified',
        severity: 'caution',
        message: `The payment gateway does not name who is paid; this request transfers 1 USDC to ${payee} (EIP-3009 TransferWithAuthorization).`,
      },
    ])
    const small = (recipient: string): AssetEffect => ({ ...honest, amount: 1n, recipient })
    const [warning] = expectationWarnings(gateway, 'eip155:8453', [
      small('0x01'),
      { ...small('0x02'), kind: 'allowance', form: 'ERC-20 approve' },
      small('0x03'),
      small('0x04'),
      small('0x05'),
    ])
    expect(warning!.message).toBe(
      'The payment gateway does not name who is paid; this request transfers 0.000001 USDC to 0x01 (EIP-3009 TransferWithAuthorization), lets 0x02 spend 0.000001 USDC (ERC-20 approve), transfers 0.000001 USDC to 0x03 (EIP-3009 TransferWithAuthorization) and 2 more.',
    )
  })

  it('is not raised for what moves nothing, or another asset (already a danger), or with a recipient to compare', () => {
    expect(expectationWarnings(gateway, 'eip155:8453', [{ ...honest, amount: 0n }])).toEqual([])
    expect(codes(expectationWarnings(gateway, 'eip155:8453', [{ ...honest, asset: payee }]))).toEqual([
      'pay.asset_mismatch',
    ])
    expect(expectationWarnings(expectation, 'eip155:8453', [honest])).toEqual([])
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
      [{ spenders: {} }, 'expected.spenders'],
      [{ spenders: Array(65).fill({ spender: payee, granted: '0', drawn: '0' }) }, 'expected.spenders'],
      [{ spenders: ['0x01'] }, 'expected.spenders.0'],
      [{ spenders: [{ spender: 'a b', granted: '1', drawn: '0' }] }, 'expected.spenders.0.spender'],
      [{ spenders: [{ spender: payee, granted: 1, drawn: '0' }] }, 'expected.spenders.0.granted'],
      [{ spenders: [{ spender: payee, granted: '1' }] }, 'expected.spenders.0.drawn'],
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

  it("tells onEffects the payment's exposure with the request, the same when the journal replays it", async () => {
    const approval: AssetEffect = { ...honest, kind: 'allowance', form: 'ERC-20 approve' }
    const { wallet, signed } = walletWith([approval])
    const told: unknown[][] = []
    const ask = () =>
      wallet.handle(
        {
          chainId: 'eip155:8453',
          request,
          expected: { ...described, paid: '5', maxFee: '5' },
          requestKey: 'payment#1',
        },
        { onEffects: (...args) => told.push(args) },
      )
    expect(await ask()).toMatchObject({ result: 'signed' })
    expect(await ask()).toMatchObject({ result: 'signed' })
    expect(signed).toHaveLength(1)
    const exposure = { paid: '5', spenders: [{ spender: payee, granted: '1000000', drawn: '0' }] }
    expect(told).toEqual([
      [[approval], 0n, exposure],
      [[approval], 0n, exposure],
    ])
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
