import * as ecc from '@bitcoinerlab/secp256k1'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { base64, hex } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { BIP32Factory } from 'bip32'
import { Signer } from 'bip322-js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { serializeWithoutWitness, sha256d } from '../../src/checks/bitcoin.js'
import {
  bip322MessageHash,
  bitcoinMessageHash,
  verifyBip322,
  verifySignMessage,
  verifySignPsbt,
} from '../../src/verify/index.js'
import { bip322ToSpend } from '../../src/verify/signMessage.js'

// Signatures made by bip322-js (bitcoinjs-lib 6 inside) must verify with ours (scure/noble based, from the BIP).
const key = sha256(new TextEncoder().encode('cross-check key'))
const node = BIP32Factory(ecc).fromPrivateKey(Buffer.from(key), Buffer.alloc(32))
const wif = node.toWIF()
const pub = secp256k1.getPublicKey(key, true)
const addresses = {
  p2wpkh: btc.p2wpkh(pub).address!,
  p2tr: btc.p2tr(pub.slice(1)).address!,
  p2sh: btc.p2sh(btc.p2wpkh(pub)).address!,
}

describe('BIP-322 against bip322-js', () => {
  it('accepts what bip322-js signs for P2WPKH, P2TR and P2SH-P2WPKH, and rejects another message', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60 }),
        fc.constantFrom(...Object.values(addresses)),
        (message, address) => {
          const signature = Signer.sign(wif, address, message) as string
          expect(verifyBip322(address, message, signature)).toEqual({ valid: true })
          expect(verifyBip322(address, `${message}.`, signature).valid).toBe(false)
        },
      ),
      { numRuns: 24 },
    )
  })

  it('accepts the "full" form built by @scure/btc-signer, and rejects it for another address', () => {
    const message = 'full form'
    const payment = btc.p2wpkh(pub)
    const toSpend = bip322ToSpend(bip322MessageHash(message), payment.script)
    const toSign = new btc.Transaction({ version: 0, allowUnknownOutputs: true })
    toSign.addInput({
      txid: sha256d(serializeWithoutWitness(toSpend)).reverse(),
      index: 0,
      sequence: 0,
      witnessUtxo: { script: payment.script, amount: 0n },
    })
    toSign.addOutput({ script: new Uint8Array([0x6a]), amount: 0n })
    toSign.sign(key)
    toSign.finalize()
    const full = `ful${base64.encode(toSign.toBytes(true, true))}`
    expect(verifyBip322(addresses.p2wpkh, message, full)).toEqual({ valid: true })
    expect(verifyBip322(addresses.p2wpkh, 'other', full).valid).toBe(false)
    expect(
      verifyBip322(btc.p2wpkh(secp256k1.getPublicKey(sha256(key), true)).address!, message, full).valid,
    ).toBe(false)
  })

  it('treats "ecdsa" on a taproot address as a preference: BIP-322 answers verify with the tagged messageHash', () => {
    const signature = hex.encode(base64.decode(Signer.sign(wif, addresses.p2tr, 'pref') as string))
    const request = { account: addresses.p2wpkh, address: addresses.p2tr, message: 'pref' }
    const answer = { address: addresses.p2tr, signature, messageHash: hex.encode(bip322MessageHash('pref')) }
    expect(verifySignMessage(request, answer)).toEqual({ valid: true })
    expect(
      verifySignMessage(request, { ...answer, messageHash: hex.encode(bitcoinMessageHash('pref')) }).valid,
    ).toBe(false)
  })
})

describe('signPsbt with legacy and nested segwit inputs', () => {
  const p2pkh = btc.p2pkh(pub)
  const nested = btc.p2sh(btc.p2wpkh(pub))
  function parent(script: Uint8Array, amount: bigint) {
    const tx = new btc.Transaction({ allowUnknownOutputs: true })
    tx.addOutput({ script, amount })
    tx.addInput({ txid: new Uint8Array(32).fill(7), index: 0, finalScriptSig: new Uint8Array([0x51]) })
    return { raw: tx.toBytes(true, false), id: tx.id }
  }
  it('checks the legacy and BIP-143 signatures, and the broadcast txid', () => {
    const a = parent(p2pkh.script, 30_000n)
    const b = parent(nested.script, 40_000n)
    const tx = new btc.Transaction()
    tx.addInput({ txid: a.id, index: 0, nonWitnessUtxo: a.raw })
    tx.addInput({ txid: b.id, index: 0, nonWitnessUtxo: b.raw, redeemScript: nested.redeemScript })
    tx.addOutputAddress(addresses.p2wpkh, 60_000n)
    const request = {
      account: addresses.p2wpkh,
      psbt: base64.encode(tx.toPSBT()),
      signInputs: [
        { address: p2pkh.address!, index: 0 },
        { address: nested.address!, index: 1 },
      ],
    }
    const signed = btc.Transaction.fromPSBT(tx.toPSBT())
    signed.sign(key)
    expect(verifySignPsbt(request, { psbt: base64.encode(signed.toPSBT()) })).toEqual({ valid: true })
    signed.finalize()
    const final = { psbt: base64.encode(signed.toPSBT()), txid: signed.id }
    expect(verifySignPsbt({ ...request, broadcast: true }, final)).toEqual({ valid: true })
    const swapped = { ...request, signInputs: [{ address: nested.address!, index: 0 }] }
    expect(verifySignPsbt(swapped, { psbt: base64.encode(signed.toPSBT()) }).valid).toBe(false)
  })
})
