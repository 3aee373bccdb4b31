// The demo's dapp session: local chains, one wallet (the same `createCliWallet` the CLI serves, reached through
// provider URLs), every method of every namespace, every answer checked with wallet-rpc/verify.
import { randomBytes } from 'node:crypto'
import * as ecc from '@bitcoinerlab/secp256k1'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { base64, hex } from '@scure/base'
import { generateMnemonic, mnemonicToSeedSync } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import * as btc from '@scure/btc-signer'
import { Address, beginCell, Cell, contractAddress, loadStateInit } from '@ton/core'
import { BIP32Factory } from 'bip32'
import { keccak256 } from 'viem'
import type { WalletEvent, WalletRpc } from 'wallet-rpc'
import type { VerifyResult } from 'wallet-rpc/verify'
import { type TonProof, verifiers, verifyTonProof } from 'wallet-rpc/verify'

export type DemoRow = { method: string; chain: string; verified: boolean; ms: number; note?: string }

export type DemoOptions = {
  /** Called as each row completes (the CLI prints it). */
  onRow?: (row: DemoRow) => void
  /** Skip the payment act even when `./payment.js` is present. */
  skipPayment?: boolean
}

const REGTEST = 'bip122:0f9188f13cb7b2c71f2a335e3a4fc328'
const TON = 'ton:-3'
const ANVIL = 'eip155:31337'
const SOLANA = 'solana:localnet'
const origin = 'https://dapp.example'

type Chains = {
  anvil: { url: string; chainId: number; stop(): Promise<void> }
  /** OpenZeppelin's ERC-7821 executor on anvil: the EIP-7702 delegate of atomic `wallet_sendCalls`. */
  eip7702Delegate: string
  bitcoin: Awaited<ReturnType<typeof import('../bitcoinRegtest/index.js')['startBitcoinRegtest']>>
  ton: Awaited<ReturnType<typeof import('../tonSandbox.js')['startTonSandbox']>>
  toncenter: { url: string; close(): Promise<void> }
  solana: Awaited<ReturnType<typeof import('../solanaLocal.js')['startSolanaLocal']>>
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

async function startChains(): Promise<Chains> {
  const [
    { startAnvil },
    { startBitcoinRegtest },
    { startTonSandbox },
    { serveToncenter },
    { startSolanaLocal },
    { deployEip7702Executor },
  ] = await Promise.all([
    import('../anvil.js'),
    import('../bitcoinRegtest/index.js'),
    import('../tonSandbox.js'),
    import('../toncenterFacade.js'),
    import('../solanaLocal.js'),
    import('../eip7702Executor.js'),
  ])
  const [anvil, bitcoin, ton, solana] = await Promise.all([
    startAnvil({ args: ['--hardfork', 'prague'] }),
    startBitcoinRegtest(),
    startTonSandbox(),
    startSolanaLocal(),
  ])
  const [toncenter, eip7702Delegate] = await Promise.all([
    serveToncenter(ton.provider),
    deployEip7702Executor(anvil.url),
  ])
  return { anvil, bitcoin, ton, toncenter, solana, eip7702Delegate }
}

async function stopChains(chains: Chains): Promise<void> {
  await Promise.allSettled([
    chains.anvil.stop(),
    chains.bitcoin.stop(),
    chains.toncenter.close(),
    chains.ton.stop(),
    chains.solana.stop(),
  ])
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`${code} ${message}`)
  }
}

/** A dapp's view of the wallet: requests by chain and method, answers checked, each one a table row. */
class DappSession {
  private nextId = 1
  private readonly done = new Set<string>()
  readonly events: WalletEvent[] = []

  private waiters: (() => void)[] = []

  constructor(
    readonly wallet: WalletRpc,
    private readonly record: (row: DemoRow) => void,
  ) {
    wallet.on('event', (event) => {
      this.events.push(event)
      for (const wake of this.waiters.splice(0)) wake()
    })
  }

