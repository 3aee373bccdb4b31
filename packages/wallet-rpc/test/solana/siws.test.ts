import {
  createSignInMessageText,
  parseSignInMessageText,
  type SolanaSignInInputWithRequiredFields,
} from '@solana/wallet-standard-util'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { looksLikeSiws, parseSiwsMessage } from '../../src/solana/siws.js'

/**
 * Sign In With Solana: our strict parser (Phantom's ABNF) against @solana/wallet-standard-util 1.1.4, the
 * library dapps and wallets build and verify these messages with (`createSignInMessageText`,
 * `parseSignInMessageText`). Its parser is a permissive regular expression, so the proof runs one way:
 * every message it writes from valid fields, we parse to the same fields; every message we accept, it
 * accepts with the same fields.
 */
const address = '7EqQdEULxWcraVx3mXKFjc84LhCkMGZCkRuDpvcMwJeK'

// github.com/phantom/sign-in-with-solana README at 6f085ace640e58e64e729ac4e8452abb7d3833bb,
// "Minimal Message Template" and "Maximal Message Template", with their placeholders filled in.
const minimal = `example.com wants you to sign in with your Solana account:\n${address}`
const maximal = [
  'example.com wants you to sign in with your Solana account:',
  address,
  '',
  'Clicking Sign or Approve only means you have proved this wallet is owned by you.',
  '',
  'URI: https://example.com',
  'Version: 1',
  'Chain ID: mainnet',
  'Nonce: 32891756',
  'Issued At: 2024-01-01T00:00:00.000Z',
  'Expiration Time: 2024-01-02T00:00:00.000Z',
  'Not Before: 2024-01-01T00:00:00.000Z',
  'Request ID: login-1',
  'Resources:',
  '- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/',
  '- https://example.com/my-web2-claim.json',
].join('\n')

