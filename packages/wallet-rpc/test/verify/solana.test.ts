import { ed25519 as noble } from '@noble/curves/ed25519.js'
import { base58, base64 } from '@scure/base'
import { createNoopSigner } from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  verifySolanaSignAllTransactions,
  verifySolanaSignAndSendTransaction,
  verifySolanaSignMessage,
  verifySolanaSignTransaction,
} from '../../src/verify/index.js'
import { harness, kitTransaction, ours, stranger } from '../solana/helpers.js'

describe('verifySolanaSignMessage', () => {
  it('accepts the wallet answer and refuses another key, another message, junk', async () => {
    const wallet = harness()
    const params = { message: base58.encode(new TextEncoder().encode('hello')), pubkey: ours() }
    const result = await wallet.result<{ signature: string }>('solana_signMessage', params)
    expect(verifySolanaSignMessage(params, result)).toEqual({ valid: true })
    expect(verifySolanaSignMessage({ ...params, pubkey: ours(1) }, result).valid).toBe(false)
    expect(
      verifySolanaSignMessage({ ...params, message: base58.encode(new Uint8Array([1])) }, result).valid,
    ).toBe(false)
    expect(verifySolanaSignMessage(params, { signature: 'xyz0' }).valid).toBe(false)
    expect(verifySolanaSignMessage(null, null).valid).toBe(false)
  })
})

describe('verifySolanaSignTransaction', () => {
  it('accepts the wallet answer (signature and transaction), and a partial signature next to a sponsor', async () => {
    const wallet = harness()
    const params = { transaction: kitTransaction({ feePayer: ours() }).base64, pubkey: ours() }
    const result = await wallet.result<{ signature: string; transaction: string }>(
      'solana_signTransaction',
      params,
    )
    expect(verifySolanaSignTransaction(params, result)).toEqual({ valid: true })
    expect(verifySolanaSignTransaction(params, { signature: result.signature })).toEqual({ valid: true })
    expect(verifySolanaSignTransaction(params, { transaction: result.transaction })).toEqual({ valid: true })

    const sponsored = kitTransaction({
      feePayer: stranger,
      instructions: [
        getTransferSolInstruction({ source: createNoopSigner(ours()), destination: stranger, amount: 1n }),
      ],
    })
    const bytes = base64.decode(sponsored.base64)
    bytes.fill(9, 1, 65)
    const sponsoredParams = { transaction: base64.encode(bytes) }
    const partial = await wallet.result('solana_signTransaction', sponsoredParams)
    expect(verifySolanaSignTransaction(sponsoredParams, partial)).toEqual({ valid: true })
  })

  it('refuses a changed message, a changed pre-existing signature, a flipped bit and a signature by another key', async () => {
    const wallet = harness()
    const params = { transaction: kitTransaction({ feePayer: ours() }).base64 }
    const result = await wallet.result<{ signature: string; transaction: string }>(
      'solana_signTransaction',
      params,
    )
    const signed = base64.decode(result.transaction)
    const flipped = Uint8Array.from(signed)
    flipped[5]! ^= 1
    expect(verifySolanaSignTransaction(params, { transaction: base64.encode(flipped) }).valid).toBe(false)
    const otherMessage = Uint8Array.from(signed)
    otherMessage[otherMessage.length - 1]! ^= 1
    expect(verifySolanaSignTransaction(params, { transaction: base64.encode(otherMessage) }).valid).toBe(
      false,
    )
    const foreign = noble.sign(base64.decode(params.transaction).subarray(65), noble.utils.randomSecretKey())
    expect(verifySolanaSignTransaction(params, { signature: base58.encode(foreign) }).valid).toBe(false)
    expect(verifySolanaSignTransaction({ ...params, pubkey: ours(1) }, result).valid).toBe(false)
    expect(verifySolanaSignTransaction(params, {}).valid).toBe(false)
  })

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (params, result) => {
        for (const verify of [
          verifySolanaSignTransaction,
          verifySolanaSignMessage,
          verifySolanaSignAllTransactions,
          verifySolanaSignAndSendTransaction,
        ]) {
          expect(typeof verify(params, result).valid).toBe('boolean')
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('verifySolanaSignAllTransactions / verifySolanaSignAndSendTransaction', () => {
  it('checks every transaction, and the transaction id against the fee payer', async () => {
    const wallet = harness()
    const params = {
      transactions: [
        kitTransaction({ feePayer: ours(0) }).base64,
        kitTransaction({ feePayer: ours(1) }).base64,
      ],
    }
    const result = await wallet.result<{ transactions: string[] }>('solana_signAllTransactions', params)
    expect(verifySolanaSignAllTransactions(params, result)).toEqual({ valid: true })
    expect(
      verifySolanaSignAllTransactions(params, { transactions: [...result.transactions].reverse() }).valid,
    ).toBe(false)
    const signed = base64.decode(result.transactions[0]!)
    const id = base58.encode(signed.subarray(1, 65))
    expect(
      verifySolanaSignAndSendTransaction({ transaction: params.transactions[0] }, { signature: id }),
    ).toEqual({
      valid: true,
    })
    expect(
      verifySolanaSignAndSendTransaction({ transaction: params.transactions[1] }, { signature: id }).valid,
    ).toBe(false)
  })
})
