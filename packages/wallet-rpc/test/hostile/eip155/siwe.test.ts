import { recoverPersonalSignature } from '@metamask/eth-sig-util'
import fc from 'fast-check'
import { privateKeyToAccount } from 'viem/accounts'
import { stringToHex } from 'viem/utils'
import { describe, expect, it } from 'vitest'
import { fixedClock } from '../../../src/core/clock.js'
import type { OriginValidation, Review } from '../../../src/core/review.js'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { eip155, ethSignWarningCode, mnemonicKeys } from '../../../src/eip155/index.js'
import { attachWalletKit } from '../../../src/walletkit/index.js'
import { FakeWalletKit } from '../../walletkit/fakeWalletKit.js'
import { requestEvent, verified } from '../../walletkit/fixtures.js'

/**
 * Sign-in phishing (issue 24, item 1): a dapp asks for a Sign-In with Ethereum signature meant for another
 * site, account, chain or time. Every such request must be refused before `approve` runs (-32602, the rule
 * in `data`), unless the wallet's policy lists the rule; nothing is ever signed for it.
 */

// m/44'/60'/0'/0/0 of the BIP-39 test mnemonic (the address every BIP-44 Ethereum wallet derives).
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const signer = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
const other = privateKeyToAccount(
  '0x4646464646464646464646464646464646464646464646464646464646464646',
).address
const NOW = 1_700_000_000 // 2023-11-14T22:13:20Z
const iso = (seconds: number) => new Date(seconds * 1000).toISOString()

type Siwe = {
  head?: string
  address?: string
  statement?: string | null
  uri?: string
  chain?: string
  nonce?: string
  issuedAt?: string
  expirationTime?: string
  notBefore?: string
}

/** An EIP-4361 message, every field overridable; `head` is what precedes " wants you to sign in…". */
function siwe(fields: Siwe = {}): string {
  const statement = fields.statement === undefined ? 'Sign in to Example' : fields.statement
  const lines = [
    `${fields.head ?? 'example.org'} wants you to sign in with your Ethereum account:`,
    fields.address ?? signer,
    '',
    ...(statement === null ? [] : [statement]),
    '',
    `URI: ${fields.uri ?? 'https://example.org/login'}`,
    'Version: 1',
    `Chain ID: ${fields.chain ?? '1'}`,
    `Nonce: ${fields.nonce ?? 'k3Jx9Qm2Vt'}`,
    `Issued At: ${fields.issuedAt ?? iso(NOW - 60)}`,
  ]
  if (fields.expirationTime !== undefined) lines.push(`Expiration Time: ${fields.expirationTime}`)
  if (fields.notBefore !== undefined) lines.push(`Not Before: ${fields.notBefore}`)
  return lines.join('\n')
}

function wallet(options: { allowDangerous?: string[]; enableEthSign?: boolean } = {}) {
  const reviews: Review[] = []
  const errors: unknown[] = []
  const rpc = createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic }),
        chains: [1, 137],
        ...(options.enableEthSign ? { enableEthSign: true } : {}),
      }),
    ],
    approve: (review) => {
      reviews.push(review)
      return true
    },
    onError: (error) => errors.push(error),
    clock: fixedClock(NOW),
    ...(options.allowDangerous ? { policy: { allowDangerous: options.allowDangerous } } : {}),
  })
  return { rpc, reviews, errors }
}

let id = 1

/** personal_sign of `message` from `origin` (as the plain shape, or as a session_request with a Verify verdict). */
async function personalSign(
  message: string,
  origin: string | undefined,
  options: { chainId?: string; validation?: OriginValidation; allowDangerous?: string[] } = {},
) {
  const w = wallet(options.allowDangerous ? { allowDangerous: options.allowDangerous } : {})
  const chainId = options.chainId ?? 'eip155:1'
  const request = { id: id++, jsonrpc: '2.0' as const, method: 'personal_sign', params: [message, signer] }
  const response = (
    options.validation === undefined
      ? await w.rpc.handle({ chainId, request, ...(origin === undefined ? {} : { origin }) })
      : await w.rpc.handle({
          id: request.id,
          topic: 'topic',
          params: { chainId, request: { method: request.method, params: request.params } },
          verifyContext: {
            verified: { ...(origin === undefined ? {} : { origin }), validation: options.validation },
          },
        })
  ) as {
    result?: string
    error?: { code: number; message: string; data?: { rule?: string; reason?: string } }
  }
  return { response, reviews: w.reviews, errors: w.errors }
}

