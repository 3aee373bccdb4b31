import { readFileSync } from 'node:fs'
import { Address } from '@ton/core'
import nacl from 'tweetnacl'
import { describe, expect, it } from 'vitest'
import { tonProofDigest as walletDigest } from '../../src/ton/tonProof.js'
import { type TonProof, tonProofDigest, verifyTonProof } from '../../src/verify/index.js'

type Case = { name: string; address: string; publicKey: string; stateInit: string; proof: TonProof }
// Real wallets' proofs (test-vectors/ton/ton-proof.json: source and license inside).
const vectors = JSON.parse(
  readFileSync(new URL('../../test-vectors/ton/ton-proof.json', import.meta.url), 'utf8'),
) as { cases: Case[] }

const optionsOf = (vector: Case) => ({
  address: vector.address,
  publicKey: vector.publicKey,
  stateInit: vector.stateInit,
  domains: ['winogarcia.github.io'],
  payload: vector.proof.payload,
  now: vector.proof.timestamp + 10,
})

describe('ton_proof of real wallets (TonProof.NET test data)', () => {
  it.each(vectors.cases)(
    '$name: the wallet-side and verifier digests agree and the real signature verifies',
    (vector) => {
      const address = Address.parse(vector.address)
      const fields = {
        timestamp: vector.proof.timestamp,
        domain: vector.proof.domain.value,
        payload: vector.proof.payload,
      }
      const ours = walletDigest({ address, ...fields })
      expect(Buffer.from(ours)).toEqual(Buffer.from(tonProofDigest(address, vector.proof)))
      const signature = Buffer.from(vector.proof.signature, 'base64')
      expect(nacl.sign.detached.verify(ours, signature, Buffer.from(vector.publicKey, 'hex'))).toBe(true)
    },
  )

  it('verifyTonProof accepts the v4R2 proof and refuses each field changed', () => {
    const vector = vectors.cases[0]!
    const options = optionsOf(vector)
    expect(verifyTonProof(vector.proof, options)).toEqual({ valid: true })
    const refused = (proof: unknown, changes: Partial<typeof options> = {}) =>
      verifyTonProof(proof, { ...options, ...changes })
    expect(refused(vector.proof, { domains: ['evil.example'] })).toMatchObject({
      valid: false,
      reason: expect.stringMatching(/not one of the app's/),
    })
    expect(refused({ ...vector.proof, payload: 'x' }, { payload: 'x' })).toMatchObject({
      reason: 'the Ed25519 signature does not verify',
    })
    expect(refused(vector.proof, { payload: 'another' })).toMatchObject({
      reason: 'the payload is not the one issued',
    })
    expect(refused(vector.proof, { now: vector.proof.timestamp + 3600 })).toMatchObject({
      reason: expect.stringMatching(/too old/),
    })
    expect(refused(vector.proof, { now: vector.proof.timestamp - 3600 })).toMatchObject({
      reason: expect.stringMatching(/future/),
    })
    expect(
      refused({ ...vector.proof, domain: { lengthBytes: 21, value: 'winogarcia.github.io' } }),
    ).toMatchObject({ reason: 'proof domain length is wrong' })
    expect(refused(vector.proof, { address: vectors.cases[1]!.address })).toMatchObject({
      reason: 'the StateInit is not the proven address',
    })
    expect(refused(vector.proof, { publicKey: vectors.cases[1]!.publicKey })).toMatchObject({ valid: false })
  })

  it('verifyTonProof refuses the testnet W5 proof by its wallet code, not its signature', () => {
    // Its StateInit's code is a library cell naming code hash e4cf3b2f…, neither the v4R2 nor the v5R1 release
    // this package recognises (the signature itself verifies: the test above).
    const vector = vectors.cases[1]!
    expect(verifyTonProof(vector.proof, optionsOf(vector))).toEqual({
      valid: false,
      reason: 'ton_getStateInit is not a v4R2 or v5R1 wallet',
    })
  })

  it('never throws, whatever it is given', () => {
    for (const garbage of [null, 1, 'x', [], { domain: 5 }, { domain: { value: 1 } }]) {
      expect(verifyTonProof(garbage, optionsOf(vectors.cases[0]!)).valid).toBe(false)
      expect(verifyTonProof(vectors.cases[0]!.proof, garbage as never).valid).toBe(false)
    }
  })
})
