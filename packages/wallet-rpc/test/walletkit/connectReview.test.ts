import { createEncodedRecap } from '@walletconnect/utils'
import fc from 'fast-check'
import { stringToHex } from 'viem/utils'
import { describe, expect, it, vi } from 'vitest'
import { fixedClock } from '../../src/core/clock.js'
import type { Review } from '../../src/core/review.js'
import { hasHiddenCharacters } from '../../src/core/text.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { eip155, mnemonicKeys } from '../../src/eip155/index.js'
import { attachWalletKit } from '../../src/walletkit/index.js'
import { planAuthentication } from '../../src/walletkit/proposalRequests/authentication.js'
import {
  signInAccount as account,
  good,
  namespaces,
  now,
  proposer,
  supported,
} from './authenticationFixtures.js'
import { fakeEthereum } from './fakeNamespaces.js'
import { FakeWalletKit } from './fakeWalletKit.js'
import { appKitNamespaces, NOW_SECONDS, proposalEvent, verified } from './fixtures.js'

/**
 * The connect-time review (issue 41): what a proposal's sign-in requests put before the user reads as it is
 * signed (no control, bidi or invisible characters; no javascript:-like URIs), what a ReCap grants is listed
 * and flagged, a post-dated sign-in is a danger, and a proposal whose requests cannot even be read is answered.
 */
const tonAccount = `ton:-239:0:${'ab'.repeat(32)}`
const tonPlan = (payload: string) =>
  planAuthentication(
    [
      {
        domain: 'app.example.com',
        chains: ['ton:-239'],
        nonce: '',
        uri: 'ton_proof',
        ttl: 0,
        statement: payload,
      },
    ],
    { ton: { accounts: [tonAccount], methods: ['ton_proof'], events: [] } },
    [{ name: 'ton', chains: ['ton:-239'], methods: ['ton_proof'], events: [] }],
    proposer,
    now,
  )
const plan = (entry: Record<string, unknown>) =>
  planAuthentication([entry], namespaces, supported, proposer, now)
const printable = (text: string | undefined) =>
  text === undefined || !(hasHiddenCharacters(text) || /[\t\n\r]/.test(text))

describe('hidden characters in what the connect review shows', () => {
  it.each([
    ['statement', 'Sign in to \u202egpj.exe'],
    ['statement', 'Sign\u0007 in'],
    ['statement', 'Sign\tin'],
    ['statement', 'Sign in\u200b'],
    ['requestId', 'id\u2066'],
    ['nonce', 'abcdefgh1\u0000'],
  ])('%s %j: refused, and the refusal shows it written out', (field, value) => {
    const review = plan({ ...good, [field]: value }).reviews[0]!
    expect(review.refused).toMatch(new RegExp(`^${field} holds control, bidi or invisible characters: `))
    expect(printable(review.refused)).toBe(true)
    expect(printable(review.statement)).toBe(true)
  })

  it('a ton_proof payload with a bidi override is refused too', () => {
    expect(tonPlan('pay\u202e01$').reviews[0]?.refused).toMatch(/^statement holds control, bidi/)
    expect(tonPlan('pay 1$').reviews[0]?.refused).toBeUndefined()
  })

  it('random Unicode statements and payloads: offered as they are only when nothing in them hides or reorders text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (statement) => {
        const clean = printable(statement)
        for (const review of [plan({ ...good, statement }).reviews[0]!, tonPlan(statement).reviews[0]!]) {
          expect(printable(review.statement)).toBe(true)
          expect(printable(review.domain)).toBe(true)
          if (review.refused === undefined) expect(review.statement).toBe(statement)
          if (!clean) expect(review.refused).toBeDefined()
        }
      }),
      { numRuns: 2000 },
    )
  })
})

describe('URIs that run or open something', () => {
  it.each([
    ['resources', ['javascript:alert(document.cookie)']],
    ['resources', ['JavaScript:alert(1)']],
    ['resources', ['data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==']],
    ['resources', ['https://app.example.com/terms', 'file:///etc/passwd']],
    ['aud', 'javascript:alert(1)'],
    ['aud', 'vbscript:msgbox(1)'],
  ])('%s %j is refused', (field, value) => {
    expect(plan({ ...good, [field]: value }).reviews[0]?.refused).toMatch(/runs or opens something/)
  })

  it('navigable resources are kept', () => {
    const review = plan({ ...good, resources: ['https://app.example.com/terms', 'ipfs://bafy'] }).reviews[0]!
    expect(review.refused).toBeUndefined()
  })
})