async function expectRefused(message: string, origin: string | undefined, rule: string, chainId?: string) {
  const { response, reviews } = await personalSign(message, origin, chainId ? { chainId } : {})
  expect(response.error, JSON.stringify(response)).toMatchObject({ code: -32602, data: { rule } })
  expect(response.result).toBeUndefined()
  expect(reviews).toHaveLength(0) // refused before approval: the user is never asked to sign it
  return { ...response.error!, reason: response.error!.data!.reason! }
}

async function expectSigned(message: string, origin: string, chainId?: string) {
  const { response, reviews } = await personalSign(message, origin, chainId ? { chainId } : {})
  expect(response.error, JSON.stringify(response)).toBeUndefined()
  expect(recoverPersonalSignature({ data: stringToHex(message), signature: response.result! })).toBe(
    signer.toLowerCase(),
  )
  const dangers = reviews[0]!.warnings.filter((warning) => warning.severity === 'danger')
  expect(dangers).toEqual([])
  return reviews[0]!
}

describe('SIWE for another site', () => {
  it("refuses a sign-in for uniswap.org requested by https://evil.example (the issue's case)", async () => {
    const error = await expectRefused(
      siwe({ head: 'uniswap.org', uri: 'https://uniswap.org' }),
      'https://evil.example',
      'siwe.domain_mismatch',
    )
    expect(error.reason).toContain('uniswap.org')
    expect(error.reason).toContain('evil.example')
  })

  it.each([
    // [message domain, request origin]
    ['app.example.org.evil.example', 'https://app.example.org'],
    ['app.example.org', 'https://app.example.org.evil.example'],
    ['example.org', 'https://example.org.evil.example'],
    ['example.org.evil.example', 'https://example.org'],
    ['example.org', 'https://evilexample.org'],
    ['xexample.org', 'https://example.org'],
    ['example.org', 'https://sub.example.org'],
    ['sub.example.org', 'https://example.org'],
    ['example.org.', 'https://example.org'],
    ['example.or', 'https://example.org'],
    ['example.org', 'https://example.org.'],
    ['example.org-evil.example', 'https://example.org'],
    ['127.0.0.1', 'https://127.0.0.2'],
    ['[::1]', 'https://[::2]'],
  ])('refuses a prefix/suffix look-alike: %s from %s', async (domain, origin) => {
    await expectRefused(siwe({ head: domain, uri: `${origin}/login` }), origin, 'siwe.domain_mismatch')
  })

  it.each([
    ['example.org@evil.example', 'https://evil.example'],
    ['example.org@evil.example', 'https://example.org'],
    ['evil.example@example.org', 'https://example.org'],
    ['user:pass@example.org', 'https://example.org'],
    ['@example.org', 'https://example.org'],
  ])('refuses userinfo tricks: %s from %s', async (domain, origin) => {
    const error = await expectRefused(
      siwe({ head: domain, uri: `${origin}/login` }),
      origin,
      'siwe.domain_mismatch',
    )
    expect(error.reason).toMatch(/@/)
  })

  it.each([
    ['example.org:8443', 'https://example.org'],
    ['example.org', 'https://example.org:8443'],
    ['example.org:80', 'https://example.org'],
    ['example.org:444', 'https://example.org:443'],
    ['localhost:3001', 'http://localhost:3000'],
  ])('refuses a port difference: %s from %s', async (domain, origin) => {
    await expectRefused(siwe({ head: domain, uri: `${origin}/login` }), origin, 'siwe.domain_mismatch')
  })

  it.each([
    ['http://example.org', 'https://example.org'],
    ['example.org', 'http://example.org'],
    ['https://example.org', 'http://example.org'],
    ['wss://example.org', 'https://example.org'],
  ])('refuses a scheme difference: %s from %s (EIP-4361: no scheme means https)', async (head, origin) => {
    await expectRefused(siwe({ head, uri: `${origin}/login` }), origin, 'siwe.domain_mismatch')
  })

  it.each([
    ['example.org', 'https://exämple.org'], // the origin is the IDN, the message names the ASCII look-alike
    ['xn--exmple-cua.org', 'https://example.org'],
    ['xn--80ak6aa92e.com', 'https://apple.com'], // Cyrillic "аррӏе.com"
    ['apple.com', 'https://аррӏе.com'],
  ])('refuses a punycode look-alike: %s from %s', async (domain, origin) => {
    await expectRefused(siwe({ head: domain, uri: 'https://example.org/' }), origin, 'siwe.domain_mismatch')
  })

  it("signs for exactly the origin's host and refuses every neighbour (property)", async () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,4}[a-z0-9]$/)
    const host = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => labels.join('.'))
    const neighbour = (origin: string) =>
      fc.constantFrom(
        origin,
        origin.toUpperCase(),
        `x${origin}`,
        `${origin}x`,
        `www.${origin}`,
        `${origin}.evil.example`,
        `${origin}-evil.example`,
        origin.split('.').slice(1).join('.') || `${origin}.`,
        `${origin}@evil.example`,
        `evil.example@${origin}`,
        `${origin}:8443`,
      )
    await fc.assert(
      fc.asyncProperty(
        host.chain((origin) => fc.tuple(fc.constant(origin), neighbour(origin))),
        async ([origin, domain]) => {
          const { response } = await personalSign(
            siwe({ head: domain, uri: `https://${origin}/` }),
            `https://${origin}`,
          )
          if (domain.toLowerCase() === origin) expect(response.result, domain).toBeDefined()
          else expect(response.error?.data?.rule, `${domain} from ${origin}`).toBe('siwe.domain_mismatch')
        },
      ),
      { numRuns: 150 },
    )
  })

  it('refuses a URI on another host, or one that hides its host behind userinfo, or names none', async () => {
    await expectRefused(
      siwe({ uri: 'https://evil.example/login' }),
      'https://example.org',
      'siwe.uri_mismatch',
    )
    await expectRefused(
      siwe({ uri: 'https://example.org.evil.example/login' }),
      'https://example.org',
      'siwe.uri_mismatch',
    )
    await expectRefused(
      siwe({ uri: 'https://example.org@evil.example/' }),
      'https://example.org',
      'siwe.uri_mismatch',
    )
    await expectRefused(siwe({ uri: 'urn:example:login' }), 'https://example.org', 'siwe.uri_mismatch')
    // RFC 3986 valid, empty host: parses (as the reference parser does) and names no site.
    for (const uri of ['https://@/login', 'https://example.org@/login', 'https://:443/login']) {
      await expectRefused(siwe({ uri }), 'https://example.org', 'siwe.uri_mismatch')
    }
  })

  it('quotes a huge dapp-chosen domain or URI in the refusal only in part', async () => {
    const long = `${'a'.repeat(50_000)}.example`
    const domain = await expectRefused(siwe({ head: long }), 'https://example.org', 'siwe.domain_mismatch')
    expect(domain.reason.length).toBeLessThan(600)
    const uri = await expectRefused(
      siwe({ uri: `https://${long}/` }),
      'https://example.org',
      'siwe.uri_mismatch',
    )
    expect(uri.reason.length).toBeLessThan(600)
    const malformed = await expectRefused(
      siwe({ nonce: 'x'.repeat(50_000).concat('!') }),
      'https://example.org',
      'siwe.malformed',
    )
    expect(malformed.reason.length).toBeLessThan(600)
  })

  it('refuses a sign-in when the request carries no origin, or one that is not a web origin', async () => {
    await expectRefused(siwe(), undefined, 'siwe.origin_missing')
    await expectRefused(siwe(), 'not an origin', 'siwe.origin_missing')
    await expectRefused(siwe(), 'https://user@example.org', 'siwe.origin_missing')
  })

  it('signs when the domain is the origin, whatever its case, IDN form or explicit default port', async () => {
    const review = await expectSigned(siwe(), 'https://example.org')
    expect(review.title).toBe('Sign in to example.org')
    await expectSigned(siwe({ head: 'EXAMPLE.ORG', uri: 'https://Example.Org/login' }), 'https://example.org')
    await expectSigned(siwe({ head: 'example.org' }), 'https://EXAMPLE.org:443')
    await expectSigned(siwe({ head: 'https://example.org:443' }), 'https://example.org/')
    await expectSigned(
      siwe({ head: 'xn--exmple-cua.org', uri: 'https://xn--exmple-cua.org/' }),
      'https://exämple.org',
    )
    await expectSigned(
      siwe({ head: 'http://localhost:3000', uri: 'http://localhost:3000/' }),
      'http://localhost:3000',
    )
  })

  it('shows the canonical host next to an uppercase or percent-encoded domain', async () => {
    const review = await expectSigned(siwe({ head: 'EXAMPLE.org' }), 'https://example.org')
    const section = review.items[0] as { label: string; items: Array<{ label: string; value: string }> }
    expect(section.label).toBe('Sign-in')
    expect(section.items).toContainEqual({ label: 'Domain', value: 'EXAMPLE.org' })
    expect(section.items).toContainEqual({ label: 'Domain host', value: 'example.org' })
  })
})