  /** The first event after `since` (an index into `events`) that matches, waiting up to `timeoutMs`. */
  async nextEvent(
    since: number,
    match: (event: WalletEvent) => boolean,
    timeoutMs: number,
  ): Promise<WalletEvent | undefined> {
    const deadline = performance.now() + timeoutMs
    for (;;) {
      const found = this.events.slice(since).find(match)
      if (found || performance.now() >= deadline) return found
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - performance.now()))
        this.waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }

  async request(chainId: string, method: string, params: unknown): Promise<unknown> {
    const response = (await this.wallet.handle({
      chainId,
      origin,
      request: { id: this.nextId++, jsonrpc: '2.0', method, params },
    })) as { result?: unknown; error?: { code: number; message: string; data?: { reason?: string } } }
    if (response.error) {
      const reason = response.error.data?.reason ? ` (${response.error.data.reason})` : ''
      throw new RpcFailure(response.error.code, `${response.error.message}${reason}`)
    }
    return response.result
  }

  /** Sends one request and checks the answer with `check`; records the row. Never throws. */
  async step<T>(
    chainId: string,
    method: string,
    params: unknown,
    check: (result: T) => Promise<VerifyResult> | VerifyResult,
    label = method,
  ): Promise<T | undefined> {
    this.done.add(`${chainId} ${method}`)
    const started = performance.now()
    let verdict: VerifyResult
    let result: T | undefined
    try {
      result = (await this.request(chainId, method, params)) as T
      verdict = await check(result)
    } catch (error) {
      verdict = { valid: false, reason: error instanceof Error ? error.message : String(error) }
    }
    this.record({
      method: label,
      chain: chainId,
      verified: verdict.valid,
      ms: Math.round(performance.now() - started),
      ...(verdict.valid ? {} : { note: verdict.reason }),
    })
    return verdict.valid ? result : undefined
  }

  /** A request the wallet must refuse with `code`. */
  async refused(chainId: string, method: string, params: unknown, code: number, why: string): Promise<void> {
    this.done.add(`${chainId} ${method}`)
    const started = performance.now()
    let verified = false
    let note = why
    try {
      await this.request(chainId, method, params)
      note = `answered, expected refusal ${code}`
    } catch (error) {
      verified = error instanceof RpcFailure && error.code === code
      if (!verified) note = `expected ${code}, got ${error instanceof Error ? error.message : String(error)}`
    }
    this.record({ method, chain: chainId, verified, ms: Math.round(performance.now() - started), note })
  }

  note(row: DemoRow): void {
    this.record(row)
  }

  unexercised(): { method: string; chain: string }[] {
    const chainsOf: Record<string, string> = { bip122: REGTEST, ton: TON, eip155: ANVIL, solana: SOLANA }
    return this.wallet
      .supported()
      .flatMap((namespace) =>
        namespace.methods.map((method) => ({ method, chain: chainsOf[namespace.name] ?? '' })),
      )
      .filter(({ method, chain }) => !this.done.has(`${chain} ${method}`))
  }
}

const verify = verifiers

// ------------------------------------------------------------------ bip122
type Coins = { account: string; taproot: string; coinA: Outpoint; coinB: Outpoint; candidates: string[] }
type Outpoint = { txid: string; vout: number }

