import { BitcoinAdapter } from '@reown/appkit-adapter-bitcoin'
import { hex } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { Verifier } from 'bip322-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  activate,
  controllersOf,
  type DappSession,
  installedVersion,
  startDappSession,
} from './dappSession.js'

/**
 * @reown/appkit-adapter-bitcoin's `BitcoinWalletConnectConnector` (what a dapp on AppKit calls for a
 * WalletConnect wallet) against our wallet over a real session: each method's request is accepted and
 * the value the adapter hands the app is checked with independent code (bip322-js, @scure/btc-signer)
 * and against the regtest chain.
 */

type BitcoinConnector = {
  signMessage(params: { message: string; address: string; protocol?: 'ecdsa' | 'bip322' }): Promise<string>
  sendTransfer(params: { recipient: string; amount: string | number }): Promise<string>
  getAccountAddresses(): Promise<Array<{ address: unknown; purpose: string }>>
  signPSBT(params: {
    psbt: string
    signInputs: Array<{ address: string; index: number; sighashTypes: number[] }>
    broadcast?: boolean
  }): Promise<{ psbt: string; txid?: string }>
}

const regtest = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }
// A recipient outside the wallet: BIP-173's P2WPKH example, on regtest.
const recipient = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'

let dapp: DappSession
let connector: BitcoinConnector
let account: string

beforeAll(async () => {
  dapp = await startDappSession()
  const adapter = new BitcoinAdapter({})
  const network = dapp.networks.bitcoin
  account = dapp.account(network.caipNetworkId)
  activate(
    await controllersOf('@reown/appkit-adapter-bitcoin'),
    adapter,
    [network],
    `${network.caipNetworkId}:${account}`,
  )
  connector = adapter.getWalletConnectProvider({
    provider: dapp.provider,
    caipNetworks: [network],
    activeCaipNetwork: network,
  } as never) as unknown as BitcoinConnector
}, 120_000)

afterAll(async () => {
  await dapp?.stop()
})

