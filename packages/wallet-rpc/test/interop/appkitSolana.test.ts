import { ed25519 } from '@noble/curves/ed25519.js'
import { SolanaAdapter } from '@reown/appkit-adapter-solana'
import { base58 } from '@scure/base'
import { address, lamports } from '@solana/kit'
import {
  Connection,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { solanaLocalnet } from '../../src/solana/index.js'
import {
  activate,
  controllersOf,
  type DappSession,
  installedVersion,
  startDappSession,
} from './dappSession.js'

/**
 * @reown/appkit-adapter-solana's `SolanaWalletConnectProvider` (what an AppKit dapp calls for a
 * WalletConnect wallet) against our wallet over a real session, with transactions built by @solana/web3.js
 * as the dapp builds them and landing in litesvm (the wallet broadcasts through the JSON-RPC facade).
 */

type SolanaTransaction = Transaction | VersionedTransaction
type SolanaConnector = {
  getAccounts(): Promise<Array<{ address: string; type: string }>>
  signMessage(message: Uint8Array): Promise<Uint8Array>
  signTransaction<T extends SolanaTransaction>(transaction: T): Promise<T>
  signAllTransactions<T extends SolanaTransaction[]>(transactions: T): Promise<T>
  signAndSendTransaction(transaction: SolanaTransaction, options?: object): Promise<string>
  sendTransaction(transaction: SolanaTransaction, connection: Connection, options?: object): Promise<string>
}

// A recipient outside the wallet.
const stranger = new PublicKey('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')

let dapp: DappSession
let connector: SolanaConnector
let ours: PublicKey
let connection: Connection

beforeAll(async () => {
  dapp = await startDappSession()
  const network = dapp.networks.solana
  ours = new PublicKey(dapp.account(solanaLocalnet))
  const adapter = new SolanaAdapter({})
  activate(
    await controllersOf('@reown/appkit-adapter-solana'),
    adapter,
    [network],
    `${solanaLocalnet}:${ours.toBase58()}`,
  )
  connector = adapter.getWalletConnectProvider({
    provider: dapp.provider,
    caipNetworks: [network],
    activeCaipNetwork: network,
  } as never) as unknown as SolanaConnector
  dapp.solanaChain.svm.airdrop(address(ours.toBase58()), lamports(10_000_000_000n))
  connection = new Connection(dapp.solanaChain.url, 'confirmed')
}, 120_000)

afterAll(async () => {
  await dapp?.stop()
})

const balance = (key: PublicKey) => {
  const account = dapp.solanaChain.svm.getAccount(address(key.toBase58()))
  return account.exists ? account.lamports : 0n
}

/** A legacy transfer from our account, built the way a dapp builds it with @solana/web3.js. */
function legacyTransfer(lamportsToSend: number): Transaction {
  const transaction = new Transaction({
    feePayer: ours,
    recentBlockhash: dapp.solanaChain.svm.latestBlockhash(),
  })
  transaction.add(SystemProgram.transfer({ fromPubkey: ours, toPubkey: stranger, lamports: lamportsToSend }))
  return transaction
}

function versionedTransfer(lamportsToSend: number): VersionedTransaction {
  const message = new TransactionMessage({
    payerKey: ours,
    recentBlockhash: dapp.solanaChain.svm.latestBlockhash(),
    instructions: [
      SystemProgram.transfer({ fromPubkey: ours, toPubkey: stranger, lamports: lamportsToSend }),
    ],
  }).compileToV0Message()
  return new VersionedTransaction(message)
}

function signedByUs(transaction: SolanaTransaction): boolean {
  if (transaction instanceof VersionedTransaction) {
    const index = transaction.message.staticAccountKeys.findIndex((key) => key.equals(ours))
    const signature = transaction.signatures[index]
    return (
      signature !== undefined && ed25519.verify(signature, transaction.message.serialize(), ours.toBytes())
    )
  }
  const entry = transaction.signatures.find((signature) => signature.publicKey.equals(ours))
  return (
    entry?.signature != null &&
    ed25519.verify(entry.signature, transaction.serializeMessage(), ours.toBytes())
  )
}

describe(`@reown/appkit-adapter-solana ${installedVersion('@reown/appkit-adapter-solana')} SolanaWalletConnectProvider`, () => {
  it('getAccounts: the session account', async () => {
    expect(await connector.getAccounts()).toEqual([
      { namespace: 'solana', address: ours.toBase58(), type: 'eoa' },
    ])
  })

  it('signMessage: the app gets 64 signature bytes that verify for the account over its message', async () => {
    const message = new TextEncoder().encode('Sign in to dapp.example.com')
    const signature = await connector.signMessage(message)
    expect(signature).toHaveLength(64)
    expect(ed25519.verify(signature, message, ours.toBytes())).toBe(true)
  })

  it('signTransaction (legacy): the app gets its transaction signed by us, and litesvm accepts it', async () => {
    const before = balance(stranger)
    const signed = await connector.signTransaction(legacyTransfer(1_000_000))
    // Besides the spec's {transaction, pubkey}, the adapter sends the legacy transaction's parts decoded.
    expect(dapp.received.at(-1)).toMatchObject({
      method: 'solana_signTransaction',
      params: { transaction: expect.any(String), pubkey: ours.toBase58(), feePayer: ours.toBase58() },
    })
    expect(signed).toBeInstanceOf(Transaction)
    expect(signedByUs(signed)).toBe(true)
    await connection.sendRawTransaction(signed.serialize())
    expect(balance(stranger) - before).toBe(1_000_000n)
  })

  it('signTransaction (v0): the app gets a VersionedTransaction signed by us, and litesvm accepts it', async () => {
    const before = balance(stranger)
    const signed = await connector.signTransaction(versionedTransfer(2_000_000))
    expect(signed).toBeInstanceOf(VersionedTransaction)
    expect(signedByUs(signed)).toBe(true)
    await connection.sendRawTransaction(signed.serialize())
    expect(balance(stranger) - before).toBe(2_000_000n)
  })

  it('signAllTransactions: every transaction signed by us, in order, each accepted', async () => {
    const before = balance(stranger)
    const signed = await connector.signAllTransactions([
      legacyTransfer(3_000_000),
      versionedTransfer(4_000_000),
    ])
    expect(signed).toHaveLength(2)
    expect(signed[0]).toBeInstanceOf(Transaction)
    expect(signed[1]).toBeInstanceOf(VersionedTransaction)
    for (const transaction of signed) {
      expect(signedByUs(transaction)).toBe(true)
      await connection.sendRawTransaction(transaction.serialize())
    }
    expect(balance(stranger) - before).toBe(7_000_000n)
  })

  it('signAndSendTransaction: the app gets the signature of a transaction the wallet put on the chain', async () => {
    const before = balance(stranger)
    const transaction = legacyTransfer(5_000_000)
    const signature = await connector.signAndSendTransaction(transaction)
    expect(balance(stranger) - before).toBe(5_000_000n)
    // The first signature of the landed transaction is the fee payer's: ours, over the dapp's message.
    expect(ed25519.verify(base58.decode(signature), transaction.serializeMessage(), ours.toBytes())).toBe(
      true,
    )
  })

  it('sendTransaction (signTransaction, then the app broadcasts through its Connection): lands', async () => {
    const before = balance(stranger)
    const signature = await connector.sendTransaction(versionedTransfer(6_000_000), connection)
    expect(base58.decode(signature)).toHaveLength(64)
    expect(balance(stranger) - before).toBe(6_000_000n)
  })

  it('the wallet side reported no SDK failure (attachWalletKit onError)', () => {
    expect(dapp.walletErrors).toEqual([])
  })
})
