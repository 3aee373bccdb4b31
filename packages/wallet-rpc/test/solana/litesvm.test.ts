import { ed25519 as noble } from '@noble/curves/ed25519.js'
import { base58, base64 } from '@scure/base'
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { getAdvanceNonceAccountInstruction, getTransferSolInstruction } from '@solana-program/system'
import { getTransferCheckedInstruction } from '@solana-program/token'
import { type SolanaLocalChain, startSolanaLocal } from '@wallet-rpc/devchains/solanaLocal'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { memoryStorage } from '../../src/core/journal.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { type SolanaChainProvider, solana, solanaLocalnet, solanaRpc } from '../../src/solana/index.js'
import { harness, keys, kitTransaction, ours, stranger } from './helpers.js'

const tokenProgram = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
const fixedAddress = (fill: number) => address(base58.encode(new Uint8Array(32).fill(fill)))
const mint = fixedAddress(0x11)
const ourTokenAccount = fixedAddress(0x22)
const theirTokenAccount = fixedAddress(0x33)

let chain: SolanaLocalChain

function u64(value: bigint): Uint8Array {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, value, true)
  return out
}

/** SPL Token account layout (165 bytes): mint, owner, amount, no delegate, initialized. */
function tokenAccountData(owner: Address, amount: bigint): Uint8Array {
  const data = new Uint8Array(165)
  data.set(base58.decode(mint), 0)
  data.set(base58.decode(owner), 32)
  data.set(u64(amount), 64)
  data[108] = 1
  return data
}

function tokenAmount(account: Address): bigint {
  const found = chain.svm.getAccount(account)
  if (!found.exists) throw new Error('no token account')
  return new DataView(found.data.buffer, found.data.byteOffset).getBigUint64(64, true)
}

beforeAll(async () => {
  chain = await startSolanaLocal()
  chain.svm.airdrop(ours(0), lamports(10_000_000_000n))
  const rent = chain.svm.minimumBalanceForRentExemption(165n)
  // Mint (82 bytes): no mint authority, supply, 6 decimals, initialized.
  const mintData = new Uint8Array(82)
  mintData.set(u64(1_000_000_000n), 36)
  mintData[44] = 6
  mintData[45] = 1
  chain.svm.setAccount({
    address: mint,
    data: mintData,
    executable: false,
    lamports: lamports(rent),
    programAddress: tokenProgram,
    space: 82n,
  })
  for (const [account, owner, amount] of [
    [ourTokenAccount, ours(0), 50_000_000n],
    [theirTokenAccount, stranger, 0n],
  ] as const) {
    chain.svm.setAccount({
      address: account,
      data: tokenAccountData(owner, amount),
      executable: false,
      lamports: lamports(rent),
      programAddress: tokenProgram,
      space: 165n,
    })
  }
})

afterAll(() => chain?.stop())

const localWallet = (settings: Parameters<typeof harness>[1] = {}) =>
  harness(
    { chains: [solanaLocalnet], providers: { [solanaLocalnet]: solanaRpc(chain.url) } },
    { chainId: solanaLocalnet, ...settings },
  )

const latest = () => blockhash(chain.svm.latestBlockhash())