/** The user already holds coins when the dapp connects: three on the payment address, one on a taproot one. */
function fundBitcoin(chains: Chains, mnemonic: string): Coins {
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

async function bitcoinAct(session: DappSession, chains: Chains, coins: Coins): Promise<void> {
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
  await session.step<{ txid: string }>(REGTEST, 'sendTransfer', transferParams, async (result) => {
    const rawTransaction = await rawBitcoinTx(chains, result.txid)
    if (rawTransaction === undefined) return { valid: false, reason: 'the chain does not know the txid' }
    const tx = btc.Transaction.fromRaw(hex.decode(rawTransaction), { allowUnknownOutputs: true })
    const prevouts = []
    for (let index = 0; index < tx.inputsLength; index++) {
      const input = tx.getInput(index)
      const parent = btc.Transaction.fromRaw(
        hex.decode((await rawBitcoinTx(chains, hex.encode(input.txid!))) ?? ''),
        {
          allowUnknownOutputs: true,
        },
      )
      const output = parent.getOutput(input.index!)
      prevouts.push({ script: hex.encode(output.script!), amount: output.amount!.toString() })
    }
    return verify.bip122.sendTransfer!(transferParams, result, {
      rawTransaction,
      prevouts,
      network: 'regtest',
    })
  })
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

// ------------------------------------------------------------------ ton
async function tonAct(session: DappSession, chains: Chains): Promise<void> {
  const properties = await session.wallet.sessionProperties()
  const publicKey = properties.ton_getPublicKey ?? ''
  const stateInit = properties.ton_getStateInit ?? ''
  const walletAddress = contractAddress(0, loadStateInit(Cell.fromBase64(stateInit).beginParse()))
  const now = () => Math.floor(Date.now() / 1000)
  const session_ = { publicKey, stateInit }
  const domain = new URL(origin).host

  for (const payload of [
    { type: 'text', text: 'Confirm: link wallet to dapp.example' },
    { type: 'binary', bytes: base64.encode(randomBytes(24)) },
    {
      type: 'cell',
      schema: 'message#_ text:^Cell = InMsgBody;',
      cell: beginCell()
        .storeRef(beginCell().storeStringTail('hello').endCell())
        .endCell()
        .toBoc()
        .toString('base64'),
    },
  ]) {
    await session.step(
      TON,
      'ton_signData',
      [payload],
      (result) => verify.ton.ton_signData!([payload], result, { ...session_, domain, now: now() }),
      `ton_signData (${payload.type})`,
    )
  }

  // TON Connect's sign-in (the `ton_proof` connect item): the dapp's backend checks it before it trusts the address.
  const proofPayload = hex.encode(randomBytes(32))
  await session.step<{ address: string; proof: TonProof }>(
    TON,
    'ton_proof',
    [{ domain, payload: proofPayload }],
    ({ address, proof }) =>
      verifyTonProof(proof, { ...session_, address, domains: [domain], payload: proofPayload, now: now() }),
    'ton_proof (TON Connect sign-in)',
  )

  await chains.ton.fund(walletAddress, 3_000_000_000n)
  const recipient = new Address(0, randomBytes(32))
  const recipientFriendly = recipient.toString({ bounceable: false, testOnly: true })
  const comment = beginCell()
    .storeUint(0, 32)
    .storeStringTail('wallet-rpc demo')
    .endCell()
    .toBoc()
    .toString('base64')
  const sendParams = [
    {
      valid_until: now() + 300,
      from: walletAddress.toRawString(),
      messages: [
        { address: recipientFriendly, amount: '200000000', payload: comment },
        { address: recipientFriendly, amount: '50000000' },
      ],
    },
  ]
  await session.step(
    TON,
    'ton_sendMessage',
    sendParams,
    async (result) => {
      const verdict = verify.ton.ton_sendMessage!(sendParams, result, { ...session_, now: now() })
      if (!verdict.valid) return verdict
      const balance = (await chains.ton.blockchain.getContract(recipient)).balance
      return balance >= 250_000_000n - 10_000_000n
        ? verdict
        : { valid: false, reason: `recipient holds ${balance}` }
    },
    'ton_sendMessage (2 messages, deploys)',
  )
  await session.step(
    TON,
    'ton_sendMessage',
    [{ messages: [{ address: recipientFriendly, amount: '1000000' }] }],
    (result) =>
      verify.ton.ton_sendMessage!(
        [{ messages: [{ address: recipientFriendly, amount: '1000000' }] }],
        result,
        {
          ...session_,
          now: now(),
          seqno: 1,
        },
      ),
    'ton_sendMessage (seqno 1)',
  )
}

// ------------------------------------------------------------------ eip155
async function ethereumAct(session: DappSession, chains: Chains): Promise<void> {
  const from = (await session.wallet.accounts(ANVIL))[0] ?? ''
  const other = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
  const chainId = chains.anvil.chainId
  await rpc(chains.anvil.url, 'anvil_setBalance', [from, '0x3635c9adc5dea00000'])

  const message = `0x${Buffer.from('Sign in to dapp.example').toString('hex')}`
  await session.step(ANVIL, 'personal_sign', [message, from], (result) =>
    verify.eip155.personal_sign!([message, from], result),
  )
  await session.refused(ANVIL, 'eth_sign', [from, message], 5101, 'refused: blind signing is off by default')

  const typed = {
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallet', type: 'address' },
      ],
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'to', type: 'Person' },
        { name: 'contents', type: 'string' },
      ],
    },
    primaryType: 'Mail',
    domain: {
      name: 'Ether Mail',
      version: '1',
      chainId,
      verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
    },
    message: {
      from: { name: 'Dapp user', wallet: from },
      to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
      contents: 'Hello, Bob!',
    },
  }
  for (const method of ['eth_signTypedData_v4', 'eth_signTypedData', 'eth_signTypedData_v3']) {
    const params = [from, method === 'eth_signTypedData_v3' ? JSON.stringify(typed) : typed]
    await session.step(ANVIL, method, params, (result) => verify.eip155[method]!(params, result, { chainId }))
  }

  const txRequest = { from, to: other, value: '0x2386f26fc10000' }
  const raw = await session.step<string>(ANVIL, 'eth_signTransaction', [txRequest], (result) =>
    verify.eip155.eth_signTransaction!([txRequest], result, { chainId }),
  )
  await session.step<string>(ANVIL, 'eth_sendRawTransaction', [raw ?? '0x'], async (hash) => {
    const verdict = verify.eip155.eth_sendRawTransaction!([raw], hash, { chainId })
    if (!verdict.valid) return verdict
    return mined(chains, hash)
  })
  const sendRequest = { from, to: other, value: '0x1', data: '0x64656d6f' }
  await session.step<string>(ANVIL, 'eth_sendTransaction', [sendRequest], async (hash) => {
    const rawTransaction = await rpc(chains.anvil.url, 'eth_getRawTransactionByHash', [hash])
    if (typeof rawTransaction !== 'string') return { valid: false, reason: 'anvil does not know the hash' }
    const verdict = verify.eip155.eth_sendTransaction!([sendRequest], hash, { chainId, rawTransaction })
    if (!verdict.valid) return verdict
    if (keccak256(rawTransaction as `0x${string}`) !== hash) return { valid: false, reason: 'hash mismatch' }
    return mined(chains, hash)
  })
  await batchedCalls(session, chains, from, other)
}

