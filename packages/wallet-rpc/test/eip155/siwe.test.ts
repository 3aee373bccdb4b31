import { readFileSync } from 'node:fs'
import { ParsedMessage } from '@spruceid/siwe-parser'
import fc from 'fast-check'
import { privateKeyToAccount } from 'viem/accounts'
import { createSiweMessage, parseSiweMessage as viemParseSiweMessage } from 'viem/siwe'
import { describe, expect, it } from 'vitest'
import { parseDateTime } from '../../src/core/dateTime.js'
import { domainMismatch, originOf } from '../../src/core/origin.js'
import { parseAuthority, parseUri } from '../../src/core/uri.js'
import { looksLikeSiwe, parseSiweMessage } from '../../src/eip155/siwe.js'

const vectors = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../test-vectors/eip155/siwe/${name}`, import.meta.url), 'utf8'))

type SpruceFields = Record<string, unknown>

/** spruceid's field names → ours (namespace-neutral: account, chain). */
function ours(fields: SpruceFields): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'address') out.account = value
    else if (key === 'chainId') out.chain = String(value)
    else out[key] = value ?? undefined
  }
  return out
}

function parsed(message: string) {
  const result = parseSiweMessage(message)
  if (!result.ok) throw new Error(`expected ${JSON.stringify(message)} to parse: ${result.reason}`)
  return result.message
}

describe('parseSiweMessage: spruceid/siwe parser fixtures (verbatim)', () => {
  const positive: Record<string, { message: string; fields: SpruceFields }> = vectors(
    'spruceid-parsing_positive.json',
  )
  it.each(Object.entries(positive))('parses %s', (_name, { message, fields }) => {
    expect(parsed(message)).toMatchObject(ours(fields))
  })

  const negative: Record<string, string> = vectors('spruceid-parsing_negative.json')
  it.each(Object.entries(negative))('refuses %s', (_name, message) => {
    const result = parseSiweMessage(message)
    expect(result.ok).toBe(false)
    expect(looksLikeSiwe(message)).toBe(true)
  })
})

describe('parseSiweMessage: EIP-4361 examples and ABNF cases', () => {
  const file = vectors('eip-4361.json') as {
    valid: Record<string, { message: string; fields: SpruceFields }>
    invalid: Record<string, string>
  }
  it.each(Object.entries(file.valid))('parses %s', (_name, { message, fields }) => {
    expect(parsed(message)).toMatchObject(ours(fields))
  })
  it.each(Object.entries(file.invalid))('refuses %s', (_name, message) => {
    expect(parseSiweMessage(message).ok).toBe(false)
  })

  it('reads every field of a full message', () => {
    const message = file.valid['all optional fields, in order']!.message
    expect(parsed(message)).toEqual({
      scheme: undefined,
      domain: 'example.com',
      account: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
      chain: '1',
      uri: 'https://example.com/login',
      version: '1',
      statement: 'Sign in',
      nonce: '32891756',
      issuedAt: '2021-09-30T16:25:24Z',
      expirationTime: '2021-10-30T16:25:24.123456Z',
      notBefore: '2021-09-30T16:25:24+02:00',
      requestId: 'a:b@c-d',
      resources: ['urn:isbn:0451450523'],
    })
  })

  it('says which rule a refused message breaks', () => {
    const result = parseSiweMessage(file.invalid['nonce of 7 characters']!)
    expect(result).toEqual({ ok: false, reason: 'Nonce must be at least 8 letters or digits' })
  })
})

describe('parseSiweMessage against viem/siwe (independent implementation)', () => {
  const account = privateKeyToAccount('0x4646464646464646464646464646464646464646464646464646464646464646')
  const alnum = fc.stringMatching(/^[A-Za-z0-9]{8,24}$/)
  const host = fc.constantFrom(
    'example.org',
    'app.example.org',
    'localhost:3000',
    '127.0.0.1:8080',
    'xn--exmple-cua.org',
  )
  const date = fc.date({
    min: new Date('1970-01-01T00:00:00Z'),
    max: new Date('2999-12-31T23:59:59Z'),
    noInvalidDate: true,
  })
  const statement = fc.option(fc.stringMatching(/^[A-Za-z0-9 .,:/?#@!$&'()*+;=~-]{1,60}$/), {
    nil: undefined,
  })

  it('parses what viem createSiweMessage writes to the same fields viem reads back', () => {
    fc.assert(
      fc.property(
        host,
        alnum,
        fc.integer({ min: 1, max: 2 ** 40 }),
        date,
        fc.option(date, { nil: undefined }),
        statement,
        fc.array(fc.webUrl(), { maxLength: 3 }),
        (domain, nonce, chainId, issuedAt, expirationTime, text, resources) => {
          const message = createSiweMessage({
            address: account.address,
            domain,
            uri: `https://${domain}/login`,
            version: '1',
            chainId,
            nonce,
            issuedAt,
            ...(expirationTime === undefined ? {} : { expirationTime }),
            ...(text === undefined || text.trim() !== text || text === '' ? {} : { statement: text }),
            ...(resources.length === 0 ? {} : { resources }),
          })
          const mine = parsed(message)
          const theirs = viemParseSiweMessage(message)
          expect(mine.domain).toBe(theirs.domain)
          expect(mine.account).toBe(theirs.address)
          expect(BigInt(mine.chain)).toBe(BigInt(theirs.chainId!))
          expect(mine.nonce).toBe(theirs.nonce)
          expect(mine.uri).toBe(theirs.uri)
          expect(mine.statement).toBe(theirs.statement)
          expect(parseDateTime(mine.issuedAt)).toBe(theirs.issuedAt!.getTime())
          if (expirationTime) expect(parseDateTime(mine.expirationTime!)).toBe(expirationTime.getTime())
          expect(mine.resources).toEqual(theirs.resources ?? [])
        },
      ),
      { numRuns: 200 },
    )
  })

  it('never throws on arbitrary text, and refuses any single-character change to the header', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        expect(typeof parseSiweMessage(text).ok).toBe('boolean')
        expect(
          typeof parseSiweMessage(`example.org wants you to sign in with your Ethereum account:\n${text}`).ok,
        ).toBe('boolean')
      }),
    )
  })
})

