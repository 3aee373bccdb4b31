import { ed25519 as noble } from '@noble/curves/ed25519.js'
import { randomBytes } from '@noble/hashes/utils.js'
import { base58 } from '@scure/base'
import { address, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit'
import { findAssociatedTokenPda } from '@solana-program/token'
import { describe, expect, it } from 'vitest'
import { associatedTokenAccount, isOnEd25519Curve } from '../../src/solana/associatedToken.js'
import { solanaConnectPayments } from '../../src/solana/connectPayments.js'
import { decodeBase64 } from '../../src/solana/encoding.js'
import { decodeTransaction } from '../../src/solana/transaction.js'
import { mintData, ours, paymentReads, someBlockhash, stranger } from './helpers.js'

const tokenProgram = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const token2022Program = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
const usdc = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'
const chainId = 'solana:localnet'

/** The message as @solana/kit decodes it (an independent decoder), which must be a legacy one. */
function kitMessage(bytes: Uint8Array) {
  const message = getCompiledTransactionMessageDecoder().decode(
    getTransactionDecoder().decode(bytes).messageBytes,
  )
  if (message.version !== 'legacy') throw new Error(`expected a legacy message, not ${message.version}`)
  return message
}

const nobleOnCurve = (bytes: Uint8Array) => {
  try {
    noble.Point.fromBytes(bytes)
    return true
  } catch {
    return false
  }
}

describe('isOnEd25519Curve (RFC 8032 decoding), against @noble/curves', () => {
  it('agrees on public keys, random bytes, and the non-canonical edge encodings', () => {
    const inputs = [
      ...Array.from({ length: 40 }, () => noble.getPublicKey(randomBytes(32))),
      ...Array.from({ length: 400 }, () => randomBytes(32)),
      new Uint8Array(32),
      Uint8Array.of(1, ...new Uint8Array(31)),
      // y = p (not canonical), y = p + 1, and the identity with the sign bit set (x = 0, negative).
      Uint8Array.of(0xed, ...new Uint8Array(30).fill(0xff), 0x7f),
      Uint8Array.of(0xee, ...new Uint8Array(30).fill(0xff), 0x7f),
      Uint8Array.of(1, ...new Uint8Array(30), 0x80),
    ]
    let onCurve = 0
    for (const bytes of inputs) {
      const expected = nobleOnCurve(bytes)
      if (expected) onCurve++
      expect([base58.encode(bytes), isOnEd25519Curve(bytes)]).toEqual([base58.encode(bytes), expected])
    }
    // Both outcomes were exercised: every public key, and about half of the random strings, are on the curve.
    expect(onCurve).toBeGreaterThan(40)
    expect(onCurve).toBeLessThan(inputs.length - 100)
  })
})

describe('associatedTokenAccount, against @solana-program/token', () => {
  it('derives the same address for SPL Token and Token-2022 mints', async () => {
    for (const owner of [ours(0), ours(1), stranger]) {
      for (const program of [tokenProgram, token2022Program]) {
        const [expected] = await findAssociatedTokenPda({
          owner,
          mint: address(usdc),
          tokenProgram: address(program),
        })
        const derived = associatedTokenAccount(
          base58.decode(owner),
          base58.decode(usdc),
          base58.decode(program),
        )
        expect(base58.encode(derived)).toBe(expected)
      }
    }
  })
})

describe('solanaConnectPayments', () => {
  const payments = solanaConnectPayments({
    providers: {
      [chainId]: paymentReads({
        [usdc]: { owner: tokenProgram, data: mintData(6) },
        [stranger]: { owner: '11111111111111111111111111111111', data: new Uint8Array() },
      }),
    },
  })
  const recipient = `${chainId}:${stranger}`

  it('describes SOL and a mint from the chain, and says why other options are unpayable', async () => {
    const describe = (asset: string, to = recipient, amount = 1n) =>
      payments.describe({ chainId, asset, recipient: to, amount })
    expect(await describe(`${chainId}/slip44:501`)).toEqual({ decimals: 9, symbol: 'SOL' })
    expect(await describe(`${chainId}/token:${usdc}`)).toEqual({ decimals: 6, symbol: undefined })
    expect(await describe(`${chainId}/token:${ours(1)}`)).toEqual({
      unpayable: `mint ${ours(1)} does not exist on the chain`,
    })
    expect(await describe(`${chainId}/token:${stranger}`)).toMatchObject({
      unpayable: expect.stringMatching(/is not a token mint/),
    })
    expect(await describe(`${chainId}/nft:${usdc}`)).toEqual({
      unpayable: 'asset type nft is not slip44:501 or token',
    })
    expect(await describe(`${chainId}/slip44:501`, recipient, 2n ** 64n)).toEqual({
      unpayable: 'the amount is more than a u64 holds (18446744073709551615 minor units)',
    })
    expect(await describe(`${chainId}/slip44:501`, `${chainId}:0xnotbase58`)).toEqual({
      unpayable: 'the recipient is not a base58 address',
    })
    expect(
      await payments.describe({
        chainId: 'solana:other',
        asset: 'solana:other/slip44:501',
        recipient,
        amount: 1n,
      }),
    ).toEqual({ unpayable: 'no provider for solana:other that can build a payment' })
  })

  it('builds an unsigned transferChecked into the recipient’s associated token account that @solana/kit decodes alike', async () => {
    const params = (await payments.request({
      chainId,
      asset: `${chainId}/token:${usdc}`,
      recipient,
      amount: 2_500_000n,
      payer: ours(0),
    })) as { transaction: string }
    const bytes = decodeBase64(params.transaction, 'transaction')
    const ourView = decodeTransaction(bytes, 'transaction')
    expect(ourView.signatures).toEqual([new Uint8Array(64)])
    expect(ourView.message.staticAddresses[0]).toBe(ours(0))
    const kit = kitMessage(bytes)
    expect(kit.lifetimeToken).toBe(someBlockhash)
    expect(kit.header).toEqual({
      numSignerAccounts: 1,
      numReadonlySignerAccounts: 0,
      // The recipient, the mint and the three programs.
      numReadonlyNonSignerAccounts: 5,
    })
    const keys = kit.staticAccounts
    const [destination] = await findAssociatedTokenPda({
      owner: stranger,
      mint: address(usdc),
      tokenProgram: address(tokenProgram),
    })
    const [source] = await findAssociatedTokenPda({
      owner: ours(0),
      mint: address(usdc),
      tokenProgram: address(tokenProgram),
    })
    const [create, transfer] = kit.instructions
    expect(keys[create!.programAddressIndex]).toBe('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')
    expect(create!.accountIndices!.map((index) => keys[index])).toEqual([
      ours(0),
      destination,
      stranger,
      usdc,
      '11111111111111111111111111111111',
      tokenProgram,
    ])
    expect(keys[transfer!.programAddressIndex]).toBe(tokenProgram)
    expect(transfer!.accountIndices!.map((index) => keys[index])).toEqual([
      source,
      usdc,
      destination,
      ours(0),
    ])
    // TransferChecked: 12, amount u64 LE, decimals.
    expect([...transfer!.data!]).toEqual([12, 0xa0, 0x25, 0x26, 0, 0, 0, 0, 0, 6])
    expect(payments.txid({ signature: 'abc' })).toBe('abc')
    expect(payments.txid('abc')).toBeUndefined()
  })

  it('refuses to build a transfer of more than a u64 holds, instead of signing the amount modulo 2^64', async () => {
    for (const asset of [`${chainId}/slip44:501`, `${chainId}/token:${usdc}`])
      await expect(
        payments.request({ chainId, asset, recipient, amount: 2n ** 64n + 5n, payer: ours(0) }),
      ).rejects.toThrow(/more than a u64/)
  })

  it('builds a System transfer for SOL', async () => {
    const params = (await payments.request({
      chainId,
      asset: `${chainId}/slip44:501`,
      recipient,
      amount: 10n ** 9n,
      payer: ours(0),
    })) as { transaction: string }
    const bytes = decodeBase64(params.transaction, 'transaction')
    const kit = kitMessage(bytes)
    expect(kit.staticAccounts).toEqual([ours(0), stranger, '11111111111111111111111111111111'])
    expect([...kit.instructions[0]!.data!]).toEqual([2, 0, 0, 0, 0, 0xca, 0x9a, 0x3b, 0, 0, 0, 0])
  })
})
