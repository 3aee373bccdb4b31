import { buildAuthObject, formatMessage, validateSignedCacao } from '@walletconnect/utils'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { cacaoMessage, verifyCacao } from '../../src/verify/index.js'

/**
 * verifyCacao against CACAOs built and signed outside this package (viem's account, WalletConnect's own
 * formatMessage / buildAuthObject), cross-checked with WalletConnect's validateSignedCacao.
 */
// Hardhat/anvil dev account 0 (public test key).
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const iss = `did:pkh:eip155:1:${account.address}`
const payload = {
  type: 'caip122',
  domain: 'app.example.com',
  aud: 'https://app.example.com/login',
  version: '1',
  nonce: 'abcdefgh42',
  iat: '2026-11-26T12:00:00.000Z',
  exp: '2026-11-26T13:00:00.000Z',
  statement: 'Sign in to Example.',
  resources: ['https://app.example.com/terms'],
}
const now = Date.parse('2026-11-26T12:30:00Z')
const expected = { domain: 'app.example.com', nonce: 'abcdefgh42', now }

async function signed(fields: Record<string, unknown> = {}) {
  const p = { ...payload, ...fields }
  const signature = await account.signMessage({ message: formatMessage(p, iss) })
  return buildAuthObject(p as never, { t: 'eip191', s: signature }, iss)
}

describe('verifyCacao', () => {
  it('rebuilds the exact EIP-4361 text WalletConnect formats, with and without the optional fields', () => {
    expect(cacaoMessage({ ...payload, iss })).toBe(formatMessage(payload, iss))
    const bare = {
      domain: 'a.example',
      aud: 'https://a.example',
      version: '1',
      nonce: 'abcdefgh',
      iat: payload.iat,
    }
    expect(cacaoMessage({ ...bare, iss })).toBe(formatMessage(bare, iss))
  })

  it('accepts a CACAO that WalletConnect’s own verifier accepts', async () => {
    const cacao = await signed()
    expect(await validateSignedCacao({ cacao })).toBe(true)
    expect(verifyCacao(cacao, { ...expected, uri: payload.aud, chains: ['eip155:1'] })).toEqual({
      valid: true,
    })
  })

  it('refuses what does not answer the dapp’s own request', async () => {
    const cacao = await signed()
    const reason = (options: Partial<Parameters<typeof verifyCacao>[1]>, value: unknown = cacao) => {
      const result = verifyCacao(value, { ...expected, ...options })
      return result.valid ? 'valid' : result.reason
    }
    expect(reason({ domain: 'evil.example' })).toMatch(/domain app.example.com is not evil.example/)
    expect(reason({ nonce: 'other1234' })).toBe('the nonce is not the one issued')
    expect(reason({ uri: 'https://app.example.com/other' })).toMatch(/aud/)
    expect(reason({ chains: ['eip155:10'] })).toMatch(/not asked for/)
    expect(reason({ now: Date.parse('2026-11-26T14:00:00Z') })).toMatch(/expired/)
    expect(reason({}, { ...cacao, p: { ...cacao.p, statement: 'Sign in to Evil.' } })).toMatch(/signed by/)
    expect(reason({}, { ...cacao, s: { t: 'eip1271', s: cacao.s.s } })).toMatch(/not checked here/)
    expect(reason({}, { ...cacao, p: { ...cacao.p, resources: ['urn:recap:eyJ9'] } })).toMatch(/ReCap/)
  })

  it('never throws, whatever it is given', () => {
    for (const garbage of [
      null,
      1,
      'x',
      [],
      {},
      { h: {}, p: {}, s: {} },
      { h: { t: 'caip122' }, p: { iss: 5 }, s: {} },
    ]) {
      expect(verifyCacao(garbage, expected).valid).toBe(false)
    }
  })
})