describe('parseSiwsMessage', () => {
  it('reads the minimal and maximal templates of the specification', () => {
    expect(parseSiwsMessage(minimal)).toEqual({
      ok: true,
      message: {
        scheme: undefined,
        domain: 'example.com',
        account: address,
        chain: undefined,
        uri: undefined,
        version: undefined,
        statement: undefined,
        nonce: undefined,
        issuedAt: undefined,
        expirationTime: undefined,
        notBefore: undefined,
        requestId: undefined,
        resources: [],
      },
    })
    const parsed = parseSiwsMessage(maximal)
    expect(parsed.ok && parsed.message).toMatchObject({
      domain: 'example.com',
      statement: 'Clicking Sign or Approve only means you have proved this wallet is owned by you.',
      uri: 'https://example.com',
      version: '1',
      chain: 'mainnet',
      nonce: '32891756',
      issuedAt: '2024-01-01T00:00:00.000Z',
      expirationTime: '2024-01-02T00:00:00.000Z',
      notBefore: '2024-01-01T00:00:00.000Z',
      requestId: 'login-1',
      resources: [
        'ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/',
        'https://example.com/my-web2-claim.json',
      ],
    })
  })

  it.each([
    ['an Ethereum address', minimal.replace(address, '0x9858EfFD232B4033E47d90003D41EC34EcaEda94')],
    ['a base58 string that is not 32 bytes', minimal.replace(address, '1111111111111111111111111111111')],
    ['a scheme before the domain', `https://${minimal}`],
    ['fields out of order', `${minimal}\n\nVersion: 1\nURI: https://example.com`],
    ['an unknown cluster', `${minimal}\n\nChain ID: mainnet-beta`],
    ['Version 2', `${minimal}\n\nVersion: 2`],
    ['a short nonce', `${minimal}\n\nNonce: abc`],
    ['a date that is not RFC 3339', `${minimal}\n\nIssued At: yesterday`],
    ['a statement with a line break', `${minimal}\n\nline one\nline two`],
    ['an empty statement', `${minimal}\n\n\n\nURI: https://example.com`],
    ['an unknown field', `${minimal}\n\nURI: https://example.com\nColor: blue`],
    ['a resource that is not a URI', `${minimal}\n\nResources:\n- not a uri`],
    ['CRLF line ends', minimal.replace('\n', '\r\n')],
  ])('refuses %s', (_name, text) => {
    expect(parseSiwsMessage(text).ok).toBe(false)
    expect(looksLikeSiws(text)).toBe(true)
  })

  const alphanumeric = fc.string({
    unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('')),
    minLength: 8,
    maxLength: 16,
  })
  const date = fc
    .date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2099-12-31T23:59:59Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString())
  const host = fc.constantFrom(
    'example.com',
    'app.example.org:8443',
    'localhost:3000',
    '[::1]:80',
    '127.0.0.1',
  )
  const uri = fc.constantFrom(
    'https://example.com',
    'https://example.com/login?x=1#y',
    'urn:x:y',
    'ipfs://bafy/',
  )
  const validInput: fc.Arbitrary<SolanaSignInInputWithRequiredFields> = fc.record(
    {
      domain: host,
      address: fc.constantFrom(address, '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'),
      statement: fc.constantFrom('Sign in', 'I accept the Terms of Service at https://example.com/tos'),
      uri,
      version: fc.constant('1'),
      chainId: fc.constantFrom('mainnet', 'devnet', 'testnet', 'localnet', 'solana:mainnet', 'solana:devnet'),
      nonce: alphanumeric,
      issuedAt: date,
      expirationTime: date,
      notBefore: date,
      requestId: fc.constantFrom('1', 'login-1', 'a:b@c'),
      resources: fc.array(uri, { minLength: 1, maxLength: 3 }),
    },
    { requiredKeys: ['domain', 'address'] },
  )

  it('parses every message the reference writes from valid fields, to the same fields', () => {
    fc.assert(
      fc.property(validInput, (input) => {
        const text = createSignInMessageText(input)
        const parsed = parseSiwsMessage(text)
        expect(parsed.ok, text).toBe(true)
        if (!parsed.ok) return
        const theirs = parseSignInMessageText(text)!
        expect({ ...parsed.message, resources: parsed.message.resources }).toMatchObject({
          domain: theirs.domain,
          account: theirs.address,
          statement: theirs.statement,
          uri: theirs.uri,
          version: theirs.version,
          chain: theirs.chainId,
          nonce: theirs.nonce,
          issuedAt: theirs.issuedAt,
          expirationTime: theirs.expirationTime,
          notBefore: theirs.notBefore,
          requestId: theirs.requestId,
          resources: theirs.resources ?? [],
        })
      }),
      { numRuns: 500 },
    )
  })

  it('what it accepts among near-valid messages, the reference reads the same way', () => {
    const tricky = fc.string({ unit: fc.constantFrom(...'aZ09 :./-@\n\r%é'.split('')), maxLength: 12 })
    const line = fc.oneof(
      fc.constantFrom('', 'URI: https://example.com', 'Version: 1', 'Chain ID: devnet', 'Nonce: 12345678'),
      fc.constantFrom(
        'Issued At: 2024-01-01T00:00:00Z',
        'Request ID: x',
        'Resources:',
        '- https://a.b/c',
        'Sign in',
      ),
      tricky,
    )
    let accepted = 0
    fc.assert(
      fc.property(host, fc.array(line, { maxLength: 8 }), (domain, rest) => {
        const text = [`${domain} wants you to sign in with your Solana account:`, address, ...rest].join('\n')
        const parsed = parseSiwsMessage(text)
        if (!parsed.ok) return
        accepted++
        const theirs = parseSignInMessageText(text)
        expect(theirs, text).not.toBeNull()
        expect(parsed.message.account).toBe(theirs!.address)
        expect(parsed.message.domain).toBe(theirs!.domain)
        expect(parsed.message.chain).toBe(theirs!.chainId)
        expect(parsed.message.uri).toBe(theirs!.uri)
        expect(parsed.message.nonce).toBe(theirs!.nonce)
      }),
      { numRuns: 2000 },
    )
    // Not vacuous: a good share of the near-valid messages parse.
    expect(accepted).toBeGreaterThan(50)
  })
})
