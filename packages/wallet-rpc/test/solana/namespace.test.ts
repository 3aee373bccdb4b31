import { ed25519 as noble } from '@noble/curves/ed25519.js'
import { base58, base64 } from '@scure/base'
import { address, createNoopSigner, getTransactionDecoder } from '@solana/kit'
import { getAdvanceNonceAccountInstruction, getTransferSolInstruction } from '@solana-program/system'
import { getApproveInstruction } from '@solana-program/token'
import { describe, expect, it } from 'vitest'
import { decodeTransaction } from '../../src/solana/index.js'
import { harness, kitTransaction, legacyKitTransaction, ours, stranger } from './helpers.js'

const decoder = getTransactionDecoder()

function errorOf(response: Record<string, unknown>) {
  return response.error as {
    code: number
    message: string
    data?: { path?: string; reason?: string; rule?: string }
  }
}

describe('solana_getAccounts / solana_requestAccounts', () => {
  it('answers [{ pubkey }] for every account, in order, with no review', async () => {
    const wallet = harness()
    const expected = [{ pubkey: ours(0) }, { pubkey: ours(1) }]
    expect(await wallet.result('solana_getAccounts', {})).toEqual(expected)
    expect(await wallet.result('solana_requestAccounts', {})).toEqual(expected)
    expect(wallet.reviews).toEqual([])
  })

  it('the session accounts are the base58 addresses', async () => {
    const sessionAccounts = await harness().wallet.accounts?.('solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp')
    expect(sessionAccounts ?? [ours(0), ours(1)]).toEqual([ours(0), ours(1)])
  })
})

