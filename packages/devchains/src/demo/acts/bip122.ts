// The demo's bip122 act: accounts, messages (BIP-137, BIP-322), PSBTs, a transfer, the addresses event.
import { randomBytes } from 'node:crypto'
import * as ecc from '@bitcoinerlab/secp256k1'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { base64, hex } from '@scure/base'
import { mnemonicToSeedSync } from '@scure/bip39'
import * as btc from '@scure/btc-signer'
import { BIP32Factory } from 'bip32'
import { type Chains, REGTEST } from '../chains.js'
import { type DappSession, verify } from '../dapp.js'

export type Coins = {
  account: string
  taproot: string
  coinA: Outpoint
  coinB: Outpoint
  candidates: string[]
}
type Outpoint = { txid: string; vout: number }

/** The user already holds coins when the dapp connects: three on the payment address, one on a taproot one. */
export function fundBitcoin(chains: Chains, mnemonic: string): Coins {
  const root = BIP32Factory(ecc).fromSeed(mnemonicToSeedSync(mnemonic))
  const pub = (path: string) => Uint8Array.from(root.derivePath(path).publicKey)
  const account = btc.p2wpkh(pub("m/84'/1'/0'/0/0"), regtestNet).address!
  const taproot = btc.p2tr(pub("m/86'/1'/0'/0/0").slice(1), undefined, regtestNet).address!
  const coinA = chains.bitcoin.fund(taproot, 300_000n)
  const coinB = chains.bitcoin.fund(account, 400_000n)
  chains.bitcoin.fund(account, 500_000n)
  chains.bitcoin.fund(account, 600_000n)
  // The first few receive and change addresses of both purposes, derived here independently of the wallet.
  const candidates: string[] = []
  for (const change of [0, 1]) {
    for (let index = 0; index < 5; index++) {
      candidates.push(btc.p2wpkh(pub(`m/84'/1'/0'/${change}/${index}`), regtestNet).address!)
      candidates.push(
        btc.p2tr(pub(`m/86'/1'/0'/${change}/${index}`).slice(1), undefined, regtestNet).address!,
      )
    }
  }
  return { account, taproot, coinA, coinB, candidates }
}