describe('SIWE for another account or chain', () => {
  it('refuses a message naming another account than the signer', async () => {
    const error = await expectRefused(
      siwe({ address: other }),
      'https://example.org',
      'siwe.account_mismatch',
    )
    expect(error.reason).toContain(other)
  })

  it('refuses a message naming another chain than the request', async () => {
    await expectRefused(siwe({ chain: '137' }), 'https://example.org', 'siwe.chain_mismatch')
    await expectRefused(siwe({ chain: '1' }), 'https://example.org', 'siwe.chain_mismatch', 'eip155:137')
    await expectRefused(siwe({ chain: '10' }), 'https://example.org', 'siwe.chain_mismatch')
  })

  it('accepts the same chain written with leading zeros (it is the same chain id)', async () => {
    await expectSigned(siwe({ chain: '0137' }), 'https://example.org', 'eip155:137')
  })
})

describe('SIWE outside its validity window', () => {
  it('refuses an expired message, including one expiring this very second', async () => {
    await expectRefused(siwe({ expirationTime: iso(NOW - 1) }), 'https://example.org', 'siwe.expired')
    await expectRefused(siwe({ expirationTime: iso(NOW) }), 'https://example.org', 'siwe.expired')
    await expectRefused(
      siwe({ expirationTime: '2023-11-14T23:13:19+01:00' }), // NOW - 1 s, in another time zone
      'https://example.org',
      'siwe.expired',
    )
  })

  it('refuses a message not valid yet', async () => {
    await expectRefused(siwe({ notBefore: iso(NOW + 1) }), 'https://example.org', 'siwe.not_yet_valid')
    await expectRefused(
      siwe({ notBefore: '2023-11-14T22:13:21.000+00:00' }),
      'https://example.org',
      'siwe.not_yet_valid',
    )
  })

  it('signs inside the window', async () => {
    const review = await expectSigned(
      siwe({ notBefore: iso(NOW), expirationTime: iso(NOW + 1) }),
      'https://example.org',
    )
    expect(review.signIn).toMatchObject({ notBefore: iso(NOW), expirationTime: iso(NOW + 1) })
  })
})

