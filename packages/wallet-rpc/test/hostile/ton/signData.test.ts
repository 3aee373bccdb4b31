import { describe, expect, it } from 'vitest'
import { fixedClock } from '../../../src/core/clock.js'
import type { OriginValidation, Review } from '../../../src/core/review.js'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { ton, tonKeys } from '../../../src/ton/index.js'
import { verifyTonSignData } from '../../../src/verify/index.js'
import { attachWalletKit } from '../../../src/walletkit/index.js'
import { fixturePublicKeyHex, fixtureSeedHex } from '../../ton/fixtures.js'
import { FakeWalletKit } from '../../walletkit/fakeWalletKit.js'
import { requestEvent, verified } from '../../walletkit/fixtures.js'

/**
 * `ton_signData` binds its signature to a domain: the host of the request's origin. Issue 24, item 1: a
 * dapp whose origin the transport did not verify only claims that domain, so the review says so; an
 * INVALID origin is refused; a dapp that names another domain than the one it runs on is refused unless
 * the wallet's policy allows it; and the signature always binds the origin's host, never the claim.
 */

const NOW = 1_700_000_000
let id = 1

function wallet(allowDangerous?: string[]) {
  const reviews: Review[] = []
  const rpc = createWalletRpc({
    namespaces: [ton({ keys: tonKeys.fromSecretKey(Buffer.from(fixtureSeedHex, 'hex')) })],
    approve: (review) => {
      reviews.push(review)
      return true
    },
    clock: fixedClock(NOW),
    ...(allowDangerous ? { policy: { allowDangerous } } : {}),
  })
  return { rpc, reviews }
}

type Answer = {
  result?: { domain: string; signature: string }
  error?: { code: number; data?: { rule?: string; reason?: string } }
}

async function signData(
  payload: Record<string, unknown>,
  origin: string | undefined,
  options: { validation?: OriginValidation; allowDangerous?: string[] } = {},
) {
  const w = wallet(options.allowDangerous)
  const params = [payload]
  const response = (
    options.validation === undefined
      ? await w.rpc.handle({
          chainId: 'ton:-239',
          request: { id: id++, jsonrpc: '2.0', method: 'ton_signData', params },
          ...(origin === undefined ? {} : { origin }),
        })
      : await w.rpc.handle({
          id: id++,
          topic: 'topic',
          params: { chainId: 'ton:-239', request: { method: 'ton_signData', params } },
          verifyContext: {
            verified: { ...(origin === undefined ? {} : { origin }), validation: options.validation },
          },
        })
  ) as Answer
  return { response, reviews: w.reviews, params }
}

/** The answer verifies (wallet-rpc/verify, written apart from the signer) for exactly `domain`. */
function expectBoundTo(params: unknown, response: Answer, domain: string) {
  expect(response.error, JSON.stringify(response)).toBeUndefined()
  expect(response.result!.domain).toBe(domain)
  expect(
    verifyTonSignData(params, response.result, { domain, publicKey: fixturePublicKeyHex, now: NOW }),
  ).toEqual({ valid: true })
}

const text = { type: 'text', text: 'Log in to Example' }

describe('unverified origins: the domain is only claimed', () => {
  it('warns on a plain handle() call (no verdict) and binds the origin host', async () => {
    const { response, reviews, params } = await signData(text, 'https://example.org')
    expectBoundTo(params, response, 'example.org')
    expect(reviews[0]!.warnings).toEqual([
      expect.objectContaining({ code: 'ton.sign_data.origin_unverified', severity: 'caution' }),
    ])
    expect(reviews[0]!.warnings[0]!.message).toContain('example.org')
  })

  it('warns on UNKNOWN, for every payload type', async () => {
    for (const payload of [
      text,
      { type: 'binary', bytes: 'AQID' },
      { type: 'cell', schema: 'message#_ text:^Cell = Message;', cell: 'te6cckEBAQEAAgAAAEysuc0=' },
    ]) {
      const { reviews } = await signData(payload, 'https://example.org', { validation: 'UNKNOWN' })
      expect(reviews[0]!.warnings.map((warning) => warning.code)).toContain('ton.sign_data.origin_unverified')
    }
  })

  it('says nothing more on VALID', async () => {
    const { response, reviews, params } = await signData(text, 'https://example.org', { validation: 'VALID' })
    expectBoundTo(params, response, 'example.org')
    expect(reviews[0]!.warnings).toEqual([])
  })

  it('refuses INVALID (handle() given the session_request event directly)', async () => {
    const { response, reviews } = await signData(text, 'https://example.org', { validation: 'INVALID' })
    expect(response.error).toMatchObject({ code: -32602, data: { rule: 'ton.sign_data.origin_invalid' } })
    expect(reviews).toHaveLength(0)
  })

  it('refuses a request with no origin, or one without a usable host', async () => {
    for (const [origin, rule] of [
      [undefined, 'ton.sign_data.no_origin'],
      ['not a url', 'ton.sign_data.bad_origin'],
      ['https://example.org@evil.example', 'ton.sign_data.bad_origin'],
      ['data:text/plain,hi', 'ton.sign_data.bad_origin'],
    ] as const) {
      const { response, reviews } = await signData(text, origin)
      expect(response.error, String(origin)).toMatchObject({ code: -32602, data: { rule } })
      expect(reviews).toHaveLength(0)
    }
  })
})

