import { base58 } from '@scure/base'
import { describe, expect, it } from 'vitest'
import type { Review } from '../../../src/core/review.js'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { solana, solanaDevnet, solanaKeys, solanaMainnet } from '../../../src/solana/index.js'
import { mnemonic, ours, stranger } from '../../solana/helpers.js'

/**
 * Issue 24 item 1 for Solana: a Sign In With Solana message sent to `solana_signMessage` gets the same
 * checks as Sign-In with Ethereum. Each mismatch is a `danger` (refused with -32602 naming the rule unless
 * the wallet's policy allows it); an unverified origin and a missing nonce are cautions.
 */
const signer = ours()
const clock = () => Date.parse('2024-06-01T00:00:00Z')

function siws(fields: { domain?: string; account?: string; lines?: string[] } = {}): string {
  const lines = fields.lines ?? [
    '',
    'URI: https://example.org/login',
    'Version: 1',
    'Chain ID: mainnet',
    'Nonce: k3Jx9Qm2Vt',
    'Issued At: 2024-05-31T23:00:00Z',
  ]
  return [
    `${fields.domain ?? 'example.org'} wants you to sign in with your Solana account:`,
    fields.account ?? signer,
    ...lines,
  ].join('\n')
}

let nextId = 1
async function ask(
  text: string,
  settings: { origin?: string; chainId?: string; validation?: 'VALID' | 'UNKNOWN' | 'INVALID' } = {},
) {
  const reviews: Review[] = []
  const wallet = createWalletRpc({
    namespaces: [solana({ keys: solanaKeys.fromMnemonic(mnemonic), chains: [solanaMainnet, solanaDevnet] })],
    approve: (review) => {
      reviews.push(review)
      return true
    },
    clock,
  })
  // A WalletKit session_request, so the transport's verdict on the origin reaches the checks.
  const answer = (await wallet.handle({
    id: nextId++,
    topic: 'topic',
    params: {
      chainId: settings.chainId ?? solanaMainnet,
      request: {
        method: 'solana_signMessage',
        params: { message: base58.encode(new TextEncoder().encode(text)), pubkey: signer },
      },
    },
    verifyContext: {
      verified: {
        origin: settings.origin ?? 'https://example.org',
        validation: settings.validation ?? 'VALID',
      },
    },
  })) as { result?: { signature: string }; error?: { code: number; data?: { rule?: string } } }
  return { answer, review: reviews[0] }
}

async function expectRefused(text: string, rule: string, settings?: Parameters<typeof ask>[1]) {
  const { answer, review } = await ask(text, settings)
  expect(answer.error, rule).toMatchObject({ code: -32602, data: { rule } })
  expect(review).toBeUndefined()
}

describe('Sign In With Solana through solana_signMessage', () => {
  it('signs a matching sign-in and shows it as one: section, title, no warning', async () => {
    const { answer, review } = await ask(siws())
    expect(answer.result?.signature).toBeTypeOf('string')
    expect(review?.title).toBe('Sign in to example.org')
    expect(review?.warnings).toEqual([])
    expect(JSON.stringify(review?.items)).toContain('"Sign-in"')
  })

  it('refuses a sign-in for another site, or one that merely starts like the origin', async () => {
    await expectRefused(siws({ domain: 'uniswap.org' }), 'siws.domain_mismatch')
    await expectRefused(siws({ domain: 'example.org.evil.example' }), 'siws.domain_mismatch')
    await expectRefused(siws({ domain: 'example.org@evil.example' }), 'siws.domain_mismatch')
    await expectRefused(siws(), 'siws.domain_mismatch', { origin: 'https://evil.example' })
  })

  it('refuses a URI on another host', async () => {
    const lines = ['', 'URI: https://evil.example/login', 'Nonce: k3Jx9Qm2Vt']
    await expectRefused(siws({ lines }), 'siws.uri_mismatch')
  })

  it('refuses a sign-in naming another account than the signer', async () => {
    await expectRefused(siws({ account: stranger }), 'siws.account_mismatch')
  })

  it('refuses a sign-in naming another cluster than the request; accepts the cluster by either name', async () => {
    await expectRefused(siws(), 'siws.chain_mismatch', { chainId: solanaDevnet })
    const devnet = siws({ lines: ['', 'Chain ID: solana:devnet', 'Nonce: k3Jx9Qm2Vt'] })
    expect((await ask(devnet, { chainId: solanaDevnet })).answer.result).toBeDefined()
  })

  it('refuses an expired sign-in and one not valid yet', async () => {
    await expectRefused(
      siws({ lines: ['', 'Nonce: k3Jx9Qm2Vt', 'Expiration Time: 2024-05-31T00:00:00Z'] }),
      'siws.expired',
    )
    await expectRefused(
      siws({ lines: ['', 'Nonce: k3Jx9Qm2Vt', 'Not Before: 2024-06-02T00:00:00Z'] }),
      'siws.not_yet_valid',
    )
  })

  it('refuses a look-alike that does not parse, whatever its case or spacing', async () => {
    await expectRefused(siws({ lines: ['', 'Chain ID: mainnet-beta'] }), 'siws.malformed')
    const lookAlike = `example.org wants you to sign in with your SOLANA\naccount:\n${signer}`
    await expectRefused(lookAlike, 'siws.malformed')
  })

  it('refuses when the transport says the origin is INVALID; cautions when it could not verify it', async () => {
    await expectRefused(siws(), 'siws.origin_invalid', { validation: 'INVALID' })
    const { answer, review } = await ask(siws(), { validation: 'UNKNOWN' })
    expect(answer.result).toBeDefined()
    expect(review?.warnings.map((warning) => [warning.code, warning.severity])).toEqual([
      ['siws.origin_unverified', 'caution'],
    ])
  })

  it('the minimal message (domain and address only) binds the domain and cautions that it has no nonce', async () => {
    await expectRefused(siws({ domain: 'evil.example', lines: [] }), 'siws.domain_mismatch')
    const { answer, review } = await ask(siws({ lines: [] }))
    expect(answer.result).toBeDefined()
    expect(review?.warnings.map((warning) => warning.code)).toEqual(['siws.no_nonce'])
  })

  it('a plain message is still a plain message', async () => {
    const { answer, review } = await ask('Hello from example.org')
    expect(answer.result).toBeDefined()
    expect(review?.title).toBe('Sign message')
    expect(review?.warnings).toEqual([])
  })
})