describe('solana on litesvm (through the JSON-RPC facade)', () => {
  it('signAndSendTransaction: a SOL transfer lands, moves the balances, and answers the transaction id', async () => {
    const wallet = localWallet()
    const before = chain.svm.getBalance(stranger) ?? 0n
    const { base64: transaction, messageBytes } = kitTransaction({ feePayer: ours(), blockhash: latest() })
    const { signature } = await wallet.result<{ signature: string }>('solana_signAndSendTransaction', {
      transaction,
    })
    expect(noble.verify(base58.decode(signature), messageBytes, base58.decode(ours()))).toBe(true)
    expect(chain.svm.getBalance(stranger)).toBe(before + 1_500_000n)
    const review = JSON.stringify(wallet.reviews[0]!.items)
    expect(review).toContain('Simulated balance changes')
    expect(review).toContain(`${ours()} (you) SOL`)
    expect(review).toContain('-0.001505 SOL (1505000 lamports)') // amount + 5000 lamports fee
  })

  it('an SPL token transferChecked signed by the wallet lands and moves the token balances', async () => {
    const wallet = localWallet()
    const { base64: transaction } = kitTransaction({
      feePayer: ours(),
      blockhash: latest(),
      instructions: [
        getTransferCheckedInstruction({
          source: ourTokenAccount,
          mint,
          destination: theirTokenAccount,
          authority: createNoopSigner(ours()),
          amount: 12_500_000n,
          decimals: 6,
        }),
      ],
    })
    await wallet.result('solana_signAndSendTransaction', { transaction })
    expect(tokenAmount(ourTokenAccount)).toBe(37_500_000n)
    expect(tokenAmount(theirTokenAccount)).toBe(12_500_000n)
    const review = JSON.stringify(wallet.reviews[0]!.items)
    expect(review).toContain('12.5 (12500000 base units, 6 decimals)')
    expect(review).toContain(`token ${mint} in ${ourTokenAccount}`)
    expect(review).toContain('-12.5')
  })

  it('the runtime rejects a flipped signature bit, a missing signature and a foreign fee payer without its signature', async () => {
    const wallet = localWallet()
    const provider = solanaRpc(chain.url)
    const { base64: transaction } = kitTransaction({
      feePayer: ours(),
      blockhash: latest(),
      instructions: [
        getTransferSolInstruction({ source: createNoopSigner(ours()), destination: stranger, amount: 7n }),
      ],
    })
    const signed = base64.decode(
      (await wallet.result<{ transaction: string }>('solana_signTransaction', { transaction })).transaction,
    )
    const flipped = Uint8Array.from(signed)
    flipped[10]! ^= 0x01
    await expect(provider.send(flipped, {})).rejects.toThrow(/Signature|signature/)
    const missing = base64.decode(transaction) // our slot still zero
    await expect(provider.send(missing, {})).rejects.toThrow(/Signature|signature/)
    const sponsored = kitTransaction({
      feePayer: stranger,
      blockhash: latest(),
      instructions: [
        getTransferSolInstruction({ source: createNoopSigner(ours()), destination: stranger, amount: 1n }),
      ],
    })
    const partly = base64.decode(
      (
        await wallet.result<{ transaction: string }>('solana_signTransaction', {
          transaction: sponsored.base64,
        })
      ).transaction,
    )
    await expect(provider.send(partly, {})).rejects.toThrow(/Signature|signature/)
    // The untampered one lands.
    expect(await provider.send(signed, {})).toBe(base58.encode(signed.subarray(1, 65)))
  })

  it('refuses an expired blockhash before review, and signAndSend of a transaction missing a co-signer', async () => {
    const wallet = localWallet()
    const { base64: stale } = kitTransaction({ feePayer: ours(), blockhash: latest() })
    chain.svm.expireBlockhash()
    const expired = await wallet.call('solana_signTransaction', { transaction: stale })
    expect(expired.error).toMatchObject({ code: -32602, data: { rule: 'solana.blockhash_expired' } })
    const sponsored = kitTransaction({
      feePayer: stranger,
      blockhash: latest(),
      instructions: [
        getTransferSolInstruction({ source: createNoopSigner(ours()), destination: stranger, amount: 1n }),
      ],
    })
    const missing = await wallet.call('solana_signAndSendTransaction', { transaction: sponsored.base64 })
    expect(missing.error).toMatchObject({ code: -32602, data: { rule: 'solana.missing_signature' } })
    expect(wallet.reviews).toEqual([])
  })

  it('a failing simulation answers -32603 with the program error, before approval', async () => {
    const wallet = localWallet()
    const { base64: transaction } = kitTransaction({
      feePayer: ours(),
      blockhash: latest(),
      instructions: [
        getTransferSolInstruction({
          source: createNoopSigner(ours()),
          destination: stranger,
          amount: 10n ** 15n,
        }),
      ],
    })
    const response = await wallet.call('solana_signTransaction', { transaction })
    expect(response.error).toMatchObject({ code: -32603 })
    expect(JSON.stringify(response.error)).toMatch(/simulation failed/)
    expect(wallet.reviews).toEqual([])
  })

  it('signAndSend refuses a node answering another signature (-32603)', async () => {
    const provider = solanaRpc(chain.url)
    const lying = { ...provider, send: async () => base58.encode(new Uint8Array(64).fill(1)) }
    const wallet = harness(
      { chains: [solanaLocalnet], providers: { [solanaLocalnet]: lying } },
      { chainId: solanaLocalnet },
    )
    const { base64: transaction } = kitTransaction({ feePayer: ours(), blockhash: latest() })
    const response = await wallet.call('solana_signAndSendTransaction', { transaction })
    expect(response.error).toMatchObject({ code: -32603 })
    expect(JSON.stringify(response.error)).toContain('the node reported signature')
  })

  it('a v0 transaction whose recipient comes from an address lookup table: resolved in the review, lands', async () => {
    const table = fixedAddress(0x66)
    const recipient = fixedAddress(0x77)
    // Lookup table account: 56 bytes of metadata (type 1, never deactivated, extended at slot 0), then addresses.
    const data = new Uint8Array(56 + 32)
    data[0] = 1
    data.set(u64(0xffff_ffff_ffff_ffffn), 4)
    data.set(base58.decode(recipient), 56)
    chain.svm.setAccount({
      address: table,
      data,
      executable: false,
      lamports: lamports(chain.svm.minimumBalanceForRentExemption(BigInt(data.length))),
      programAddress: address('AddressLookupTab1e1111111111111111111111111'),
      space: BigInt(data.length),
    })
    chain.svm.warpToSlot(chain.svm.getClock().slot + 10n)
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(ours(), m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash({ blockhash: latest(), lastValidBlockHeight: 1000n }, m),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getTransferSolInstruction({
              source: createNoopSigner(ours()),
              destination: recipient,
              amount: 2_000_000n,
            }),
          ],
          m,
        ),
      (m) => compressTransactionMessageUsingAddressLookupTables(m, { [table]: [recipient] }),
    )
    const transaction = getBase64EncodedWireTransaction(compileTransaction(message))
    const wallet = localWallet()
    await wallet.result('solana_signAndSendTransaction', { transaction })
    expect(chain.svm.getBalance(recipient)).toBe(2_000_000n)
    const review = JSON.stringify(wallet.reviews[0]!.items)
    expect(review).toContain(`"To","value":"${recipient}"`)
    expect(review).toContain('Address lookup tables')
  })

  it('durable nonce: signed and landed while the nonce account holds it, refused once it moved on', async () => {
    const nonceAccount = fixedAddress(0x88)
    const storedNonce = fixedAddress(0x99) // any 32 bytes: the value the nonce account holds
    const data = new Uint8Array(80)
    data[0] = 1 // version: current
    data[4] = 1 // state: initialized
    data.set(base58.decode(ours()), 8) // authority
    data.set(base58.decode(storedNonce), 40)
    data.set(u64(5000n), 72)
    const setNonce = () =>
      chain.svm.setAccount({
        address: nonceAccount,
        data,
        executable: false,
        lamports: lamports(chain.svm.minimumBalanceForRentExemption(80n)),
        programAddress: address('11111111111111111111111111111111'),
        space: 80n,
      })
    setNonce()
    const nonceTransaction = (amount: bigint) =>
      kitTransaction({
        feePayer: ours(),
        blockhash: blockhash(storedNonce),
        instructions: [
          getAdvanceNonceAccountInstruction({ nonceAccount, nonceAuthority: createNoopSigner(ours()) }),
          getTransferSolInstruction({ source: createNoopSigner(ours()), destination: stranger, amount }),
        ],
      }).base64
    const wallet = localWallet()
    const before = chain.svm.getBalance(stranger) ?? 0n
    await wallet.result('solana_signAndSendTransaction', { transaction: nonceTransaction(11n) })
    expect(chain.svm.getBalance(stranger)).toBe(before + 11n)
    expect(wallet.reviews[0]!.warnings.map((warning) => warning.code)).toContain('solana.durable_nonce')
    // The nonce advanced with that transaction: the same nonce is now stale.
    const stale = await wallet.call('solana_signTransaction', { transaction: nonceTransaction(12n) })
    expect(stale.error).toMatchObject({ code: -32602, data: { rule: 'solana.nonce_expired' } })
  })
})