export async function bitcoinAct(session: DappSession, chains: Chains, coins: Coins): Promise<void> {
  const { account: regtestAccount, taproot, coinA, coinB } = coins
  if ((await session.wallet.accounts(REGTEST))[0] !== regtestAccount) {
    session.note({
      method: 'accounts: the first external P2WPKH address',
      chain: REGTEST,
      verified: false,
      ms: 0,
    })
  }
  const properties = await session.wallet.sessionProperties()
  const announced = JSON.parse(properties.bip122_getAccountAddresses ?? '[]') as { address: string }[]
  const mainnetAccount = announced[0]?.address ?? ''
  // One property serves every bip122 chain of the session, so it may list addresses of several networks.
  const announcedCheck = verify.bip122.getAccountAddresses!({ account: mainnetAccount }, announced)
  session.note({
    method: 'sessionProperties.bip122_getAccountAddresses',
    chain: 'bip122:000000000019d6689c085ae165831e93',
    verified: announcedCheck.valid,
    ms: 0,
    ...(announcedCheck.valid ? {} : { note: announcedCheck.reason }),
  })
  const addresses = await session.step<{ address: string; path?: string; intention?: string }[]>(
    REGTEST,
    'getAccountAddresses',
    { account: regtestAccount },
    (result) =>
      verify.bip122.getAccountAddresses!({ account: regtestAccount }, result, { network: 'regtest' }),
  )
  const account = regtestAccount
  if (!addresses?.some((entry) => entry.address === taproot)) {
    session.note({
      method: 'getAccountAddresses lists the funded P2TR address',
      chain: REGTEST,
      verified: false,
      ms: 0,
    })
  }
  const network = { network: 'regtest' }

  const messageParams = { account, message: 'Sign in to dapp.example\nNonce: 8f2c' }
  await session.step(
    REGTEST,
    'signMessage',
    messageParams,
    (result) => verify.bip122.signMessage!(messageParams, result, network),
    'signMessage (ecdsa, P2WPKH)',
  )
  const bip322Params = { account, address: taproot, message: 'Sign in to dapp.example', protocol: 'bip322' }
  await session.step(
    REGTEST,
    'signMessage',
    bip322Params,
    (result) => verify.bip122.signMessage!(bip322Params, result, network),
    'signMessage (bip322, P2TR)',
  )

  // A multi-party PSBT: our taproot coin and a stranger's coin; we sign ours only.
  const strangerKey = randomBytes(32)
  const stranger = btc.p2wpkh(secp256k1.getPublicKey(strangerKey, true), regtestNet)
  const coinC = chains.bitcoin.fund(stranger.address!, 250_000n)
  const multiParty = new btc.Transaction({ allowUnknownOutputs: true })
  multiParty.addInput(await dappInput(chains, coinA))
  multiParty.addInput(await dappInput(chains, coinC))
  multiParty.addOutputAddress(stranger.address!, 540_000n, regtestNet)
  const multiParams = {
    account,
    psbt: base64.encode(multiParty.toPSBT()),
    signInputs: [{ address: taproot, index: 0 }],
  }
  await session.step(
    REGTEST,
    'signPsbt',
    multiParams,
    (result) => verify.bip122.signPsbt!(multiParams, result, network),
    'signPsbt (multi-party, ours only)',
  )

  // Our coin alone, signed and broadcast by the wallet.
  const spend = new btc.Transaction({ allowUnknownOutputs: true })
  spend.addInput(await dappInput(chains, coinB))
  spend.addOutputAddress(stranger.address!, 395_000n, regtestNet)
  const broadcastParams = {
    account,
    psbt: base64.encode(spend.toPSBT()),
    signInputs: [{ address: account, index: 0 }],
    broadcast: true,
  }
  await session.step<{ txid?: string }>(
    REGTEST,
    'signPsbt',
    broadcastParams,
    async (result) => {
      const verdict = verify.bip122.signPsbt!(broadcastParams, result, network)
      if (!verdict.valid) return verdict
      return (await rawBitcoinTx(chains, result.txid ?? ''))
        ? verdict
        : { valid: false, reason: 'not on the chain' }
    },
    'signPsbt (broadcast)',
  )

  const eventsBeforeTransfer = session.events.length
  const transferParams = {
    account,
    recipientAddress: stranger.address!,
    amount: '150000',
    memo: hex.encode(new TextEncoder().encode('wallet-rpc demo')),
  }
  await session.step<{ txid: string }>(REGTEST, 'sendTransfer', transferParams, (result) =>
    checkTransfer(chains, transferParams, result),
  )
  chains.bitcoin.mine(1)

  // The wallet reads the ord index (--ord): the largest coin carries an inscription, and the transfer leaves it.
  const inscribed = chains.bitcoin.fund(account, 2_000_000n)
  const inscription = chains.ord.inscribe(inscribed, 0)
  const keptParams = { account, recipientAddress: stranger.address!, amount: '700000' }
  await session.step<{ txid: string }>(
    REGTEST,
    'sendTransfer',
    keptParams,
    async (result) => {
      const satpoint = chains.ord.satpoint(inscription)
      if (satpoint !== `${inscribed.txid}:${inscribed.vout}:0`)
        return { valid: false, reason: `the inscription moved to ${satpoint}` }
      return checkTransfer(chains, keptParams, result, `${inscribed.txid}:${inscribed.vout}`)
    },
    'sendTransfer (an inscription kept safe)',
  )
  chains.bitcoin.mine(1)

  // After the transfers: every address now holding coins is listed, and fewer than 20 listed ones are unused.
  const funded: string[] = []
  for (const candidate of coins.candidates) {
    const utxos = (await esplora(chains, `/address/${candidate}/utxo`)) as unknown[]
    if (utxos.length > 0) funded.push(candidate)
  }
  await session.step<{ address: string }[]>(
    REGTEST,
    'getAccountAddresses',
    { account },
    async (result) => {
      const used: string[] = []
      for (const entry of result) {
        const stats = (await esplora(chains, `/address/${entry.address}`)) as {
          chain_stats: { tx_count: number }
          mempool_stats: { tx_count: number }
        }
        if (stats.chain_stats.tx_count + stats.mempool_stats.tx_count > 0) used.push(entry.address)
      }
      return verify.bip122.getAccountAddresses!({ account }, result, {
        network: 'regtest',
        usedAddresses: used,
        fundedAddresses: funded,
      })
    },
    `getAccountAddresses (after transfers: ${funded.length} funded)`,
  )

  const started = performance.now()
  const event = await session.nextEvent(
    eventsBeforeTransfer,
    (e) => e.name === 'bip122_addressesChanged' && e.chainId === REGTEST,
    5_000,
  )
  const eventCheck = event
    ? verify.bip122.getAccountAddresses!({ account }, event.data, network)
    : { valid: false as const, reason: 'no bip122_addressesChanged event after broadcasting' }
  session.note({
    method: 'event bip122_addressesChanged',
    chain: REGTEST,
    verified: eventCheck.valid,
    ms: Math.round(performance.now() - started),
    ...(eventCheck.valid ? {} : { note: eventCheck.reason }),
  })
}

