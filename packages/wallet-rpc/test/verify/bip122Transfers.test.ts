import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { hex } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { describe, expect, it } from 'vitest'
import { verifyGetAccountAddresses, verifySendTransfer } from '../../src/verify/index.js'

const key = sha256(new TextEncoder().encode('transfer key'))
const pub = secp256k1.getPublicKey(key, true)
const from = btc.p2wpkh(pub)
const change = btc.p2tr(pub.slice(1))
const recipient = 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g'
const memo = '636861726c6579206c6f766573206865'

function transfer(options: { memo?: string; amount?: bigint; extraTo?: string } = {}) {
  const tx = new btc.Transaction({ allowUnknownOutputs: true })
  tx.addInput({
    txid: hex.decode('11'.repeat(32)),
    index: 0,
    witnessUtxo: { script: from.script, amount: 100_000n },
  })
  tx.addOutputAddress(recipient, options.amount ?? 20_000n)
  if (options.memo !== undefined)
    tx.addOutput({ script: btc.Script.encode(['RETURN', hex.decode(options.memo)]), amount: 0n })
  tx.addOutputAddress(options.extraTo ?? change.address!, 79_000n)
  tx.sign(key)
  tx.finalize()
  return { rawTransaction: tx.hex, txid: tx.id }
}

const params = { account: from.address!, recipientAddress: recipient, amount: '20000', memo }
const prevouts = [{ script: hex.encode(from.script), amount: '100000' }]
const accountAddresses = [from.address!, change.address!]

