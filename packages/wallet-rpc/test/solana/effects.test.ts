import { type Address, address, createNoopSigner, type Instruction } from '@solana/kit'
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system'
import {
  findAssociatedTokenPda,
  getApproveCheckedInstruction,
  getApproveInstruction,
  getCloseAccountInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  getTransferInstruction,
} from '@solana-program/token'
import { describe, expect, it } from 'vitest'
import type { ExpectedPayment } from '../../src/core/expectation.js'
import { transactionEffects } from '../../src/solana/effects.js'
import { decodeBase64 } from '../../src/solana/encoding.js'
import type { PreparedTransaction } from '../../src/solana/request.js'
import { decodeTransaction } from '../../src/solana/transaction.js'
import { harness, kitTransaction, legacyKitTransaction, ours, stranger } from './helpers.js'

/**
 * What a Solana transaction moves, decoded from its exact message (src/solana/effects.ts), the instructions built
 * by @solana/kit and @solana-program/{system,token} (independent of our encoder), and the router's comparison with
 * a described payment through the real namespace.
 */

const chainId = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
const mint = address('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')
const tokenProgram = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')

const effectsOf = (instructions: Instruction[], version: 'legacy' | 0 = 0) => {
  const base64 =
    version === 'legacy'
      ? legacyKitTransaction(ours(), instructions).base64
      : kitTransaction({ feePayer: ours(), instructions }).base64
  const transaction = decodeTransaction(decodeBase64(base64, 'transaction'), 'transaction')
  return transactionEffects(chainId, { transaction } as PreparedTransaction)
}

const ata = async (owner: string) =>
  (await findAssociatedTokenPda({ owner: address(owner), mint, tokenProgram }))[0]

/** The payee's associated account created (idempotently), then `TransferChecked` of `amount` into it. */
async function payment(amount: bigint, payee: Address = stranger) {
  const destination = await ata(payee)
  return [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: createNoopSigner(ours()),
      ata: destination,
      owner: payee,
      mint,
    }),
    getTransferCheckedInstruction({
      source: await ata(ours()),
      mint,
      destination,
      authority: createNoopSigner(ours()),
      amount,
      decimals: 6,
    }),
  ]
}

describe('solana transactionEffects', () => {
  it('a SOL transfer, and SOL sent to a new account', () => {
    expect(
      effectsOf([
        getTransferSolInstruction({ source: createNoopSigner(ours()), destination: stranger, amount: 5n }),
      ]),
    ).toEqual([
      {
        chainId,
        account: ours(),
        asset: 'native',
        amount: 5n,
        recipient: stranger,
        kind: 'transfer',
        form: 'SOL transfer',
      },
    ])
    const created = effectsOf([
      getCreateAccountInstruction({
        payer: createNoopSigner(ours()),
        newAccount: createNoopSigner(ours(1)),
        lamports: 9n,
        space: 0,
        programAddress: tokenProgram,
      }),
    ])
    expect(created).toEqual([
      expect.objectContaining({ amount: 9n, recipient: ours(1), form: 'SOL to a new account' }),
    ])
  })

  it('an SPL transferChecked into an associated account the transaction creates: the owner is named', async () => {
    const effects = effectsOf(await payment(2_500_000n))
    expect(effects).toEqual([
      {
        chainId,
        account: ours(),
        asset: mint,
        amount: 2_500_000n,
        recipient: await ata(stranger),
        recipientOwner: stranger,
        kind: 'transfer',
        form: 'SPL transferChecked',
      },
    ])
  })

  it('a plain SPL transfer is decoded only into an account the transaction creates (its mint is known then)', async () => {
    const [create] = await payment(1n)
    const plain = getTransferInstruction({
      source: await ata(ours()),
      destination: await ata(stranger),
      authority: createNoopSigner(ours()),
      amount: 3n,
    })
    expect(effectsOf([create!, plain], 'legacy')).toEqual([
      expect.objectContaining({ asset: mint, amount: 3n, recipientOwner: stranger, form: 'SPL transfer' }),
    ])
    expect(effectsOf([plain])).toBeUndefined()
  })

  it('an account the creation names but that is not the owner’s associated account names no owner', async () => {
    const [, transfer] = await payment(1n)
    const forged = getCreateAssociatedTokenIdempotentInstruction({
      payer: createNoopSigner(ours()),
      ata: await ata(stranger),
      owner: ours(1),
      mint,
    })
    const [effect] = effectsOf([forged, transfer!])!
    expect(effect).not.toHaveProperty('recipientOwner')
  })

  it('approveChecked is an allowance; approve without a mint, closing an account, or an unknown program is not decoded', async () => {
    expect(
      effectsOf([
        getApproveCheckedInstruction({
          source: await ata(ours()),
          mint,
          delegate: stranger,
          owner: createNoopSigner(ours()),
          amount: 4n,
          decimals: 6,
        }),
      ]),
    ).toEqual([expect.objectContaining({ kind: 'allowance', recipient: stranger, amount: 4n, asset: mint })])
    const source = await ata(ours())
    expect(
      effectsOf([
        getApproveInstruction({ source, delegate: stranger, owner: createNoopSigner(ours()), amount: 4n }),
      ]),
    ).toBeUndefined()
    expect(
      effectsOf([
        getCloseAccountInstruction({
          account: source,
          destination: stranger,
          owner: createNoopSigner(ours()),
        }),
      ]),
    ).toBeUndefined()
    expect(
      effectsOf([
        { programAddress: address('Stake11111111111111111111111111111111111111'), data: new Uint8Array([2]) },
      ]),
    ).toBeUndefined()
  })
})

describe('through the solana namespace: the router compares the transaction with the described payment', () => {
  const described = (amount: string): ExpectedPayment => ({
    source: 'The dapp’s walletPay',
    chainId,
    account: `${chainId}:${ours()}`,
    asset: `${chainId}/token:${mint}`,
    amount,
    recipient: `${chainId}:${stranger}`,
    decimals: 6,
    symbol: 'USDC',
  })
  const sign = async (instructions: Instruction[], amount: string) => {
    const { wallet } = harness()
    const { base64: transaction } = kitTransaction({ feePayer: ours(), instructions })
    return wallet.handle({
      chainId,
      request: { id: 1, jsonrpc: '2.0', method: 'solana_signTransaction', params: { transaction } },
      expected: described(amount),
    })
  }

  it('signs the payment it shows; refuses more, or another payee', async () => {
    expect(await sign(await payment(2_500_000n), '2500000')).toMatchObject({
      result: { signature: expect.any(String) },
    })
    expect(await sign(await payment(2_500_000_000n), '2500000')).toMatchObject({
      error: {
        data: {
          rule: 'pay.amount_mismatch',
          reason: `The dapp’s walletPay shows 2.5 USDC; this request transfers 2500 USDC to ${await ata(stranger)} (owned by ${stranger}) (SPL transferChecked).`,
        },
      },
    })
    expect(await sign(await payment(2_500_000n, ours(1)), '2500000')).toMatchObject({
      error: { data: { rule: 'pay.recipient_mismatch' } },
    })
  })
})
