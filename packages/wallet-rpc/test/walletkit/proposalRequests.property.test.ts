import type { SessionTypes } from '@walletconnect/types'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { solanaConnectPayments } from '../../src/solana/connectPayments.js'
import { planAuthentication } from '../../src/walletkit/proposalRequests/authentication.js'
import { parseAuthentication } from '../../src/walletkit/proposalRequests/parseAuthentication.js'
import { planWalletPay } from '../../src/walletkit/proposalRequests/walletPay.js'
import { mintData, paymentReads } from '../solana/helpers.js'
import { good, namespaces, now, proposer, supported } from './authenticationFixtures.js'

/**
 * The proposal's `requests.authentication` is dapp input: whatever it holds, parsing answers a request or a
 * reason, planning never throws, and nothing is planned for signing that the parse refused.
 */
const hostile = fc.oneof(
  fc.anything(),
  fc.string(),
  fc.constantFrom('__proto__', 'constructor', '', 'eip155', 'eip155:', ':1', 'ton_proof', '\n'),
)

describe('parseAuthentication / planAuthentication on any input', () => {
  it('never throws; a refusal always carries a reason', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const parsed = parseAuthentication(value, now)
        if (!parsed.ok) expect(parsed.reason.length).toBeGreaterThan(0)
        const plan = planAuthentication([value], namespaces, supported, proposer, now)
        expect(plan.reviews).toHaveLength(1)
        if (!parsed.ok) {
          expect(plan.steps).toEqual([])
          expect(plan.reviews[0]?.refused).toBe(parsed.reason)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('a good entry with any one field replaced by hostile input is signed only if it still parses', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(good), 'exp', 'nbf', 'resources', 'requestId'),
        hostile,
        (field, value) => {
          const entry = { ...good, [field]: value }
          const parsed = parseAuthentication(entry, now)
          const plan = planAuthentication([entry], namespaces, supported, proposer, now)
          // A ton_proof (aud `ton_proof`) signs nothing on eip155.
          expect(plan.steps.length > 0).toBe(
            parsed.ok && !parsed.request.tonProof && parsed.request.chains.includes('eip155:1'),
          )
        },
      ),
      { numRuns: 3000 },
    )
  })

  it.each([
    [{ ...good, chains: ['eip155'] }, /chains\[0\].*CAIP-2/],
    [{ ...good, chains: [] }, /non-empty/],
    [{ ...good, exp: '2026-11-26T11:00:00Z' }, /expired at 2026-11-26T11:00:00Z/],
    [{ ...good, nbf: '2026-11-27T00:00:00Z' }, /not valid before/],
    [{ ...good, exp: 'tomorrow' }, /exp "tomorrow" is not an RFC 3339 date-time/],
    [{ ...good, nonce: 'short' }, /nonce/],
    [{ ...good, domain: 'user@app.example.com' }, /not a host/],
    [{ ...good, aud: 'not a uri' }, /aud .* is not a URI/],
    [{ ...good, statement: 'a\nURI: https://evil.example' }, /several lines/],
    [{ ...good, type: 'eip191' }, /type "eip191" is not caip122/],
    [{ ...good, resources: ['not a uri'] }, /resources\[0\]/],
  ])('refuses %j with a clear reason', (entry, reason) => {
    const parsed = parseAuthentication(entry, now)
    expect(parsed.ok).toBe(false)
    expect(parsed.ok ? '' : parsed.reason).toMatch(reason)
  })

  it.each([
    ['VALID', proposer.origin, []],
    ['UNKNOWN', proposer.origin, ['siwe.origin_unverified']],
    [undefined, proposer.origin, ['siwe.origin_unverified']],
    ['INVALID', proposer.origin, ['siwe.origin_invalid']],
    ['VALID', 'https://evil.example', ['siwe.domain_mismatch', 'siwe.uri_mismatch']],
    ['VALID', undefined, ['siwe.origin_missing']],
  ] as const)(
    'Verify %s from %s: the connect-time dangers %j, handed to the signing method too',
    (validation, origin, codes) => {
      const plan = planAuthentication([good], namespaces, supported, { origin, validation }, now)
      const warnings = plan.reviews[0]?.warnings ?? []
      expect(warnings.map((warning) => [warning.code, warning.severity])).toEqual(
        codes.map((code) => [code, 'danger']),
      )
      expect(plan.steps.map((step) => step.warnings)).toEqual([warnings])
    },
  )

  it.each([
    ['app.example.com', 'https://app.example.com', []],
    ['app.example.com', 'http://localhost:3000', ['ton_proof.domain_mismatch']],
    ['localhost', 'http://localhost:3000', []],
    ['localhost:3000', 'http://localhost:3000', []],
    // The SDK sends the hostname only; a port, when named, must be the site's.
    ['app.example.com:8443', 'https://app.example.com', ['ton_proof.domain_mismatch']],
    ['app.example.com:443', 'https://app.example.com', []],
  ] as const)('ton_proof for %s asked by %s: the connect-time dangers %j', (domain, origin, codes) => {
    const tonAccount = 'ton:-239:0:' + 'ab'.repeat(32)
    const plan = planAuthentication(
      [{ domain, chains: ['ton:-239'], nonce: '', uri: 'ton_proof', ttl: 0, statement: 'payload' }],
      { ton: { accounts: [tonAccount], methods: ['ton_proof'], events: [] } },
      [{ name: 'ton', chains: ['ton:-239'], methods: ['ton_proof'], events: [] }],
      { origin, validation: 'VALID' },
      now,
    )
    expect(plan.reviews[0]?.refused).toBeUndefined()
    expect(plan.reviews[0]?.warnings.map((warning) => warning.code)).toEqual(codes)
  })

  it('names the chains it will not sign on, and why', () => {
    const plan = planAuthentication(
      [{ ...good, chains: ['eip155:1', 'eip155:5', 'bip122:000000000019d6689c085ae165831e93', 'ton:-239'] }],
      namespaces,
      supported,
      proposer,
      now,
    )
    expect(plan.steps.map((step) => step.chainId)).toEqual(['eip155:1'])
    expect(plan.reviews[0]?.notOffered).toEqual([
      { chainId: 'eip155:5', reason: 'the session does not include eip155:5' },
      {
        chainId: 'bip122:000000000019d6689c085ae165831e93',
        reason:
          "no sign-in offered on bip122: WalletConnect's CACAO verifier checks only EIP-191 and EIP-1271 signatures",
      },
      { chainId: 'ton:-239', reason: 'TON signs in only with ton_proof' },
    ])
  })
})