describe('solana_signTransaction', () => {
  it('signs a v0 transaction compiled by @solana/kit: the signature verifies over its message bytes', async () => {
    const wallet = harness()
    const { base64: transaction, messageBytes } = kitTransaction({ feePayer: ours() })
    const result = await wallet.result<{ signature: string; transaction: string }>('solana_signTransaction', {
      transaction,
      pubkey: ours(),
    })
    const signature = base58.decode(result.signature)
    expect(noble.verify(signature, messageBytes, base58.decode(ours()))).toBe(true)
    const signed = decoder.decode(base64.decode(result.transaction))
    expect(new Uint8Array(signed.messageBytes)).toEqual(messageBytes)
    expect(new Uint8Array(signed.signatures[ours()]!)).toEqual(signature)
    const review = wallet.reviews[0]!
    expect(review.title).toBe('Sign transaction')
    expect(JSON.stringify(review.items)).toContain('Transfer SOL')
    expect(JSON.stringify(review.items)).toContain('0.0015 SOL (1500000 lamports)')
  })

  it('accepts AppKit legacy fields that match the bytes, and refuses ones that do not', async () => {
    const wallet = harness()
    const { base64: transaction } = legacyKitTransaction(ours())
    const decoded = decodeTransaction(base64.decode(transaction), 'transaction')
    const instructions = decoded.message.instructions.map((instruction) => ({
      programId: base58.encode(decoded.message.staticAccountKeys[instruction.programIdIndex]!),
      data: base58.encode(instruction.data),
      keys: instruction.accountIndexes.map((index) => ({
        pubkey: base58.encode(decoded.message.staticAccountKeys[index]!),
        isSigner: index === 0,
        isWritable: true,
      })),
    }))
    const legacy = {
      transaction,
      pubkey: ours(),
      feePayer: ours(),
      recentBlockhash: base58.encode(decoded.message.recentBlockhash),
      instructions,
    }
    expect(await wallet.result('solana_signTransaction', legacy)).toHaveProperty('signature')
    const forged = structuredClone(legacy)
    forged.instructions[0]!.keys[1]!.pubkey = ours(1)
    const refused = errorOf(await wallet.call('solana_signTransaction', forged))
    expect(refused.code).toBe(-32602)
    expect(refused.data?.path).toBe('instructions.0.keys.1.pubkey')
    const payer = errorOf(await wallet.call('solana_signTransaction', { ...legacy, feePayer: ours(1) }))
    expect(payer.data?.path).toBe('feePayer')
    expect(wallet.reviews).toHaveLength(1)
  })

  it('partial signing: a sponsor pays the fee, its signature is kept and only our slot is filled', async () => {
    const wallet = harness()
    const { base64: transaction, messageBytes } = kitTransaction({
      feePayer: stranger,
      instructions: [
        getTransferSolInstruction({ source: createNoopSigner(ours()), destination: stranger, amount: 5n }),
      ],
    })
    const bytes = base64.decode(transaction)
    const sponsorSignature = new Uint8Array(64).fill(7)
    bytes.set(sponsorSignature, 1) // slot 0, after the one-byte count
    const result = await wallet.result<{ transaction: string; signature: string }>('solana_signTransaction', {
      transaction: base64.encode(bytes),
    })
    const signed = decoder.decode(base64.decode(result.transaction))
    expect(new Uint8Array(signed.signatures[stranger]!)).toEqual(sponsorSignature)
    expect(noble.verify(base58.decode(result.signature), messageBytes, base58.decode(ours()))).toBe(true)
    expect(JSON.stringify(wallet.reviews[0]!.items)).toContain('someone else pays the fee')
  })

  it('answers exactly the request bytes with our slot filled, in base64 (1, 2 and 3 signer slots)', async () => {
    // 1 + 64·n bytes of count and slots: each n leaves the message at another offset modulo 3 in base64.
    const others = [address('BPFLoaderUpgradeab1e11111111111111111111111'), stranger]
    for (let cosigners = 0; cosigners <= 2; cosigners++) {
      const wallet = harness()
      const instructions = [
        getTransferSolInstruction({ source: createNoopSigner(ours()), destination: stranger, amount: 5n }),
        ...others
          .slice(0, cosigners)
          .map((other) =>
            getTransferSolInstruction({ source: createNoopSigner(other), destination: ours(), amount: 1n }),
          ),
      ]
      const { base64: transaction, messageBytes } = kitTransaction({ feePayer: ours(), instructions })
      const bytes = base64.decode(transaction)
      const result = await wallet.result<{ transaction: string; signature: string }>(
        'solana_signTransaction',
        { transaction },
      )
      expect(bytes[0]).toBe(cosigners + 1)
      bytes.set(base58.decode(result.signature), 1)
      expect(result.transaction).toBe(base64.encode(bytes))
      expect(noble.verify(base58.decode(result.signature), messageBytes, base58.decode(ours()))).toBe(true)
    }
  })

  it('refuses a transaction none of our keys must sign (4100), and a pubkey that is not a signer', async () => {
    const wallet = harness()
    const { base64: transaction } = kitTransaction({ feePayer: stranger })
    expect(errorOf(await wallet.call('solana_signTransaction', { transaction })).code).toBe(4100)
    const { base64: ownTransaction } = kitTransaction({ feePayer: ours(0) })
    const notSigner = errorOf(
      await wallet.call('solana_signTransaction', { transaction: ownTransaction, pubkey: ours(1) }),
    )
    expect(notSigner.code).toBe(-32602)
    expect(notSigner.data?.rule).toBe('solana.not_a_signer')
    expect(wallet.reviews).toEqual([])
  })

  it('a base58 transaction is accepted and answered in base58', async () => {
    const wallet = harness()
    const { base64: transaction, messageBytes } = kitTransaction({ feePayer: ours() })
    const result = await wallet.result<{ transaction: string }>('solana_signTransaction', {
      transaction: base58.encode(base64.decode(transaction)),
    })
    const signed = decoder.decode(base58.decode(result.transaction))
    expect(new Uint8Array(signed.messageBytes)).toEqual(messageBytes)
  })

  it('rejected by the user: 5000 and no signature', async () => {
    const wallet = harness({}, { approve: () => false })
    const { base64: transaction } = kitTransaction({ feePayer: ours() })
    const response = await wallet.call('solana_signTransaction', { transaction })
    expect(errorOf(response).code).toBe(5000)
    expect(response).not.toHaveProperty('result')
  })

  it('reviews: token approve and unknown programs carry cautions; a durable nonce is flagged', async () => {
    const wallet = harness()
    const nonceAccount = address('SysvarRent111111111111111111111111111111111')
    const { base64: transaction } = kitTransaction({
      feePayer: ours(),
      instructions: [
        getAdvanceNonceAccountInstruction({ nonceAccount, nonceAuthority: createNoopSigner(ours()) }),
        getApproveInstruction({
          source: stranger,
          delegate: stranger,
          owner: createNoopSigner(ours()),
          amount: 42n,
        }),
        {
          programAddress: address('Stake11111111111111111111111111111111111111'),
          data: new Uint8Array([1, 2]),
        },
      ],
    })
    await wallet.result('solana_signTransaction', { transaction })
    const codes = wallet.reviews[0]!.warnings.map((warning) => warning.code)
    expect(codes).toEqual(['solana.token.approve', 'solana.unknown_program', 'solana.durable_nonce'])
    expect(JSON.stringify(wallet.reviews[0]!.items)).toContain('Durable nonce')
  })
})