/** EIP-5792: capabilities, one atomic batch that upgrades the account (EIP-7702), its status, a switch. */
async function batchedCalls(
  session: DappSession,
  chains: Chains,
  from: string,
  other: string,
): Promise<void> {
  const hexChain = `0x${chains.anvil.chainId.toString(16)}`
  const delegated = `0xef0100${chains.eip7702Delegate.slice(2).toLowerCase()}`
  await session.step<Record<string, { atomic?: { status?: string } }>>(
    ANVIL,
    'wallet_getCapabilities',
    [from, [hexChain]],
    (result) =>
      result[hexChain]?.atomic?.status === 'supported'
        ? { valid: true }
        : { valid: false, reason: `atomic is ${JSON.stringify(result[hexChain]?.atomic)}` },
  )
  const calls = [
    { to: other, value: '0x1' },
    { to: other, value: '0x2' },
  ]
  const sent = await session.step<{ id: string; capabilities: { caip345: { transactionHashes: string[] } } }>(
    ANVIL,
    'wallet_sendCalls',
    [{ version: '2.0.0', chainId: hexChain, from, atomicRequired: true, calls }],
    async (result) => {
      const hashes = result.capabilities.caip345.transactionHashes
      if (hashes.length !== 1) return { valid: false, reason: `${hashes.length} transactions, not one` }
      const receipt = await mined(chains, hashes[0]!)
      if (!receipt.valid) return receipt
      const code = await rpc(chains.anvil.url, 'eth_getCode', [from, 'latest'])
      return code === delegated ? { valid: true } : { valid: false, reason: `account code ${String(code)}` }
    },
    'wallet_sendCalls (2 calls, one EIP-7702 transaction)',
  )
  await session.step<{ status: number; atomic: boolean }>(
    ANVIL,
    'wallet_getCallsStatus',
    [sent?.id ?? ''],
    (result) =>
      result.status === 200 && result.atomic
        ? { valid: true }
        : { valid: false, reason: `status ${result.status}, atomic ${result.atomic}` },
  )
  await session.step<null>(ANVIL, 'wallet_switchEthereumChain', [{ chainId: hexChain }], (result) =>
    result === null ? { valid: true } : { valid: false, reason: 'not null' },
  )
}