describe('planWalletPay on any input (eip155 and solana options)', () => {
  const payer = 'GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW'
  const mint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
  const provider = paymentReads({
    [mint]: { owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', data: mintData(6) },
  })
  const sources = { payments: [solanaConnectPayments({ providers: { 'solana:localnet': provider } })] }
  const payNamespaces: SessionTypes.Namespaces = {
    ...namespaces,
    solana: {
      accounts: [`solana:localnet:${payer}`],
      methods: ['solana_signAndSendTransaction'],
      events: [],
    },
  }
  const paySupported = [
    { name: 'eip155', chains: ['eip155:1'], methods: ['eth_sendTransaction'], events: [] },
    { name: 'solana', chains: ['solana:localnet'], methods: ['solana_signAndSendTransaction'], events: [] },
  ]
  const goodOptions = [
    { asset: `solana:localnet/token:${mint}`, amount: '0x2625a0', recipient: `solana:localnet:${mint}` },
    { asset: 'solana:localnet/slip44:501', amount: '0x1', recipient: `solana:localnet:${payer}` },
    {
      asset: 'eip155:1/slip44:60',
      amount: '0x1',
      recipient: 'eip155:1:0x000000000000000000000000000000000000bEEF',
    },
  ]
  const offer = (acceptedPayments: unknown[]) => ({
    version: '1.0.0',
    expiry: now / 1000 + 300,
    acceptedPayments,
  })
  const plan = (value: unknown) => planWalletPay(value, payNamespaces, paySupported, sources, now, () => {})

  it('never throws; every option it does not pay says why, and it pays one only when one is payable', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.anything(),
          fc.record({
            option: fc.constantFrom(0, 1, 2),
            field: fc.constantFrom('asset', 'amount', 'recipient'),
            value: hostile,
          }),
        ),
        async (input) => {
          const value =
            typeof input === 'object' &&
            input !== null &&
            'option' in input &&
            'field' in input &&
            'value' in input
              ? offer([{ ...goodOptions[input.option as number], [input.field as string]: input.value }])
              : input
          const { review, step } = await plan(value)
          if (step === undefined) expect(review.refused?.length).toBeGreaterThan(0)
          else expect(review.options[review.pays!]?.unpayable).toBeUndefined()
          for (const option of review.options) {
            if (option.index !== review.pays && option.unpayable !== undefined)
              expect(option.unpayable.length).toBeGreaterThan(0)
          }
        },
      ),
      { numRuns: 500 },
    )
  })

  it('a solana amount a u64 cannot hold is unpayable (it would be signed modulo 2^64 and answered in full)', async () => {
    for (const option of goodOptions.slice(0, 2)) {
      for (const amount of ['0x10000000000000001', `0x${'f'.repeat(64)}`]) {
        const { review, step } = await plan(offer([{ ...option, amount }]))
        expect(step).toBeUndefined()
        expect(review.options[0]?.unpayable).toMatch(/more than a u64/)
      }
      // 2^64 - 1 still fits.
      const { step } = await plan(offer([{ ...option, amount: '0xffffffffffffffff' }]))
      expect(step).toBeDefined()
    }
  })

  it('pays the good options (solana token, SOL, eip155 native) and builds the payment', async () => {
    for (const [index, option] of goodOptions.entries()) {
      const { review, step } = await plan(offer([option]))
      expect([index, review.refused, review.options[0]?.unpayable]).toEqual([index, undefined, undefined])
      expect(await step?.params()).toBeDefined()
    }
  })
})
