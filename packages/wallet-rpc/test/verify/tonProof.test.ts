import { readFileSync } from 'node:fs'
import { Address, beginCell, storeStateInit } from '@ton/core'
import { WalletContractV4, WalletContractV5Beta, WalletContractV5R1 } from '@ton/ton'
import nacl from 'tweetnacl'
import { describe, expect, it } from 'vitest'
import { tonProofDigest as walletDigest } from '../../src/ton/tonProof.js'
import { type TonProof, tonProofDigest, verifyTonProof } from '../../src/verify/index.js'
import { codeHashOf, sessionWallet } from '../../src/verify/internal/ton.js'
import { buildTonProofV5R1Vectors } from './buildTonProofV5R1.js'

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

  it('verifyTonProof accepts the testnet W5 beta proof: its code is a library cell naming e4cf3b2f…', () => {
    // e4cf3b2f… is W5's beta (@ton/ton's WalletContractV5Beta deploys exactly this library cell), not v5R1.
    const vector = vectors.cases[1]!
    expect(verifyTonProof(vector.proof, optionsOf(vector))).toEqual({ valid: true })
    expect(sessionWallet(vector.stateInit, vector.publicKey).version).toBe('v5beta')
    expect(
      verifyTonProof(vector.proof, { ...optionsOf(vector), publicKey: vectors.cases[0]!.publicKey }),
    ).toEqual({
      valid: false,
      reason: 'ton_getPublicKey is not the key inside ton_getStateInit',
    })
  })

  it('never throws, whatever it is given', () => {
    for (const garbage of [null, 1, 'x', [], { domain: 5 }, { domain: { value: 1 } }]) {
      expect(verifyTonProof(garbage, optionsOf(vectors.cases[0]!)).valid).toBe(false)
      expect(verifyTonProof(vectors.cases[0]!.proof, garbage as never).valid).toBe(false)
    }
  })
})

describe('ton_proof of a wallet v5R1 (test-vectors/ton/ton-proof-v5r1.json, built with @ton/ton)', () => {
  const v5r1 = JSON.parse(
    readFileSync(new URL('../../test-vectors/ton/ton-proof-v5r1.json', import.meta.url), 'utf8'),
  ) as { cases: Case[] }
  const optionsFor = (vector: Case) => ({
    ...optionsOf(vector),
    domains: ['app.example.com'],
  })

  it('the file is what its builder writes (deterministic Ed25519, fixed timestamp)', async () => {
    expect(await buildTonProofV5R1Vectors()).toEqual(
      JSON.parse(
        readFileSync(new URL('../../test-vectors/ton/ton-proof-v5r1.json', import.meta.url), 'utf8'),
      ),
    )
  })

  it.each(v5r1.cases)('$name: verifyTonProof accepts it and reads the key as v5R1', (vector) => {
    expect(verifyTonProof(vector.proof, optionsFor(vector))).toEqual({ valid: true })
    expect(sessionWallet(vector.stateInit, vector.publicKey).version).toBe('v5r1')
    expect(verifyTonProof(vector.proof, { ...optionsFor(vector), domains: ['evil.example'] })).toMatchObject({
      valid: false,
    })
  })

  it('recognises the code of @ton/ton’s own wallet contracts, a library cell by the code it names', () => {
    const publicKey = Buffer.alloc(32, 7)
    const contracts = [
      ['v4r2', WalletContractV4.create({ workchain: 0, publicKey })],
      ['v5r1', WalletContractV5R1.create({ workchain: 0, publicKey })],
      ['v5beta', WalletContractV5Beta.create({ publicKey, walletId: { networkGlobalId: -239 } })],
    ] as const
    for (const [version, contract] of contracts) {
      const stateInit = beginCell().store(storeStateInit(contract.init)).endCell().toBoc().toString('base64')
      const wallet = sessionWallet(stateInit, publicKey.toString('hex'))
      expect([version, wallet.version, wallet.address.equals(contract.address)]).toEqual([
        version,
        version,
        true,
      ])
    }
    expect(
      codeHashOf(WalletContractV5Beta.create({ publicKey, walletId: { networkGlobalId: -239 } }).init.code),
    ).toBe('e4cf3b2f4c6d6a61ea0f2b5447d266785b26af3637db2deee6bcd1aa826f3412')
  })
})