describe('messages that look like SIWE but are not', () => {
  it.each([
    ['an all-lowercase address', siwe({ address: signer.toLowerCase() })],
    ['a short nonce', siwe({ nonce: 'abc' })],
    ['a trailing newline', `${siwe()}\n`],
    ['CRLF line ends', siwe().replaceAll('\n', '\r\n')],
    ['a leading space', ` ${siwe()}`],
    ['Version 2', siwe().replace('Version: 1', 'Version: 2')],
    ['a capitalised phrase', siwe().replace('sign in with your Ethereum', 'Sign In With Your Ethereum')],
    ['the phrase broken over two lines', siwe().replace('sign in with', 'sign in\nwith')],
    ['an extra field', `${siwe()}\nRedirect: https://evil.example`],
    ['a statement with a newline', siwe({ statement: 'Sign in\nand approve all tokens' })],
    ['a bidi override in the domain', siwe({ head: 'example.org\u202e' })],
    ['a unicode domain', siwe({ head: 'exämple.org' })],
    ['prose around it', `Please read:\n${siwe()}`],
    ['the phrase alone', 'evil.example wants you to sign in with your Ethereum account'],
  ])('refuses %s as malformed (even from a matching origin)', async (_name, message) => {
    await expectRefused(message, 'https://example.org', 'siwe.malformed')
  })

  it('refuses the hex-encoded form too (wallets decode hex personal_sign payloads)', async () => {
    await expectRefused(stringToHex(`${siwe()}\n`), 'https://example.org', 'siwe.malformed')
    await expectRefused(
      stringToHex(siwe({ head: 'evil.example' })),
      'https://example.org',
      'siwe.domain_mismatch',
    )
  })

  it('leaves an ordinary message alone', async () => {
    const { response, reviews } = await personalSign(
      'Hello, I want to sign in to my account',
      'https://example.org',
    )
    expect(response.result).toBeDefined()
    expect(reviews[0]!.warnings).toEqual([])
    expect(reviews[0]!.signIn).toBeUndefined()
  })
})