describe('solana_signMessage', () => {
  it('signs the base58 message bytes; the signature verifies', async () => {
    const wallet = harness()
    const message = new TextEncoder().encode('Sign in to example.com')
    const result = await wallet.result<{ signature: string }>('solana_signMessage', {
      message: base58.encode(message),
      pubkey: ours(1),
    })
    expect(noble.verify(base58.decode(result.signature), message, base58.decode(ours(1)))).toBe(true)
    expect(wallet.reviews[0]!.items).toEqual([{ label: 'Message', value: 'Sign in to example.com' }])
  })

  it('refuses a 0xff-prefixed message, a serialized transaction and a transaction message', async () => {
    const wallet = harness()
    const { base64: transaction, messageBytes } = kitTransaction({ feePayer: ours() })
    const cases: Array<[Uint8Array, string]> = [
      [
        new Uint8Array([0xff, ...new TextEncoder().encode('solana offchain')]),
        'solana.sign_message.offchain_prefix',
      ],
      [base64.decode(transaction), 'solana.sign_message.transaction'],
      [messageBytes, 'solana.sign_message.transaction'],
    ]
    for (const [message, rule] of cases) {
      const error = errorOf(
        await wallet.call('solana_signMessage', { message: base58.encode(message), pubkey: ours() }),
      )
      expect(error.code).toBe(-32602)
      expect(error.data?.rule).toBe(rule)
    }
    expect(wallet.reviews).toEqual([])
  })

  it('4100 for a pubkey that is not ours', async () => {
    const error = errorOf(
      await harness().call('solana_signMessage', { message: '2NEpo7TZRRrLZSi2U', pubkey: stranger }),
    )
    expect(error.code).toBe(4100)
  })
})

describe('solana_signAllTransactions', () => {
  it('signs each transaction in order under one approval', async () => {
    const wallet = harness()
    const first = kitTransaction({ feePayer: ours(0) })
    const second = kitTransaction({ feePayer: ours(1) })
    const result = await wallet.result<{ transactions: string[] }>('solana_signAllTransactions', {
      transactions: [first.base64, second.base64],
    })
    expect(result.transactions).toHaveLength(2)
    for (const [index, one] of [first, second].entries()) {
      const signed = decoder.decode(base64.decode(result.transactions[index]!))
      const signer = ours(index)
      expect(
        noble.verify(new Uint8Array(signed.signatures[signer]!), one.messageBytes, base58.decode(signer)),
      ).toBe(true)
    }
    expect(wallet.reviews).toHaveLength(1)
  })

  it('refuses more transactions than the policy allows, and a bad entry by its index', async () => {
    const wallet = harness({ policy: { maxTransactions: 2 } })
    const one = kitTransaction({ feePayer: ours() }).base64
    const tooMany = errorOf(
      await wallet.call('solana_signAllTransactions', { transactions: [one, one, one] }),
    )
    expect(tooMany.data?.rule).toBe('solana.too_many_transactions')
    const bad = errorOf(
      await wallet.call('solana_signAllTransactions', { transactions: [one, one.slice(0, 40)] }),
    )
    expect(bad.code).toBe(-32602)
    expect(bad.data?.path).toMatch(/^transactions\.1/)
    expect(wallet.reviews).toEqual([])
  })
})

describe('solana_signAndSendTransaction', () => {
  it('answers 5101 on a chain without a provider', async () => {
    const { base64: transaction } = kitTransaction({ feePayer: ours() })
    const error = errorOf(await harness().call('solana_signAndSendTransaction', { transaction }))
    expect(error.code).toBe(5101)
  })
})