describe('solana_signAndSendTransaction through a lost answer (request journal), on litesvm', () => {
  it('a wallet that died after the broadcast sends the same transaction again on restart: one transfer, its signature, no prompt', async () => {
    const storage = memoryStorage()
    const before = chain.svm.getBalance(stranger) ?? 0n
    const { base64: transaction } = kitTransaction({ feePayer: ours(), blockhash: latest() })
    const request = {
      chainId: solanaLocalnet,
      sessionTopic: 'solana-topic',
      request: {
        jsonrpc: '2.0' as const,
        id: 9,
        method: 'solana_signAndSendTransaction',
        params: { transaction },
      },
    }
    const node = solanaRpc(chain.url)
    const prompts: string[] = []
    const walletWith = (provider: SolanaChainProvider) =>
      createWalletRpc({
        namespaces: [
          solana({ keys: keys(), chains: [solanaLocalnet], providers: { [solanaLocalnet]: provider } }),
        ],
        journal: storage,
        approve: (review) => {
          prompts.push(review.method)
          return true
        },
      })
    // The node took the transaction; the wallet died before its answer went out.
    const dying = walletWith({
      ...node,
      send: async (bytes, options) => {
        await node.send(bytes, options)
        throw new Error('killed after the broadcast')
      },
    })
    expect(await dying.handle(request)).toMatchObject({ error: { code: -32603 } })
    expect(chain.svm.getBalance(stranger)).toBe(before + 1_500_000n)

    const restarted = walletWith(node)
    const answer = (await restarted.handle(request)) as { result: { signature: string } }
    expect(chain.svm.getTransaction(answer.result.signature as never)).not.toBeNull()
    expect(chain.svm.getBalance(stranger)).toBe(before + 1_500_000n)
    expect(prompts).toEqual(['solana_signAndSendTransaction'])
  })
})