describe('verifySendTransfer', () => {
  it('accepts a transfer paying the amount with the memo, change in the account, inputs signed', () => {
    const { rawTransaction, txid } = transfer({ memo })
    expect(verifySendTransfer(params, { txid }, { rawTransaction, prevouts, accountAddresses })).toEqual({
      valid: true,
    })
  })
  it('refuses a wrong amount, a missing memo, an unrequested memo and a txid mismatch', () => {
    const wrongAmount = transfer({ memo, amount: 19_999n })
    expect(verifySendTransfer(params, { txid: wrongAmount.txid }, wrongAmount).valid).toBe(false)
    const noMemo = transfer()
    expect(verifySendTransfer(params, { txid: noMemo.txid }, noMemo)).toEqual({
      valid: false,
      reason: 'expected one OP_RETURN output, found 0',
    })
    const { memo: _, ...withoutMemo } = params
    const extraMemo = transfer({ memo })
    expect(verifySendTransfer(withoutMemo, { txid: extraMemo.txid }, extraMemo).valid).toBe(false)
    expect(verifySendTransfer(params, { txid: '00'.repeat(32) }, extraMemo).valid).toBe(false)
  })
  it('reads an amount sent as a safe-integer number like its decimal string, and refuses any other number', () => {
    const { rawTransaction, txid } = transfer({ memo })
    expect(verifySendTransfer({ ...params, amount: 20_000 }, { txid }, { rawTransaction })).toEqual({
      valid: true,
    })
    expect(verifySendTransfer({ ...params, amount: 19_999 }, { txid }, { rawTransaction }).valid).toBe(false)
    for (const amount of [20_000.5, -20_000, 2 ** 53, 0]) {
      expect(verifySendTransfer({ ...params, amount }, { txid }, { rawTransaction })).toEqual({
        valid: false,
        reason: 'request amount is invalid',
      })
    }
  })
  it('refuses change sent outside the account and a tampered input signature', () => {
    const leak = transfer({ memo, extraTo: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' })
    expect(verifySendTransfer(params, { txid: leak.txid }, { ...leak, accountAddresses }).valid).toBe(false)
    const good = transfer({ memo })
    const tx = btc.Transaction.fromRaw(hex.decode(good.rawTransaction), { allowUnknownOutputs: true })
    const witness = tx.getInput(0).finalScriptWitness!
    const sig = witness[0]!.slice()
    sig[12] = sig[12]! ^ 1
    const tampered = good.rawTransaction.replace(hex.encode(witness[0]!), hex.encode(sig))
    const verdict = verifySendTransfer(params, { txid: good.txid }, { rawTransaction: tampered, prevouts })
    expect(verdict.valid).toBe(false)
  })
})

// WalletConnect docs example (bitcoin.mdx), addresses re-derived from abandon…about (research/bitcoin.md §4.3).
const account = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'
const docExample = [
  {
    address: account,
    path: "m/84'/0'/0'/0/0",
    publicKey: '0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c',
    intention: 'payment',
  },
  {
    address: 'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
    path: "m/84'/0'/0'/0/1",
    publicKey: '03e775fd51f0dfb8cd865d9ff1cca2a158cf651fe997fdc9fee9c1d3b5e995ea77',
    intention: 'payment',
  },
  {
    address: 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
    path: "m/86'/0'/0'/0/0",
    publicKey: 'cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115',
    intention: 'ordinal',
  },
]

describe('verifyGetAccountAddresses', () => {
  it('accepts keys and paths that derive the addresses (taproot via the BIP-86 tweak)', () => {
    expect(verifyGetAccountAddresses({ account }, docExample, { network: 'mainnet' })).toEqual({
      valid: true,
    })
    expect(verifyGetAccountAddresses({ account }, JSON.stringify(docExample))).toEqual({ valid: true })
  })
  it('refuses a wrong key, a wrong purpose, a missing account, duplicates and filtered intentions', () => {
    const wrongKey = docExample.map((e, i) => (i === 1 ? { ...e, publicKey: docExample[0]!.publicKey } : e))
    expect(verifyGetAccountAddresses({ account }, wrongKey).valid).toBe(false)
    const wrongPath = docExample.map((e, i) => (i === 2 ? { ...e, path: "m/84'/0'/0'/0/0" } : e))
    expect(verifyGetAccountAddresses({ account }, wrongPath).valid).toBe(false)
    expect(verifyGetAccountAddresses({ account }, docExample.slice(1)).valid).toBe(false)
    expect(verifyGetAccountAddresses({ account }, [...docExample, docExample[0]]).valid).toBe(false)
    expect(verifyGetAccountAddresses({ account, intentions: ['payment'] }, docExample).valid).toBe(false)
    expect(verifyGetAccountAddresses({ account }, docExample, { network: 'testnet' }).valid).toBe(false)
    expect(verifyGetAccountAddresses({ account }, 'not json').valid).toBe(false)
  })
  it('judges an entry without `intention` by its path purpose, else its address type', () => {
    const bare = docExample.map(({ intention: _, ...entry }) => entry)
    const ordinal = { account, intentions: ['ordinal'] }
    expect(verifyGetAccountAddresses(ordinal, bare.slice(2))).toEqual({ valid: true })
    expect(verifyGetAccountAddresses(ordinal, bare.slice(0, 1))).toEqual({
      valid: false,
      reason: `${account}: intention payment (inferred from its type and path) was filtered out by the request`,
    })
    const noPath = bare.map(({ path: _, ...entry }) => entry)
    expect(verifyGetAccountAddresses({ account, intentions: ['payment'] }, noPath).valid).toBe(false)
    expect(verifyGetAccountAddresses({ account, intentions: ['payment'] }, noPath.slice(0, 2))).toEqual({
      valid: true,
    })
  })
  it('checks the gap-limit and funded-address rules when the dapp knows the history', () => {
    expect(
      verifyGetAccountAddresses({ account }, docExample, { fundedAddresses: [docExample[2]!.address] }),
    ).toEqual({
      valid: true,
    })
    const unlisted = 'bc1qp59yckz4ae5c4efgw2s5wfyvrz0ala7rgvuz8z'
    expect(verifyGetAccountAddresses({ account }, docExample, { fundedAddresses: [unlisted] })).toEqual({
      valid: false,
      reason: `${unlisted} holds coins but is not listed`,
    })
    expect(verifyGetAccountAddresses({ account }, docExample, { usedAddresses: [] })).toEqual({ valid: true })
    const many = [
      { address: account },
      ...Array.from({ length: 19 }, (_, i) => ({
        address: btc.p2wpkh(secp256k1.getPublicKey(sha256(Uint8Array.of(i)), true)).address!,
      })),
    ]
    expect(verifyGetAccountAddresses({ account }, many, { usedAddresses: [] })).toEqual({
      valid: false,
      reason: '20 unused addresses listed; the spec allows fewer than 20',
    })
    expect(verifyGetAccountAddresses({ account }, many, { usedAddresses: [account] }).valid).toBe(true)
  })
})