describe('a dapp naming another domain than its origin', () => {
  it.each([
    ['bank.example', 'https://dapp.example'],
    ['dapp.example.evil.example', 'https://dapp.example'],
    ['dapp.example', 'https://dapp.example.evil.example'],
    ['app.dapp.example', 'https://dapp.example'],
    ['xdapp.example', 'https://dapp.example'],
    ['dapp.example@evil.example', 'https://evil.example'],
    ['evil.example@dapp.example', 'https://dapp.example'],
    ['dapp.example:8443', 'https://dapp.example'],
    ['dapp.example', 'http://dapp.example:8080'],
    ['example.org', 'https://exämple.org'],
    ['https://dapp.example', 'https://dapp.example'], // a URL is not a domain
    ['', 'https://dapp.example'],
  ])('refuses declared %j from %s', async (domain, origin) => {
    const { response, reviews } = await signData({ ...text, domain }, origin)
    expect(response.error).toMatchObject({ code: -32602, data: { rule: 'ton.sign_data.domain_mismatch' } })
    expect(reviews).toHaveLength(0)
  })

  it('refuses a declared domain that is not a string', async () => {
    const { response } = await signData({ ...text, domain: { host: 'dapp.example' } }, 'https://dapp.example')
    expect(response.error).toMatchObject({ code: -32602, data: { rule: 'ton.sign_data.domain_mismatch' } })
  })

  it.each([
    ['dapp.example', 'https://dapp.example', 'dapp.example'],
    ['DAPP.Example', 'https://dapp.example', 'dapp.example'],
    ['xn--exmple-cua.org', 'https://exämple.org', 'xn--exmple-cua.org'],
    ['localhost:5173', 'http://localhost:5173', 'localhost:5173'],
    ['dapp.example', 'https://dapp.example:443', 'dapp.example'],
  ])('accepts declared %j from %s, bound to %s', async (domain, origin, bound) => {
    const { response, params } = await signData({ ...text, domain }, origin, { validation: 'VALID' })
    expectBoundTo(params, response, bound)
  })

  it('with the rule allowed, still binds the origin host, never the declared one', async () => {
    const { response, reviews, params } = await signData(
      { ...text, domain: 'bank.example' },
      'https://dapp.example',
      {
        allowDangerous: ['ton.sign_data.domain_mismatch'],
      },
    )
    expectBoundTo(params, response, 'dapp.example')
    expect(reviews[0]!.title).toBe('Sign data for dapp.example')
    expect(reviews[0]!.warnings.map((warning) => [warning.code, warning.severity])).toContainEqual([
      'ton.sign_data.domain_mismatch',
      'danger',
    ])
  })
})

describe('through the WalletKit adapter', () => {
  async function viaWalletKit(payload: Record<string, unknown>, verifyContext: ReturnType<typeof verified>) {
    const w = wallet()
    const walletKit = new FakeWalletKit()
    attachWalletKit(walletKit, w.rpc, { approveSession: () => true, clock: fixedClock(NOW) })
    await walletKit.deliver(
      'session_request',
      requestEvent('topic-1', 'ton:-239', { method: 'ton_signData', params: [payload] }, verifyContext),
    )
    const [answer] = walletKit.callsTo('respondSessionRequest')
    return { response: answer!.response as Answer, reviews: w.reviews }
  }

  it('binds the verified origin, with the caution on UNKNOWN', async () => {
    const { response, reviews } = await viaWalletKit(
      text,
      verified('UNKNOWN', { origin: 'https://dapp.example' }),
    )
    expectBoundTo([text], response, 'dapp.example')
    expect(reviews[0]!.warnings.map((warning) => warning.code)).toEqual(['ton.sign_data.origin_unverified'])
  })

  it('refuses INVALID and a declared domain on another host', async () => {
    const invalid = await viaWalletKit(text, verified('INVALID', { origin: 'https://dapp.example' }))
    expect(invalid.response.error).toMatchObject({ code: -32602, data: { rule: 'origin.invalid' } })
    const other = await viaWalletKit(
      { ...text, domain: 'bank.example' },
      verified('VALID', { origin: 'https://dapp.example' }),
    )
    expect(other.response.error).toMatchObject({
      code: -32602,
      data: { rule: 'ton.sign_data.domain_mismatch' },
    })
    expect([...invalid.reviews, ...other.reviews]).toHaveLength(0)
  })
})
