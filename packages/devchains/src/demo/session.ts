// The demo's dapp session: local chains, one wallet (the same `createCliWallet` the CLI serves, reached through
// provider URLs), every method of every namespace, every answer checked with wallet-rpc/verify.
import { generateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import type { WalletRpc } from 'wallet-rpc'
import { bitcoinAct, fundBitcoin } from './acts/bip122.js'
import { ethereumAct } from './acts/eip155.js'
import { solanaAct } from './acts/solana.js'
import { tonAct } from './acts/ton.js'
import { ANVIL, type Chains, REGTEST, SOLANA, startChains, stopChains, TON } from './chains.js'
import { DappSession, type DemoRow } from './dapp.js'

export type { DemoRow } from './dapp.js'

export type DemoOptions = {
  /** Called as each row completes (the CLI prints it). */
  onRow?: (row: DemoRow) => void
  /** Skip the payment act even when `./acts/payment.js` is present. */
  skipPayment?: boolean
}

export async function runDemoSession(options: DemoOptions = {}): Promise<DemoRow[]> {
  const rows: DemoRow[] = []
  const record = (row: DemoRow) => {
    rows.push(row)
    options.onRow?.(row)
  }
  const chains = await startChains()
  let wallet: WalletRpc | undefined
  try {
    const { createCliWallet } = await import('wallet-rpc/conformance')
    const { mnemonicNew } = await import('@ton/crypto')
    const mnemonic = generateMnemonic(wordlist, 128)
    wallet = await createCliWallet(
      {
        mnemonic,
        tonMnemonic: (await mnemonicNew(24)).join(' '),
        tonWallet: 'v5r1',
        account: 0,
        approve: 'all',
        now: undefined,
        esplora: new Map([[REGTEST, chains.bitcoin.url]]),
        ord: new Map([[REGTEST, chains.ord.url]]),
        toncenter: new Map([[TON, chains.toncenter.url]]),
        rpc: new Map([
          [ANVIL, chains.anvil.url],
          [SOLANA, chains.solana.url],
        ]),
        delegate: new Map([[ANVIL, chains.eip7702Delegate]]),
      },
      () => {},
    )
    const coins = fundBitcoin(chains, mnemonic)
    const session = new DappSession(wallet, record)
    // What the WalletKit adapter does right after the user approves the session.
    await wallet.announceSession([REGTEST, TON, ANVIL, SOLANA])
    await bitcoinAct(session, chains, coins)
    await tonAct(session, chains)
    await ethereumAct(session, chains)
    await solanaAct(session, chains)
    for (const missing of session.unexercised()) {
      record({ ...missing, verified: false, ms: 0, note: 'not exercised by the demo' })
    }
    if (!options.skipPayment) await paymentAct(chains, record)
  } finally {
    await wallet?.close()
    await stopChains(chains)
  }
  return rows
}

async function paymentAct(chains: Chains, record: (row: DemoRow) => void): Promise<void> {
  let act: typeof import('./acts/payment.js') | undefined
  try {
    act = await import('./acts/payment.js')
  } catch {
    return
  }
  const started = performance.now()
  try {
    const rows = await act.runPaymentDemoAct({
      anvil: { url: chains.anvil.url, chainId: chains.anvil.chainId },
      solana: chains.solana,
    })
    for (const row of rows) record(row)
  } catch (error) {
    record({
      method: 'payment act',
      chain: ANVIL,
      verified: false,
      ms: Math.round(performance.now() - started),
      note: error instanceof Error ? error.message : String(error),
    })
  }
}