/**
 * The transaction's receipt says status 1. Anvil mines on arrival but answers the send first, so the receipt
 * may lag the hash by a moment on a loaded machine: asked again for up to 10 s.
 */
async function mined(chains: Chains, hash: string): Promise<VerifyResult> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const receipt = (await rpc(chains.anvil.url, 'eth_getTransactionReceipt', [hash])) as {
      status?: string
    } | null
    if (receipt !== null) {
      return receipt.status === '0x1' ? { valid: true } : { valid: false, reason: 'mined with status 0' }
    }
    if (Date.now() > deadline) return { valid: false, reason: 'not mined within 10 s' }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result?: unknown; error?: { message?: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

// ------------------------------------------------------------------ payment (src/cli/demo/payment.ts)
// ------------------------------------------------------------------ solana
async function solanaAct(session: DappSession, chains: Chains): Promise<void> {
  const kit = await import('@solana/kit')
  const { getTransferSolInstruction } = await import('@solana-program/system')
  const accounts = await session.step<{ pubkey: string }[]>(SOLANA, 'solana_getAccounts', {}, (result) =>
    Array.isArray(result) && result.length === 1 && typeof result[0]?.pubkey === 'string'
      ? { valid: true }
      : { valid: false, reason: 'expected one account' },
  )
  await session.step<{ pubkey: string }[]>(SOLANA, 'solana_requestAccounts', {}, (result) =>
    JSON.stringify(result) === JSON.stringify(accounts)
      ? { valid: true }
      : { valid: false, reason: 'differs from solana_getAccounts' },
  )
  const pubkey = accounts?.[0]?.pubkey
  if (pubkey === undefined) return
  const owner = kit.address(pubkey)
  chains.solana.svm.airdrop(owner, kit.lamports(5_000_000_000n))
  const recipient = kit.address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin')
  const transfer = (amount: bigint) => {
    const message = kit.pipe(
      kit.createTransactionMessage({ version: 0 }),
      (m) => kit.setTransactionMessageFeePayer(owner, m),
      (m) =>
        kit.setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: kit.blockhash(chains.solana.svm.latestBlockhash()), lastValidBlockHeight: 1000n },
          m,
        ),
      (m) =>
        kit.appendTransactionMessageInstructions(
          [
            getTransferSolInstruction({
              source: kit.createNoopSigner(owner),
              destination: recipient,
              amount,
            }),
          ],
          m,
        ),
    )
    return kit.getBase64EncodedWireTransaction(kit.compileTransaction(message))
  }
  const message = {
    message: kit.getBase58Decoder().decode(new TextEncoder().encode('Sign in to dapp.example')),
    pubkey,
  }
  await session.step(SOLANA, 'solana_signMessage', message, (result) =>
    verify.solana.solana_signMessage!(message, result),
  )
  const signParams = { transaction: transfer(1_000_000n), pubkey }
  await session.step(SOLANA, 'solana_signTransaction', signParams, (result) =>
    verify.solana.solana_signTransaction!(signParams, result),
  )
  const allParams = { transactions: [transfer(2_000_000n), transfer(3_000_000n)] }
  await session.step(SOLANA, 'solana_signAllTransactions', allParams, (result) =>
    verify.solana.solana_signAllTransactions!(allParams, result),
  )
  const sendParams = { transaction: transfer(4_000_000n) }
  const before = chains.solana.svm.getBalance(recipient) ?? 0n
  await session.step(SOLANA, 'solana_signAndSendTransaction', sendParams, (result) => {
    const verdict = verify.solana.solana_signAndSendTransaction!(sendParams, result)
    if (!verdict.valid) return verdict
    const moved = (chains.solana.svm.getBalance(recipient) ?? 0n) - before
    return moved === 4_000_000n ? verdict : { valid: false, reason: `recipient received ${moved} lamports` }
  })
  await session.refused(
    SOLANA,
    'solana_signMessage',
    { message: kit.getBase58Decoder().decode(kit.getBase64Encoder().encode(transfer(5n))), pubkey },
    -32602,
    'a transaction passed off as a message is refused',
  )
}

async function paymentAct(chains: Chains, record: (row: DemoRow) => void): Promise<void> {
  let act: typeof import('./payment.js') | undefined
  try {
    act = await import('./payment.js')
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