describe('origins the transport did not verify', () => {
  it('warns on every sign-in from a plain handle() call (no verdict), and still signs a matching one', async () => {
    const { response, reviews } = await personalSign(siwe(), 'https://example.org')
    expect(response.result).toBeDefined()
    expect(reviews[0]!.warnings).toEqual([
      expect.objectContaining({ code: 'siwe.origin_unverified', severity: 'caution' }),
    ])
    expect(reviews[0]!.warnings[0]!.message).toContain('example.org')
  })

  it('warns on UNKNOWN, says nothing more on VALID, refuses INVALID', async () => {
    const unknown = await personalSign(siwe(), 'https://example.org', { validation: 'UNKNOWN' })
    expect(unknown.response.result).toBeDefined()
    expect(unknown.reviews[0]!.warnings.map((warning) => warning.code)).toEqual(['siwe.origin_unverified'])

    const valid = await personalSign(siwe(), 'https://example.org', { validation: 'VALID' })
    expect(valid.response.result).toBeDefined()
    expect(valid.reviews[0]!.warnings).toEqual([])

    const invalid = await personalSign(siwe(), 'https://example.org', { validation: 'INVALID' })
    expect(invalid.response.error).toMatchObject({ code: -32602, data: { rule: 'siwe.origin_invalid' } })
    expect(invalid.reviews).toHaveLength(0)
  })

  it('a VALID verdict does not excuse a domain mismatch', async () => {
    const { response } = await personalSign(siwe({ head: 'uniswap.org' }), 'https://evil.example', {
      validation: 'VALID',
    })
    expect(response.error).toMatchObject({ code: -32602, data: { rule: 'siwe.domain_mismatch' } })
  })
})