describe('parseSiweMessage against @spruceid/siwe-parser (the reference ABNF parser)', () => {
  // Near-valid pieces: each field is either well-formed or drawn from the characters the ABNF cares about,
  // so both parsers see many messages on either side of every rule.
  const chars = (alphabet: string, maxLength: number, minLength = 0) =>
    fc.string({ unit: fc.constantFrom(...alphabet.split('')), minLength, maxLength })
  const uriChars = "aZ09.-_~:/?#[]@!$&'()*+,;=%"
  const piece = chars(uriChars, 6)
  const tricky = chars(`${uriChars} "<>\\^\`{|}\nTtZz+é\u202e\r`, 12)
  const digits = (n: number) => chars('0123456789', n, n)
  const date = fc
    .tuple(
      digits(4),
      digits(2),
      digits(2),
      fc.constantFrom('T', 't', ' '),
      digits(2),
      digits(2),
      digits(2),
      fc.constantFrom('', '.1', '.123456', '.'),
      fc.constantFrom('Z', 'z', '+01:00', '-23:59', '+24:00', ''),
    )
    .map(([y, mo, d, t, h, mi, s, fraction, zone]) => `${y}-${mo}-${d}${t}${h}:${mi}:${s}${fraction}${zone}`)
  const ipv6 = fc
    .array(fc.oneof(chars('0123456789abcdefABCDEF', 5, 1), fc.constant(''), fc.constant('1.2.3.4')), {
      minLength: 1,
      maxLength: 10,
    })
    .map((groups) => `[${groups.join(':')}]`)
  const authority = fc
    .tuple(
      fc.option(piece, { nil: undefined }),
      fc.oneof(piece, ipv6, fc.constantFrom('1.2.3.4', '256.1.1.1', 'a.b', '[v1.x]')),
      fc.option(fc.oneof(digits(2), piece), { nil: undefined }),
    )
    .map(
      ([user, host, port]) =>
        `${user === undefined ? '' : `${user}@`}${host}${port === undefined ? '' : `:${port}`}`,
    )
  const fields = fc.record({
    head: fc.oneof(
      authority,
      authority.map((a) => `https://${a}`),
      fc.constant('example.org'),
      tricky,
    ),
    address: fc.oneof(
      fc.constant('0x9858EfFD232B4033E47d90003D41EC34EcaEda94'),
      fc.constant('0x9858effd232b4033e47d90003d41ec34ecaeda94'),
      tricky,
    ),
    statement: fc.oneof(fc.constant('Sign in'), fc.constant(null), tricky),
    uri: fc.oneof(
      authority.map((a) => `https://${a}/login`),
      fc.tuple(piece, piece, piece).map(([path, query, fragment]) => `x:${path}?${query}#${fragment}`),
      fc.constantFrom('urn:x:y', 'did:pkh:eip155:1:0xabc', 'mailto:a@b'),
      tricky,
    ),
    chain: fc.oneof(fc.constantFrom('1', '0137', '99999999999999999999'), tricky),
    nonce: fc.oneof(fc.constant('k3Jx9Qm2Vt'), tricky),
    issuedAt: fc.oneof(date, fc.constant('2021-09-30T16:25:24Z'), tricky),
    expirationTime: fc.option(date, { nil: undefined }),
    requestId: fc.option(fc.oneof(fc.constant(''), piece, tricky), { nil: undefined }),
    resources: fc.option(fc.array(fc.oneof(fc.constant('https://a.b/c'), piece, tricky), { maxLength: 2 }), {
      nil: undefined,
    }),
  })
  const message = (f: typeof fields extends fc.Arbitrary<infer T> ? T : never) => {
    const lines = [
      `${f.head} wants you to sign in with your Ethereum account:`,
      f.address,
      '',
      ...(f.statement === null ? [] : [f.statement]),
      '',
      `URI: ${f.uri}`,
      'Version: 1',
      `Chain ID: ${f.chain}`,
      `Nonce: ${f.nonce}`,
      `Issued At: ${f.issuedAt}`,
    ]
    if (f.expirationTime !== undefined) lines.push(`Expiration Time: ${f.expirationTime}`)
    if (f.requestId !== undefined) lines.push(`Request ID: ${f.requestId}`)
    if (f.resources !== undefined) lines.push('Resources:', ...f.resources.map((resource) => `- ${resource}`))
    return lines.join('\n')
  }
  const reference = (text: string) => {
    try {
      return new ParsedMessage(text)
    } catch {
      return undefined
    }
  }

  it('accepts and refuses the same messages, and reads the same fields', () => {
    fc.assert(
      fc.property(fields, (f) => {
        const text = message(f)
        const mine = parseSiweMessage(text)
        const theirs = reference(text)
        // The one deliberate difference: RFC 3986 lets an authority's host be empty (`:56`, `@`, `user@:56`);
        // a sign-in for no host names no site, so this parser refuses it.
        const emptyHost = (domain: string) => /^(:[0-9]*)?$/.test(domain.replace(/^[^@]*@/, ''))
        if (!mine.ok && theirs !== undefined && emptyHost(theirs.domain)) return
        expect(mine.ok, text).toBe(theirs !== undefined)
        if (!mine.ok || theirs === undefined) return
        expect({
          domain: mine.message.domain,
          scheme: mine.message.scheme,
          address: mine.message.account,
          statement: mine.message.statement || undefined,
          uri: mine.message.uri,
          chainId: Number(mine.message.chain), // the reference reads a JS number
          nonce: mine.message.nonce,
          issuedAt: mine.message.issuedAt,
          expirationTime: mine.message.expirationTime,
          requestId: mine.message.requestId,
          resources: mine.message.resources,
        }).toEqual({
          domain: theirs.domain,
          scheme: theirs.scheme,
          address: theirs.address,
          statement: theirs.statement || undefined,
          uri: theirs.uri,
          chainId: theirs.chainId,
          nonce: theirs.nonce,
          issuedAt: theirs.issuedAt,
          expirationTime: theirs.expirationTime,
          requestId: theirs.requestId,
          resources: theirs.resources ?? (f.resources === undefined ? [] : theirs.resources),
        })
      }),
      { numRuns: Number(process.env.SIWE_RUNS ?? 3000) },
    )
  })
})