describe(`@reown/appkit-adapter-bitcoin ${installedVersion('@reown/appkit-adapter-bitcoin')} BitcoinWalletConnectConnector`, () => {
  it('signMessage (ecdsa, the default): the app gets a base64 BIP-137 signature that verifies for the account', async () => {
    const message = 'Hello from AppKit'
    const signature = await connector.signMessage({ message, address: account })
    // The adapter adds the address as `account` (the spec's required field) and sends no protocol.
    expect(dapp.received.at(-1)).toMatchObject({
      chainId: dapp.networks.bitcoin.caipNetworkId,
      method: 'signMessage',
      params: { message, account, address: account },
    })
    expect(dapp.received.at(-1)?.params).toEqual({ message, account, address: account })
    expect(signature).toMatch(/^[A-Za-z0-9+/]{87}=$/)
    expect(Verifier.verifySignature(account, message, signature)).toBe(true)
    expect(Verifier.verifySignature(recipient, message, signature)).toBe(false)
  })

  it('signMessage (bip322): the app gets a base64 BIP-322 simple signature that verifies for the account', async () => {
    const message = 'Hello from AppKit'
    const signature = await connector.signMessage({ message, address: account, protocol: 'bip322' })
    expect(Verifier.verifySignature(account, message, signature)).toBe(true)
    expect(Verifier.verifySignature(account, 'another message', signature)).toBe(false)
  })

  it('sendTransfer with amount as a decimal string: the app gets the txid of a transaction on the chain paying it', async () => {
    dapp.bitcoin.fund(account, 200_000)
    const txid = await connector.sendTransfer({ recipient, amount: '25000' })
    expect(paidTo(txid, recipient)).toBe(25_000n)
  })

  it('sendTransfer with amount as a number (as AppKit passes the app value on): accepted, same payment', async () => {
    dapp.bitcoin.fund(account, 200_000)
    const txid = await connector.sendTransfer({ recipient, amount: 30000 })
    expect(paidTo(txid, recipient)).toBe(30_000n)
  })

  it('sendTransfer with a fractional number: the app gets a -32602 rejection and nothing is sent', async () => {
    const before = dapp.bitcoin.chain.mempool.size
    await expect(connector.sendTransfer({ recipient, amount: 0.0003 })).rejects.toMatchObject({
      code: -32602,
    })
    expect(dapp.bitcoin.chain.mempool.size).toBe(before)
  })

  it('sendTransfer with a number past 2^53 - 1: the WalletConnect SDK rejects it before our wallet sees it', async () => {
    // @walletconnect/safe-json parses such a number as a BigInt; the SDK (2.25.0 here) then fails the
    // request with an empty error object. Our wallet refuses a BigInt amount too (decimalOrSafeInteger).
    const reviews = dapp.reviews.length
    const before = dapp.bitcoin.chain.mempool.size
    await expect(connector.sendTransfer({ recipient, amount: 2 ** 53 })).rejects.toEqual({})
    expect(dapp.reviews.length).toBe(reviews)
    expect(dapp.bitcoin.chain.mempool.size).toBe(before)
  })

  it('getAccountAddresses: the adapter wraps each of our entries whole, so the app gets {address: <object>, purpose}', async () => {
    const listed = await connector.getAccountAddresses()
    expect(listed.length).toBeGreaterThan(0)
    // The caveat: AppKit types `address` as a string, but puts the spec's whole entry there.
    expect(listed[0]).toMatchObject({
      address: { address: account, intention: 'payment', path: "m/84'/1'/0'/0/0" },
      purpose: 'payment',
    })
    expect(listed.every((entry) => typeof entry.address === 'object')).toBe(true)
    // Every entry is labelled `payment`, whatever its intention in our answer.
    expect(listed.every((entry) => entry.purpose === 'payment')).toBe(true)
    const intentions = listed.map((entry) => (entry.address as { intention: string }).intention)
    expect(intentions).toContain('ordinal')
  })

  it('signPSBT (no broadcast): the app gets the PSBT back with our input signed, valid for the prevout', async () => {
    const { psbt } = unsignedPsbt(60_000, 20_000)
    const signed = await connector.signPSBT({
      psbt,
      signInputs: [{ address: account, index: 0, sighashTypes: [1] }],
    })
    const tx = btc.Transaction.fromPSBT(Buffer.from(signed.psbt, 'base64'))
    expect(tx.getInput(0).partialSig?.length).toBe(1)
    tx.finalize()
    // The chain's own validation (script and signature) accepts the finalized transaction.
    const txid = dapp.bitcoin.chain.submit(tx.extract())
    expect(paidTo(txid, recipient)).toBe(20_000n)
  })

  it('signPSBT with broadcast: the app gets the PSBT and the txid of a transaction in the mempool', async () => {
    const { psbt } = unsignedPsbt(70_000, 15_000)
    const signed = await connector.signPSBT({
      psbt,
      signInputs: [{ address: account, index: 0, sighashTypes: [1] }],
      broadcast: true,
    })
    expect(signed.txid).toMatch(/^[0-9a-f]{64}$/)
    expect(paidTo(signed.txid!, recipient)).toBe(15_000n)
  })

  it('the wallet side reported no SDK failure (attachWalletKit onError)', () => {
    expect(dapp.walletErrors).toEqual([])
  })
})

/** Satoshis the mempool or chain transaction `txid` pays to `address`. */
function paidTo(txid: string, address: string): bigint {
  const raw = dapp.bitcoin.chain.rawTransaction(txid)
  if (!raw) throw new Error(`${txid} is not on the chain`)
  const tx = btc.Transaction.fromRaw(raw, { allowUnknownOutputs: true })
  const script = btc.OutScript.encode(btc.Address(regtest).decode(address))
  let paid = 0n
  for (let index = 0; index < tx.outputsLength; index++) {
    const output = tx.getOutput(index)
    if (output.script && hex.encode(output.script) === hex.encode(script)) paid += output.amount ?? 0n
  }
  return paid
}

/** A dapp-built PSBT (@scure/btc-signer) spending a fresh coin of our account to the recipient. */
function unsignedPsbt(coin: number, pay: number): { psbt: string } {
  const funding = dapp.bitcoin.fund(account, coin)
  const script = btc.OutScript.encode(btc.Address(regtest).decode(account))
  const tx = new btc.Transaction()
  tx.addInput({ txid: funding.txid, index: funding.vout, witnessUtxo: { script, amount: BigInt(coin) } })
  tx.addOutputAddress(recipient, BigInt(pay), regtest)
  tx.addOutputAddress(account, BigInt(coin - pay - 1_000), regtest)
  return { psbt: Buffer.from(tx.toPSBT()).toString('base64') }
}