describe('ReCap (EIP-5573) capabilities', () => {
  // Encoded by WalletConnect's own utils, as a dapp's sign-client sends it.
  const recap = createEncodedRecap('eip155', 'request', ['eth_sendTransaction', 'personal_sign'])

  it('listed as items, with a caution naming the RPC methods granted', () => {
    const review = plan({ ...good, resources: [recap] }).reviews[0]!
    expect(review.refused).toBeUndefined()
    expect(review.capabilities).toEqual([
      { target: 'eip155', abilities: ['request/eth_sendTransaction', 'request/personal_sign'] },
    ])
    expect(review.warnings).toContainEqual({
      code: 'siwe.recap_rpc_methods',
      severity: 'caution',
      message: `Signing in also lets "https://app.example.com/login" ask your wallet to run eth_sendTransaction, personal_sign (ReCap: "eip155": request/eth_sendTransaction, request/personal_sign). Each request is still shown to you.`,
    })
  })

  it('a ReCap granting no RPC method is a plain caution; one that cannot be read is refused', () => {
    const other = `urn:recap:${Buffer.from(JSON.stringify({ att: { 'https://api.example.com': { 'crud/read': [{}] } } })).toString('base64url')}`
    expect(
      plan({ ...good, resources: [other] }).reviews[0]!.warnings.map((warning) => warning.code),
    ).toContain('siwe.recap')
    for (const broken of [
      'urn:recap:!!!',
      'urn:recap:e30',
      `urn:recap:${Buffer.from('{"att":{"x":{"noslash":[]}}}').toString('base64url')}`,
    ])
      expect(plan({ ...good, resources: [broken] }).reviews[0]?.refused).toMatch(/ReCap that cannot be read/)
  })
})

describe('a post-dated sign-in', () => {
  it('an iat decades ahead is a danger at connect; an hour of clock drift is not', () => {
    const codes = (iat: string) => plan({ ...good, iat }).reviews[0]!.warnings.map((warning) => warning.code)
    expect(codes('2066-11-26T12:00:00Z')).toContain('siwe.issued_in_future')
    expect(codes('2026-11-26T12:30:00Z')).not.toContain('siwe.issued_in_future')
  })

  it('and in personal_sign, with the ReCap listed in the review', async () => {
    const reviews: Review[] = []
    const wallet = createWalletRpc({
      namespaces: [
        eip155({
          keys: mnemonicKeys({
            mnemonic:
              'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
          }),
          chains: [1],
        }),
      ],
      approve: (review) => {
        reviews.push(review)
        return true
      },
      clock: fixedClock(now / 1000),
    })
    const recap = createEncodedRecap('eip155', 'request', ['eth_sendTransaction'])
    const message = (issuedAt: string) =>
      [
        'app.example.com wants you to sign in with your Ethereum account:',
        account,
        '',
        'Sign in.',
        '',
        'URI: https://app.example.com/login',
        'Version: 1',
        'Chain ID: 1',
        'Nonce: abcdefgh1',
        `Issued At: ${issuedAt}`,
        'Resources:',
        `- ${recap}`,
      ].join('\n')
    const sign = (issuedAt: string) =>
      wallet.handle({
        chainId: 'eip155:1',
        origin: 'https://app.example.com',
        originValidation: 'VALID',
        request: {
          id: 1,
          jsonrpc: '2.0',
          method: 'personal_sign',
          params: [stringToHex(message(issuedAt)), account],
        },
      }) as Promise<{ result?: string; error?: { code: number; data?: { rule?: string } } }>
    expect((await sign('2066-11-26T12:00:00Z')).error).toMatchObject({
      code: -32602,
      data: { rule: 'siwe.issued_in_future' },
    })
    expect((await sign('2026-11-26T11:59:00Z')).result).toMatch(/^0x/)
    const review = reviews.at(-1)!
    expect(review.warnings.map((warning) => warning.code)).toEqual(['siwe.recap_rpc_methods'])
    const signIn = review.items.find((entry) => entry.label === 'Sign-in')
    expect(JSON.stringify(signIn)).toContain(
      '{"label":"Capabilities granted (ReCap, EIP-5573)","items":[{"label":"eip155","value":"request/eth_sendTransaction"}]}',
    )
  })
})

describe('a proposal whose requests cannot be read', () => {
  const hostile = {
    proxy: new Proxy(
      {},
      {
        get() {
          throw new Error('trap')
        },
        getOwnPropertyDescriptor() {
          throw new Error('trap')
        },
        ownKeys() {
          throw new Error('trap')
        },
      },
    ),
    authentication: new Proxy([], {
      get() {
        throw new Error('trap')
      },
    }),
  }

  it.each(['a Proxy that throws', 'a throwing getter', 'a Proxy of authentication entries'])(
    '%s: rejected (5000), so the dapp gets an answer',
    async (kind) => {
      const walletKit = new FakeWalletKit()
      const adapterErrors = vi.fn()
      const approveSession = vi.fn(() => true)
      const wallet = createWalletRpc({ namespaces: [fakeEthereum().namespace], approve: () => true })
      attachWalletKit(walletKit, wallet, {
        approveSession,
        onError: adapterErrors,
        clock: fixedClock(NOW_SECONDS),
      })
      const event = proposalEvent({ optionalNamespaces: appKitNamespaces }, verified('VALID'))
      if (kind === 'a throwing getter')
        Object.defineProperty(event.params, 'requests', {
          get() {
            throw new Error('getter')
          },
        })
      else
        Object.assign(event.params, {
          requests:
            kind === 'a Proxy that throws' ? hostile.proxy : { authentication: hostile.authentication },
        })
      await walletKit.deliver('session_proposal', event)
      expect(approveSession).not.toHaveBeenCalled()
      expect(walletKit.callsTo('rejectSession')).toEqual([
        {
          id: event.id,
          reason: {
            code: 5000,
            message: 'User rejected. the requests inside the proposal could not be read',
          },
        },
      ])
      expect(adapterErrors).toHaveBeenCalled()
    },
  )
})
