import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { base64, hex } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { describe, expect, it } from 'vitest'
import { verifySignPsbt } from '../../src/verify/index.js'

// Independent keys and PSBTs built with @scure/btc-signer (not the wallet's signer code).
const walletKey = sha256(new TextEncoder().encode('wallet key'))
const otherKey = sha256(new TextEncoder().encode('someone else'))
const walletPub = secp256k1.getPublicKey(walletKey, true)
const otherPub = secp256k1.getPublicKey(otherKey, true)
const walletWpkh = btc.p2wpkh(walletPub)
const walletTr = btc.p2tr(walletPub.slice(1))
const otherWpkh = btc.p2wpkh(otherPub)
const txid = (n: number) => hex.decode(n.toString(16).padStart(64, '0'))

function unsignedPsbt(): btc.Transaction {
  const tx = new btc.Transaction()
  tx.addInput({ txid: txid(1), index: 0, witnessUtxo: { script: walletWpkh.script, amount: 50_000n } })
  tx.addInput({ txid: txid(2), index: 1, witnessUtxo: { script: otherWpkh.script, amount: 40_000n } })
  tx.addInput({
    txid: txid(3),
    index: 0,
    witnessUtxo: { script: walletTr.script, amount: 30_000n },
    tapInternalKey: walletPub.slice(1),
  })
  tx.addOutputAddress(otherWpkh.address!, 100_000n)
  return tx
}

const request = (
  overrides: Partial<{
    broadcast: boolean
    signInputs: { address: string; index: number; sighashTypes?: number[] }[]
  }> = {},
) => ({
  account: walletWpkh.address!,
  psbt: base64.encode(unsignedPsbt().toPSBT()),
  signInputs: [
    { address: walletWpkh.address!, index: 0 },
    { address: walletTr.address!, index: 2 },
  ],
  ...overrides,
})

function signedBy(psbtBase64: string, signs: [Uint8Array, number, number[]?][]): btc.Transaction {
  const tx = btc.Transaction.fromPSBT(base64.decode(psbtBase64))
  for (const [key, index, sighash] of signs) tx.signIdx(key, index, sighash)
  return tx
}

