import { describe, expect, it } from 'vitest'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { ton } from '../../src/ton/index.js'
import { verifyTonProof } from '../../src/verify/index.js'
import { spiedSigner } from './fixtures.js'

/** `ton_proof` through `handle()`: the connect-time proof's review, its domain rules, nothing signed on refusal. */
function wallet(allowDangerous: string[] = []) {
  const reviews: Review[] = []
  const signed: Uint8Array[] = []
  const rpc = createWalletRpc({
    namespaces: [ton({ keys: spiedSigner((message) => signed.push(message)), chains: ['ton:-239'] })],
    approve: (review) => {
      reviews.push(review)
      return true
    },
    policy: { allowDangerous },
    clock: () => 1_764_000_000_000,
  })
  return { rpc, reviews, signed }
}

// `null`: no origin at all (undefined would take the default).
const proofRequest = (params: unknown, origin: string | null = 'https://app.example.com') => ({
  chainId: 'ton:-239',
  request: { id: 1, jsonrpc: '2.0' as const, method: 'ton_proof', params },
  ...(origin === null ? {} : { origin }),
  originValidation: 'VALID' as const,
})

describe('ton_proof', () => {
  it('signs the proof for the requesting site; verifyTonProof accepts it', async () => {
    const { rpc, reviews } = wallet()
    const response = await rpc.handle(proofRequest({ domain: 'app.example.com', payload: 'nonce-1' }))
    if (!('result' in response)) throw new Error(JSON.stringify(response))
    const result = response.result as { address: string; proof: never }
    const properties = await rpc.sessionProperties()
    expect(
      verifyTonProof(result.proof, {
        address: result.address,
        publicKey: properties.ton_getPublicKey!,
        stateInit: properties.ton_getStateInit!,
        domains: ['app.example.com'],
        payload: 'nonce-1',
        now: 1_764_000_000,
      }),
    ).toEqual({ valid: true })
    expect(reviews[0]).toMatchObject({
      method: 'ton_proof',
      title: 'Prove to app.example.com that you own this wallet',
      warnings: [],
    })
  })

  it.each([
    [
      'another site',
      { domain: 'evil.example', payload: 'p' },
      'https://app.example.com',
      'ton_proof.domain_mismatch',
    ],
    ['no origin', { domain: 'app.example.com', payload: 'p' }, null, 'ton_proof.origin_missing'],
    [
      'userinfo',
      { domain: 'app.example.com@evil.example', payload: 'p' },
      'https://app.example.com',
      'ton_proof.domain_invalid',
    ],
  ])('%s: refused by policy before approval, nothing signed', async (_name, params, origin, rule) => {
    const { rpc, reviews, signed } = wallet()
    const response = await rpc.handle(proofRequest(params, origin))
    expect(response).toMatchObject({ error: { code: -32602, data: { rule } } })
    expect(reviews).toEqual([])
    expect(signed).toEqual([])
  })

  it('a dangerous proof the policy allows is shown with its warning', async () => {
    const { rpc, reviews } = wallet(['ton_proof.domain_mismatch'])
    const response = await rpc.handle(proofRequest({ domain: 'other.example', payload: 'p' }))
    expect('result' in response).toBe(true)
    expect(reviews[0]?.warnings.map((warning) => warning.code)).toEqual(['ton_proof.domain_mismatch'])
  })

  it.each([
    [{ domain: '', payload: 'p' }, 'domain'],
    [{ domain: 'app.example.com', payload: 'line\nbreak' }, 'payload'],
    [{ domain: 'app.example.com', payload: 'x'.repeat(2049) }, 'payload'],
    [{ domain: 'app.example.com' }, 'payload'],
  ])('bad params %j: -32602 naming %s, nothing signed', async (params, path) => {
    const { rpc, signed } = wallet()
    const response = await rpc.handle(proofRequest(params))
    expect(response).toMatchObject({ error: { code: -32602, data: { path: expect.stringContaining(path) } } })
    expect(signed).toEqual([])
  })

  it('`from` naming another wallet: 4100, nothing signed', async () => {
    const { rpc, signed } = wallet()
    const response = await rpc.handle(
      proofRequest({
        domain: 'app.example.com',
        payload: 'p',
        from: 'EQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA0-Jn',
      }),
    )
    expect(response).toMatchObject({ error: { code: 4100 } })
    expect(signed).toEqual([])
  })
})