describe('RFC 3339 date-time', () => {
  it.each([
    ['2021-09-30T16:25:24Z', Date.UTC(2021, 8, 30, 16, 25, 24)],
    ['2021-09-30T16:25:24.5Z', Date.UTC(2021, 8, 30, 16, 25, 24, 500)],
    ['2021-09-30T16:25:24.123456789Z', Date.UTC(2021, 8, 30, 16, 25, 24, 123)],
    ['2021-09-30T16:25:24-02:00', Date.UTC(2021, 8, 30, 18, 25, 24)],
    ['2021-09-30T16:25:24+05:30', Date.UTC(2021, 8, 30, 10, 55, 24)],
    ['0050-01-01T00:00:00Z', -60589296000000],
    ['2016-12-31T23:59:60Z', Date.UTC(2017, 0, 1)],
  ])('%s', (text, expected) => {
    expect(parseDateTime(text)).toBe(expected)
  })
  it('agrees with Date.parse on ISO strings', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0100-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }),
        (date) => {
          expect(parseDateTime(date.toISOString())).toBe(date.getTime())
        },
      ),
    )
  })
  it.each([
    '2021-13-01T00:00:00Z',
    '2023-02-29T00:00:00Z',
    '2021-09-30T16:60:00Z',
    '2021-09-30T16:25:24+24:00',
    '2021-09-30T16:25:24.Z',
    '21-09-30T16:25:24Z',
    '2021-09-30T16:25Z',
  ])('refuses %s', (text) => {
    expect(parseDateTime(text)).toBeUndefined()
  })
})