describe('verifySignPsbt', () => {
  it('accepts a PSBT where exactly the requested inputs were signed', () => {
    const req = request()
    const tx = signedBy(req.psbt, [
      [walletKey, 0],
      [walletKey, 2],
    ])
    expect(verifySignPsbt(req, { psbt: base64.encode(tx.toPSBT()) })).toEqual({ valid: true })
  })

  it('accepts the broadcast form: all inputs final and the txid of the extracted transaction', () => {
    const req = request({ broadcast: true })
    const tx = signedBy(req.psbt, [[otherKey, 1]])
    const foreignSigned = base64.encode(tx.toPSBT())
    const full = signedBy(foreignSigned, [
      [walletKey, 0],
      [walletKey, 2],
    ])
    full.finalize()
    const answer = { psbt: base64.encode(full.toPSBT()), txid: full.id }
    expect(verifySignPsbt({ ...req, psbt: foreignSigned }, answer)).toEqual({ valid: true })
    expect(verifySignPsbt({ ...req, psbt: foreignSigned }, { ...answer, txid: '00'.repeat(32) }).valid).toBe(
      false,
    )
    expect(verifySignPsbt({ ...req, psbt: foreignSigned }, { psbt: answer.psbt }).valid).toBe(false)
  })

  it('refuses an extra input signed', () => {
    const req = request({ signInputs: [{ address: walletWpkh.address!, index: 0 }] })
    const tx = signedBy(req.psbt, [
      [walletKey, 0],
      [walletKey, 2],
    ])
    const verdict = verifySignPsbt(req, { psbt: base64.encode(tx.toPSBT()) })
    expect(verdict).toEqual({ valid: false, reason: 'input 2 was not requested but gained a signature' })
  })

  it('refuses finalizing a foreign input without broadcast', () => {
    const req = request()
    const foreign = base64.encode(signedBy(req.psbt, [[otherKey, 1]]).toPSBT())
    const tx = signedBy(foreign, [
      [walletKey, 0],
      [walletKey, 2],
    ])
    tx.finalizeIdx(1)
    const verdict = verifySignPsbt({ ...req, psbt: foreign }, { psbt: base64.encode(tx.toPSBT()) })
    expect(verdict.valid).toBe(false)
    expect(verdict.valid === false && verdict.reason).toContain('input 1 was not requested')
  })

  it('refuses a tampered signature', () => {
    const req = request()
    const tx = signedBy(req.psbt, [
      [walletKey, 0],
      [walletKey, 2],
    ])
    const sig = hex.encode(tx.getInput(0).partialSig![0]![1])
    const flipped = sig.slice(0, 20) + (sig[20] === '0' ? '1' : '0') + sig.slice(21)
    const tampered = hex.encode(tx.toPSBT()).replace(sig, flipped)
    const verdict = verifySignPsbt(req, { psbt: base64.encode(hex.decode(tampered)) })
    expect(verdict).toEqual({ valid: false, reason: expect.stringContaining('input 0') })
  })

  it('refuses an untweaked taproot key signature', () => {
    const req = request({ signInputs: [{ address: walletTr.address!, index: 2 }] })
    const tx = btc.Transaction.fromPSBT(base64.decode(req.psbt))
    const prevScripts = [walletWpkh.script, otherWpkh.script, walletTr.script]
    const digest = tx.preimageWitnessV1(2, prevScripts, 0, [50_000n, 40_000n, 30_000n])
    // Signed with the internal key instead of the BIP-86 tweaked key: what a broken wallet does.
    tx.updateInput(2, { tapKeySig: schnorr.sign(digest, walletKey) }, true)
    const verdict = verifySignPsbt(req, { psbt: base64.encode(tx.toPSBT()) })
    expect(verdict).toEqual({ valid: false, reason: expect.stringContaining('tweaked') })
  })

  it('refuses a sighash type the request did not allow, and a wrong address', () => {
    const req = request({ signInputs: [{ address: walletWpkh.address!, index: 0 }] })
    const unsigned = btc.Transaction.fromPSBT(base64.decode(req.psbt))
    unsigned.updateInput(0, { sighashType: btc.SigHash.ALL_ANYONECANPAY })
    const withType = base64.encode(unsigned.toPSBT())
    const tx = signedBy(withType, [[walletKey, 0, [btc.SigHash.ALL_ANYONECANPAY]]])
    const verdict = verifySignPsbt({ ...req, psbt: withType }, { psbt: base64.encode(tx.toPSBT()) })
    expect(verdict).toEqual({ valid: false, reason: expect.stringContaining('not in [1]') })
    const allowed = {
      ...req,
      psbt: withType,
      signInputs: [{ address: walletWpkh.address!, index: 0, sighashTypes: [0x81] }],
    }
    expect(verifySignPsbt(allowed, { psbt: base64.encode(tx.toPSBT()) })).toEqual({ valid: true })
    const wrongAddress = { ...req, signInputs: [{ address: otherWpkh.address!, index: 0 }] }
    const ok = signedBy(req.psbt, [[walletKey, 0]])
    expect(verifySignPsbt(wrongAddress, { psbt: base64.encode(ok.toPSBT()) }).valid).toBe(false)
  })

  it('refuses a changed output, an unsigned requested input and a txid without broadcast', () => {
    const req = request()
    const tx = signedBy(req.psbt, [
      [walletKey, 0],
      [walletKey, 2],
    ])
    // A proprietary field appended to the last (only) output map.
    const signed = tx.toPSBT()
    const changed = new Uint8Array([...signed.slice(0, -1), 0x02, 0xfc, 0x01, 0x01, 0x00, 0x00])
    expect(verifySignPsbt(req, { psbt: base64.encode(changed) })).toEqual({
      valid: false,
      reason: 'output 0 changed',
    })
    const half = signedBy(req.psbt, [[walletKey, 0]])
    expect(verifySignPsbt(req, { psbt: base64.encode(half.toPSBT()) })).toEqual({
      valid: false,
      reason: 'requested input 2 was not signed',
    })
    expect(verifySignPsbt(req, { psbt: base64.encode(tx.toPSBT()), txid: tx.id }).valid).toBe(false)
  })

  it('never throws on junk', () => {
    for (const junk of [null, 'x', { psbt: 'not base64!' }, { psbt: base64.encode(new Uint8Array(10)) }]) {
      expect(verifySignPsbt(request(), junk).valid).toBe(false)
    }
    expect(verifySignPsbt({} as never, {}).valid).toBe(false)
  })
})