const regtestNet = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }

/** A transfer's answer checked with wallet-rpc/verify against the chain's transaction; it must not spend `kept`. */
async function checkTransfer(
  chains: Chains,
  params: { account: string; recipientAddress: string; amount: string },
  result: { txid: string },
  kept?: string,
) {
  const rawTransaction = await rawBitcoinTx(chains, result.txid)
  if (rawTransaction === undefined)
    return { valid: false as const, reason: 'the chain does not know the txid' }
  const tx = btc.Transaction.fromRaw(hex.decode(rawTransaction), { allowUnknownOutputs: true })
  const prevouts = []
  for (let index = 0; index < tx.inputsLength; index++) {
    const input = tx.getInput(index)
    if (`${hex.encode(input.txid!)}:${input.index}` === kept)
      return { valid: false as const, reason: `it spent ${kept}` }
    const parent = btc.Transaction.fromRaw(
      hex.decode((await rawBitcoinTx(chains, hex.encode(input.txid!))) ?? ''),
      {
        allowUnknownOutputs: true,
      },
    )
    const output = parent.getOutput(input.index!)
    prevouts.push({ script: hex.encode(output.script!), amount: output.amount!.toString() })
  }
  return verify.bip122.sendTransfer!(params, result, { rawTransaction, prevouts, network: 'regtest' })
}

async function esplora(chains: Chains, path: string): Promise<unknown> {
  const response = await fetch(`${chains.bitcoin.url}${path}`)
  if (!response.ok) throw new Error(`esplora ${path}: HTTP ${response.status}`)
  return response.json()
}

async function rawBitcoinTx(chains: Chains, txid: string): Promise<string | undefined> {
  const response = await fetch(`${chains.bitcoin.url}/tx/${txid}/hex`)
  return response.ok ? (await response.text()).trim() : undefined
}

/** What a dapp puts in a PSBT input: the coin, its previous transaction, and the taproot internal key if known. */
async function dappInput(chains: Chains, coin: { txid: string; vout: number }) {
  const raw = (await rawBitcoinTx(chains, coin.txid)) ?? ''
  const parent = btc.Transaction.fromRaw(hex.decode(raw), { allowUnknownOutputs: true })
  const output = parent.getOutput(coin.vout)
  const script = output.script!
  const isTaproot = script[0] === 0x51
  return {
    txid: coin.txid,
    index: coin.vout,
    witnessUtxo: { script, amount: output.amount! },
    ...(isTaproot ? {} : { nonWitnessUtxo: hex.decode(raw) }),
  }
}