describe('the wallet policy', () => {
  it('lets a wallet allow a listed rule; the review still carries the danger, and signing works', async () => {
    const { response, reviews } = await personalSign(
      siwe({ head: 'localhost:3000' }),
      'https://example.org',
      {
        allowDangerous: ['siwe.domain_mismatch'],
      },
    )
    expect(response.result).toBeDefined()
    expect(reviews[0]!.warnings.map((warning) => [warning.code, warning.severity])).toContainEqual([
      'siwe.domain_mismatch',
      'danger',
    ])
  })

  it('allowing one rule does not allow another', async () => {
    const { response } = await personalSign(
      siwe({ head: 'evil.example', uri: 'https://evil.example/', address: other }),
      'https://evil.example',
      {
        allowDangerous: ['siwe.domain_mismatch'],
      },
    )
    expect(response.error).toMatchObject({ code: -32602, data: { rule: 'siwe.account_mismatch' } })
  })
})

describe('eth_sign carrying a SIWE message', () => {
  it('gets the same checks even when the wallet allows eth_sign itself', async () => {
    const w = wallet({ enableEthSign: true, allowDangerous: [ethSignWarningCode] })
    const call = (message: string) =>
      w.rpc.handle({
        chainId: 'eip155:1',
        origin: 'https://evil.example',
        request: { id: id++, jsonrpc: '2.0', method: 'eth_sign', params: [signer, stringToHex(message)] },
      })
    expect(await call(siwe({ head: 'uniswap.org' }))).toMatchObject({
      error: { code: -32602, data: { rule: 'siwe.domain_mismatch' } },
    })
    expect(await call(`${siwe({ head: 'evil.example' })}\n`)).toMatchObject({
      error: { code: -32602, data: { rule: 'siwe.malformed' } },
    })
    const ok = await call(siwe({ head: 'evil.example', uri: 'https://evil.example/' }))
    expect(ok).toHaveProperty('result')
    expect(w.reviews[0]!.items[0]).toMatchObject({ label: 'Sign-in' })
  })
})

describe('through the WalletKit adapter', () => {
  async function viaWalletKit(message: string, verifyContext: ReturnType<typeof verified>) {
    const w = wallet()
    const walletKit = new FakeWalletKit()
    attachWalletKit(walletKit, w.rpc, { approveSession: () => true, clock: fixedClock(NOW) })
    await walletKit.deliver(
      'session_request',
      requestEvent(
        'topic-1',
        'eip155:1',
        { method: 'personal_sign', params: [message, signer] },
        verifyContext,
      ),
    )
    const [answer] = walletKit.callsTo('respondSessionRequest')
    return {
      response: answer!.response as { result?: string; error?: { code: number; data?: unknown } },
      ...w,
    }
  }

  it('refuses a sign-in for another site even with a VALID verdict for the requesting site', async () => {
    const { response, reviews } = await viaWalletKit(
      siwe({ head: 'uniswap.org', uri: 'https://uniswap.org/' }),
      verified('VALID', { origin: 'https://evil.example' }),
    )
    expect(response.error).toMatchObject({ code: -32602, data: { rule: 'siwe.domain_mismatch' } })
    expect(reviews).toHaveLength(0)
  })

  it('signs a matching sign-in with an UNKNOWN verdict, with the unverified-domain caution', async () => {
    const { response, reviews } = await viaWalletKit(
      siwe(),
      verified('UNKNOWN', { origin: 'https://example.org' }),
    )
    expect(response.result).toMatch(/^0x[0-9a-f]{130}$/)
    expect(reviews[0]!.originValidation).toBe('UNKNOWN')
    expect(reviews[0]!.warnings.map((warning) => warning.code)).toEqual(['siwe.origin_unverified'])
  })

  it('still refuses an INVALID origin before anything else', async () => {
    const { response, reviews } = await viaWalletKit(
      siwe(),
      verified('INVALID', { origin: 'https://example.org' }),
    )
    expect(response.error).toMatchObject({ code: -32602, data: { rule: 'origin.invalid' } })
    expect(reviews).toHaveLength(0)
  })
})