describe('RFC 3986 authority and URI', () => {
  it.each([
    ['example.org', { userinfo: undefined, host: 'example.org', port: undefined }],
    ['EXAMPLE.org:0443', { userinfo: undefined, host: 'example.org', port: '0443' }],
    ['example.org@evil.example', { userinfo: 'example.org', host: 'evil.example', port: undefined }],
    ['[::cafe]:8080', { userinfo: undefined, host: '[::cafe]', port: '8080' }],
    ['[::ffff:1.2.3.4]', { userinfo: undefined, host: '[::ffff:102:304]', port: undefined }],
    ['exa%6Dple.org', { userinfo: undefined, host: 'example.org', port: undefined }],
  ])('authority %s', (text, expected) => {
    expect(parseAuthority(text)).toEqual(expected)
  })
  it.each(['', 'a@b@c', '[::cafe', '[1:2]', 'example.org:x', 'exa mple.org', 'example.org/', 'ex#ample'])(
    'refuses authority %j',
    (text) => {
      expect(parseAuthority(text)).toBeUndefined()
    },
  )
  it('parses URIs with and without an authority', () => {
    expect(parseUri('https://u@example.org:8443/a/b?q=1#f')).toEqual({
      scheme: 'https',
      authority: { userinfo: 'u', host: 'example.org', port: '8443' },
      path: '/a/b',
      query: 'q=1',
      fragment: 'f',
    })
    expect(parseUri('urn:isbn:0451450523')?.authority).toBeUndefined()
    // An empty host is valid RFC 3986 (the reference parser accepts it); the URI then names no host.
    for (const noHost of ['file:///x', 'https://@/login', 'x://user@:80/']) {
      expect(parseUri(noHost), noHost).toMatchObject({ authority: undefined })
    }
    expect(parseUri('did:pkh:eip155:1:0xabc')?.path).toBe('pkh:eip155:1:0xabc')
    for (const bad of ['//example.org', 'https://exa mple.org', 'https://a/b c', 'https://x/%zz', ':x']) {
      expect(parseUri(bad), bad).toBeUndefined()
    }
  })

  it('compares a domain with an origin host for host, scheme, port and userinfo', () => {
    const origin = originOf('https://example.org')!
    expect(domainMismatch(undefined, 'example.org', origin)).toBeUndefined()
    expect(domainMismatch('https', 'EXAMPLE.ORG:443', origin)).toBeUndefined()
    expect(domainMismatch(undefined, 'app.example.org.evil.example', origin)).toMatch(/host/)
    expect(domainMismatch(undefined, 'example.org.evil.example', origin)).toMatch(/host/)
    expect(domainMismatch(undefined, 'xexample.org', origin)).toMatch(/host/)
    expect(domainMismatch(undefined, 'example.org:8443', origin)).toMatch(/port/)
    expect(domainMismatch('http', 'example.org', origin)).toMatch(/scheme/)
    expect(domainMismatch(undefined, 'example.org@example.org', origin)).toMatch(/example\.org@/)
    expect(domainMismatch('http', 'localhost:3000', originOf('http://localhost:3000')!)).toBeUndefined()
    expect(domainMismatch(undefined, 'localhost:3000', originOf('http://localhost:3000')!)).toMatch(/scheme/)
  })
})
