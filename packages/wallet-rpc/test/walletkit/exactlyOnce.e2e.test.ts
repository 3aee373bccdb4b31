import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Address, beginCell, Cell, storeMessage } from '@ton/core'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import { type BitcoinRegtest, startBitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'
import { serveToncenter, type ToncenterFacade } from '@wallet-rpc/devchains/toncenterFacade'
import { startTonSandbox, type TonSandbox } from '@wallet-rpc/devchains/tonSandbox'
import { SignClient } from '@walletconnect/sign-client'
import type { SessionTypes } from '@walletconnect/types'
import { createPublicClient, type Hex, http, keccak256, type PublicClient, parseEther, toHex } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { BIP122_REGTEST } from '../../src/bip122/index.js'
import { closeSdkClients, type LocalRelay, relayCore, startLocalRelay } from './localRelay.js'

/**
 * Issue 44's proof against the clients users run: a request the user approved once has one effect across a
 * crash, a lost answer and a restart. The wallet is a process of its own (exactlyOnceWallet.ts: the real
 * WalletKit on its persistent Node storage, `createWalletRpc` + `attachWalletKit` with default options), killed
 * with SIGKILL at an exact point and started again on the same directory; WalletKit then delivers the request it
 * still holds again. The dapp is a real `SignClient` whose `request` stays pending across it all, over the local
 * relay; the chains are anvil, the embedded regtest chain behind Esplora and the TON sandbox behind a toncenter
 * face, all on 127.0.0.1. Each case: one transaction on chain, one prompt, the dapp gets that transaction.
 */

const walletScript = fileURLToPath(new URL('./exactlyOnceWallet.ts', import.meta.url))
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url))
// Anvil's `test test … junk` account 0, the wallet's eip155 account (exactlyOnceWallet.ts).
const ethAccount = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
// A recipient outside the wallet: BIP-173's P2WPKH example, on regtest.
const btcRecipient = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'
// TON Connect's spec example destination, non-bounceable (the coins stay in the uninitialised account).
const tonDestination = 'UQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA07-i'
const TON_TESTNET = 'ton:-3'
/** Bound for each step that waits on another process (a start under load is the slowest: a few seconds). */
const stepMs = 30_000

type Crash = 'after-broadcast' | 'before-broadcast' | 'respond-fails' | 'answer-write' | 'answer-torn'
/** One line the wallet process reported (exactlyOnceWallet.ts). */
type Line = { event: string; [field: string]: unknown }

let relay: LocalRelay
let anvil: AnvilInstance
let bitcoin: BitcoinRegtest
let tonChain: TonSandbox
let toncenter: ToncenterFacade
let eth: PublicClient
let dapp: InstanceType<typeof SignClient>
let session: SessionTypes.Struct
let walletDir: string
const running = new Set<WalletProcess>()

beforeAll(async () => {
  ;[relay, anvil, bitcoin, tonChain, walletDir] = await Promise.all([
    startLocalRelay(),
    startAnvil(),
    startBitcoinRegtest(),
    startTonSandbox(),
    mkdtemp(join(tmpdir(), 'wallet-rpc-exactly-once-')),
  ])
  toncenter = await serveToncenter(tonChain.provider)
  eth = createPublicClient({ transport: http(anvil.url) })
  dapp = await SignClient.init({
    core: relayCore(relay, 'dapp'),
    metadata: { name: 'Example dapp', description: '', url: 'https://dapp.example.com', icons: [] },
    logger: 'silent',
  })
  const { uri, approval } = await dapp.connect({
    optionalNamespaces: {
      eip155: {
        chains: [`eip155:${anvil.chainId}`],
        methods: ['eth_sendTransaction'],
        events: ['accountsChanged'],
      },
      bip122: { chains: [BIP122_REGTEST], methods: ['sendTransfer'], events: ['bip122_addressesChanged'] },
      ton: { chains: [TON_TESTNET], methods: ['ton_sendMessage'], events: [] },
    },
  })
  if (!uri) throw new Error('SignClient.connect gave no pairing uri')
  // The first start pairs and approves the session; it lives on in the wallet's directory from then on.
  const pairing = startWallet({ PAIRING_URI: uri })
  session = await within(approval(), stepMs, 'the session approval from the wallet process', pairing)
  await pairing.stop()
}, 120_000)

// A case that failed half-way leaves no wallet process behind for the next one (they share the directory).
afterEach(async () => {
  await Promise.all([...running].map((wallet) => wallet.kill()))
})

afterAll(async () => {
  await Promise.all([...running].map((wallet) => wallet.kill()))
  await closeSdkClients([dapp])
  await Promise.all([
    relay?.close(),
    anvil?.stop(),
    bitcoin?.stop(),
    tonChain?.stop(),
    toncenter?.close(),
    walletDir === undefined ? undefined : rm(walletDir, { recursive: true, force: true }),
  ])
})

// The headline facts (effects on chain, prompts, the dapp's answer) are soft: a failure shows all of them.
// Each step is bounded by stepMs with its own message; the case's bound only backs them up.
describe('exactly once with the real WalletKit on its files, a dapp SignClient, and the wallet killed', {
  timeout: 150_000,
}, () => {
  it('eth_sendTransaction, SIGKILL right after eth_sendRawTransaction returned: one transaction, one prompt, the dapp gets its hash', async () => {
    const recipient = '0x00000000000000000000000000000000000e0001'
    const nonce = await ethNonce()
    const run = await throughCrash<Hex>('after-broadcast', ethChain(), 'eth_sendTransaction', [
      { from: ethAccount, to: recipient, value: toHex(parseEther('0.001')) },
    ])

    expect(run.exit).toEqual({ code: null, signal: 'SIGKILL' })
    expect.soft(await ethNonce(), 'transactions sent').toBe(nonce + 1)
    expect.soft(await eth.getBalance({ address: recipient }), 'wei received').toBe(parseEther('0.001'))
    expect.soft(run.prompts, 'prompts').toEqual(['eth_sendTransaction'])
    const [sent] = broadcasts(run.first)
    expect.soft(run.answer, "the dapp's answer").toBe(keccak256(sent!.bytes as Hex))
    await expectOneTransaction(run.answer, nonce, recipient)
  })

  it('eth_sendTransaction, SIGKILL right before the broadcast (signed record written): the same signed bytes go out on restart, unprompted', async () => {
    const recipient = '0x00000000000000000000000000000000000e0002'
    const nonce = await ethNonce()
    let signedBytes: Hex | undefined
    const run = await throughCrash<Hex>(
      'before-broadcast',
      ethChain(),
      'eth_sendTransaction',
      [{ from: ethAccount, to: recipient, value: toHex(parseEther('0.001')) }],
      async (first) => {
        signedBytes = first.lines.find((line) => line.event === 'crash')?.bytes as Hex
        // Died with nothing sent.
        expect(broadcasts(first)).toEqual([])
        expect(await ethNonce()).toBe(nonce)
      },
    )

    expect(run.exit).toEqual({ code: null, signal: 'SIGKILL' })
    expect.soft(await ethNonce(), 'transactions sent').toBe(nonce + 1)
    expect.soft(await eth.getBalance({ address: recipient }), 'wei received').toBe(parseEther('0.001'))
    expect.soft(run.prompts, 'prompts').toEqual(['eth_sendTransaction'])
    expect.soft(run.answer, "the dapp's answer").toBe(keccak256(signedBytes!))
    // The restarted wallet broadcast exactly the bytes signed before the crash, as WalletKit's storage kept them.
    expect(broadcasts(run.second).map((line) => line.bytes)).toEqual([signedBytes])
    // The approval and the signed bytes, each under its own key (no write replaces the signed record).
    expect(run.journalAtCrash.map((record) => (record as { state: string }).state).sort()).toEqual([
      'approved',
      'signed',
    ])
    await expectOneTransaction(run.answer, nonce, recipient)
  })

  it('eth_sendTransaction, respondSessionRequest fails (relay offline), clean exit, restart: the stored answer, nothing sent again', async () => {
    const recipient = '0x00000000000000000000000000000000000e0003'
    const nonce = await ethNonce()
    const run = await throughCrash<Hex>('respond-fails', ethChain(), 'eth_sendTransaction', [
      { from: ethAccount, to: recipient, value: toHex(parseEther('0.001')) },
    ])

    expect(run.exit).toEqual({ code: 0, signal: null })
    expect(run.first.lines.filter((line) => line.event === 'respond')).toEqual([
      { event: 'respond', id: run.id, failed: true },
    ])
    expect.soft(await ethNonce(), 'transactions sent').toBe(nonce + 1)
    expect.soft(await eth.getBalance({ address: recipient }), 'wei received').toBe(parseEther('0.001'))
    expect.soft(run.prompts, 'prompts').toEqual(['eth_sendTransaction'])
    const [sent] = broadcasts(run.first)
    expect.soft(run.answer, "the dapp's answer").toBe(keccak256(sent!.bytes as Hex))
    // Answered from the journal: the restarted wallet sent nothing at all.
    expect(broadcasts(run.second)).toEqual([])
    await expectOneTransaction(run.answer, nonce, recipient)
  })

  it('sendTransfer on regtest, SIGKILL right after the broadcast: one transaction, one prompt, the dapp gets its txid', async () => {
    const account = sessionAccount(BIP122_REGTEST)
    // Two coins: a second transfer would have been possible.
    bitcoin.fund(account, 100_000)
    bitcoin.fund(account, 100_000)
    const transactions = bitcoin.chain.transactions.size
    const run = await throughCrash<{ txid: string }>('after-broadcast', BIP122_REGTEST, 'sendTransfer', {
      account,
      recipientAddress: btcRecipient,
      amount: '25000',
    })

    expect(run.exit).toEqual({ code: null, signal: 'SIGKILL' })
    expect.soft(bitcoin.chain.transactions.size - transactions, 'transactions sent').toBe(1)
    const recipientScript = bitcoin.chain.scriptOf(btcRecipient)
    const paid = [...bitcoin.chain.outputs.values()].filter(
      (output) => Buffer.compare(output.script, recipientScript) === 0,
    )
    expect
      .soft(
        paid.map(({ value }) => value),
        'sats received',
      )
      .toEqual([25_000n])
    expect.soft(run.prompts, 'prompts').toEqual(['sendTransfer'])
    const [sent] = broadcasts(run.first)
    expect.soft(run.answer, "the dapp's answer").toEqual({ txid: paid[0]?.txid })
    expect(Buffer.from(bitcoin.chain.transactions.get(run.answer.txid)!.raw).toString('hex')).toBe(
      sent!.bytes,
    )
  })

  it('ton_sendMessage on the TON sandbox, SIGKILL right after the broadcast: one message, one prompt, the dapp gets its BoC', async () => {
    const account = sessionAccount(TON_TESTNET)
    await tonChain.fund(account, 2_000_000_000n)
    const accepted = tonChain.sent.length
    const run = await throughCrash<string>('after-broadcast', TON_TESTNET, 'ton_sendMessage', {
      valid_until: Math.floor(Date.now() / 1000) + 300,
      messages: [{ address: tonDestination, amount: '100000000' }],
    })

    expect(run.exit).toEqual({ code: null, signal: 'SIGKILL' })
    const landed = tonChain.sent.slice(accepted).map((result) => result.transactions[0]!)
    expect.soft(landed.length, 'messages accepted').toBe(1)
    const paid = landed.flatMap((transaction) =>
      [...transaction.outMessages.values()].map((message) =>
        message.info.type === 'internal' ? [message.info.dest.toRawString(), message.info.value.coins] : [],
      ),
    )
    expect.soft(paid, 'nanotons sent').toEqual([[Address.parse(tonDestination).toRawString(), 100_000_000n]])
    expect.soft(run.prompts, 'prompts').toEqual(['ton_sendMessage'])
    const [sent] = broadcasts(run.first)
    expect.soft(run.answer, "the dapp's answer").toBe(sent!.bytes)
    // The message the chain accepted is the BoC the dapp got.
    const inMessage = beginCell().store(storeMessage(landed[0]!.inMessage!)).endCell()
    expect(inMessage.hash().toString('hex')).toBe(
      Cell.fromBoc(Buffer.from(run.answer, 'base64'))[0]!.hash().toString('hex'),
    )
    // The wallet's seqno moved once: the first message of a wallet that was not deployed yet.
    expect(await tonChain.provider.getSeqno(Address.parse(account).toRawString())).toBe(1)
  })
})

// Two windows found by reproducing them here (both failed before the journal kept each step under its own key
// and named the signed transaction when it cannot be sent again).
describe('the narrow windows', { timeout: 150_000 }, () => {
  it("a SIGKILL while WalletKit's Node storage writes the answer (its files are replaced by unlink, then write): still one transaction", async () => {
    const recipient = '0x00000000000000000000000000000000000e0004'
    const nonce = await ethNonce()
    const run = await throughCrash<Hex>('answer-write', ethChain(), 'eth_sendTransaction', [
      { from: ethAccount, to: recipient, value: toHex(parseEther('0.001')) },
    ])
    expect(run.exit).toEqual({ code: null, signal: 'SIGKILL' })
    expect(await ethNonce(), 'transactions sent').toBe(nonce + 1)
    expect(await eth.getBalance({ address: recipient }), 'wei received').toBe(parseEther('0.001'))
    expect(run.prompts, 'prompts').toEqual(['eth_sendTransaction'])
  })

  it('a SIGKILL inside the write of the answer, leaving its file empty: the signed record under it is sent again, one transaction', async () => {
    const recipient = '0x00000000000000000000000000000000000e0006'
    const nonce = await ethNonce()
    const run = await throughCrash<Hex>('answer-torn', ethChain(), 'eth_sendTransaction', [
      { from: ethAccount, to: recipient, value: toHex(parseEther('0.001')) },
    ])
    expect(run.exit).toEqual({ code: null, signal: 'SIGKILL' })
    expect(await ethNonce(), 'transactions sent').toBe(nonce + 1)
    expect(await eth.getBalance({ address: recipient }), 'wei received').toBe(parseEther('0.001'))
    expect(run.prompts, 'prompts').toEqual(['eth_sendTransaction'])
  })

  it('the chain unreachable when the wallet restarts after a broadcast: the wallet keeps trying while the dapp waits, and answers the hash once it is back', async () => {
    const recipient = '0x00000000000000000000000000000000000e0005'
    const nonce = await ethNonce()
    const gate = await startGate(anvil.url)
    try {
      const run = throughCrash<Hex>(
        'after-broadcast',
        ethChain(),
        'eth_sendTransaction',
        [{ from: ethAccount, to: recipient, value: toHex(parseEther('0.001')) }],
        undefined,
        { ANVIL_URL: gate.url },
      )
      // Down for the restart and a few seconds more (the wallet retries with backoff), then back.
      await gate.refusedAtLeast(1, stepMs)
      gate.open()
      const { answer, prompts } = await run
      await expectOneTransaction(answer, nonce, recipient)
      expect(prompts).toEqual(['eth_sendTransaction'])
    } finally {
      await gate.close()
    }
  })
})

/**
 * A TCP gate in front of a node: while closed it drops every connection (the chain unreachable), once opened it
 * forwards them.
 */
async function startGate(target: string) {
  const { createServer, connect } = await import('node:net')
  const { hostname, port } = new URL(target)
  let isOpen = false
  let refused = 0
  const server = createServer((socket) => {
    if (!isOpen) {
      refused++
      socket.destroy()
      return
    }
    const upstream = connect(Number(port), hostname)
    socket.pipe(upstream).pipe(socket)
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${address.port}`,
    open: () => {
      isOpen = true
    },
    async refusedAtLeast(count: number, timeoutMs: number) {
      const deadline = Date.now() + timeoutMs
      while (refused < count) {
        if (Date.now() > deadline) throw new Error('the restarted wallet never tried the chain')
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

const ethChain = () => `eip155:${anvil.chainId}`
/** The wallet account's next nonce, counting the node's pending transactions: how many it ever sent. */
const ethNonce = () => eth.getTransactionCount({ address: ethAccount, blockTag: 'pending' })

/**
 * The user's path through a crash: the wallet starts with its crash point armed, the dapp asks, the wallet dies
 * there (`whileDown` then looks at the chain), the wallet starts again on the same files and answers the request
 * WalletKit still holds; the dapp's one `request` call resolves. Both processes' reports are returned, with the
 * request's id and journal key and the journal's record of it when the wallet died.
 */
async function throughCrash<T>(
  crash: Crash,
  chainId: string,
  method: string,
  params: unknown,
  whileDown?: (first: WalletProcess) => Promise<void>,
  restartEnv: Record<string, string> = {},
): Promise<{
  answer: T
  exit: Exit
  prompts: unknown[]
  first: WalletProcess
  second: WalletProcess
  id: number
  journalAtCrash: unknown[]
}> {
  const first = startWallet({ CRASH: crash })
  await first.next((line) => line.event === 'ready', 'the wallet to start')
  const answer = dapp.request<T>({ topic: session.topic, chainId, request: { method, params } }).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  )
  const { id } = (await first.next(
    (line) => line.event === 'request' && line.method === method,
    `the wallet to receive ${method}`,
  )) as Line & { id: number }
  const exit = await within(first.exited, stepMs, `the wallet process to end at ${crash}`, first)
  await whileDown?.(first)
  const second = startWallet(restartEnv)
  const outcome = await within(answer, stepMs, `the dapp's answer after the restart`, second)
  if ('error' in outcome) {
    await second.stop()
    throw new Error(`the dapp got an error: ${JSON.stringify(outcome.error)}`)
  }
  await second.next(
    (line) => line.event === 'respond' && line.id === id,
    'the restarted wallet to report its answer',
  )
  await second.stop()
  const prompts = [...first.lines, ...second.lines]
    .filter((line) => line.event === 'approve')
    .map((line) => line.method)
  const key = `wc:${session.topic}:${id}`
  const crashed = first.lines.find((line) => line.event === 'crash')
  const journalAtCrash = ((crashed?.journal ?? []) as { key: string }[]).filter(
    (record) => record.key === key,
  )
  return { answer: outcome.value, exit, prompts, first, second, id, journalAtCrash }
}

/** The chain holds `hash`, mined, from the wallet's account at `nonce`, paying 0.001 ETH to `recipient`. */
async function expectOneTransaction(hash: Hex, nonce: number, recipient: string): Promise<void> {
  const transaction = await eth.getTransaction({ hash })
  expect(transaction).toMatchObject({ from: ethAccount.toLowerCase(), nonce, value: parseEther('0.001') })
  expect(transaction.to?.toLowerCase()).toBe(recipient)
  expect((await eth.getTransactionReceipt({ hash })).status).toBe('success')
}

/** The successful broadcasts a wallet process reported. */
function broadcasts(wallet: WalletProcess): Line[] {
  return wallet.lines.filter((line) => line.event === 'broadcast' && line.error === undefined)
}

function sessionAccount(chainId: string): string {
  const [namespace] = chainId.split(':')
  const account = session.namespaces[namespace!]?.accounts.find((caip10) => caip10.startsWith(`${chainId}:`))
  if (account === undefined) throw new Error(`the session has no account on ${chainId}`)
  return account.slice(chainId.length + 1)
}

type Exit = { code: number | null; signal: NodeJS.Signals | null }

type WalletProcess = {
  lines: Line[]
  exited: Promise<Exit>
  /** The first line `matches` accepts (already reported or to come); rejects when the process ends first. */
  next(matches: (line: Line) => boolean, what: string): Promise<Line>
  /** What it wrote on stderr, for failure messages. */
  stderr(): string
  /** SIGTERM (a clean exit), then SIGKILL if it has not ended in time. */
  stop(): Promise<void>
  /** SIGKILL, resolved once it ended. */
  kill(): Promise<Exit>
}

/** Starts exactlyOnceWallet.ts on the shared directory, relay and chains; `env` adds the start's own. */
function startWallet(env: Record<string, string>): WalletProcess {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', walletScript], {
    cwd: repoRoot,
    env: {
      ...process.env,
      WALLET_DIR: walletDir,
      RELAY_URL: relay.url,
      ANVIL_URL: anvil.url,
      ANVIL_CHAIN_ID: String(anvil.chainId),
      ESPLORA_URL: bitcoin.url,
      TONCENTER_URL: toncenter.url,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: Line[] = []
  const waiting = new Set<() => void>()
  let stderr = ''
  let buffered = ''
  child.stdout!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    buffered += chunk
    const complete = buffered.split('\n')
    buffered = complete.pop()!
    for (const text of complete) if (text.trim() !== '') lines.push(parseLine(text))
    for (const check of waiting) check()
  })
  child.stderr!.setEncoding('utf8')
  child.stderr!.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  let ended = false
  const exited = new Promise<Exit>((resolve) =>
    // 'close', not 'exit': every line it wrote before it died has been read by then.
    child.on('close', (code, signal) => {
      ended = true
      running.delete(wallet)
      for (const check of waiting) check()
      resolve({ code, signal })
    }),
  )
  const wallet: WalletProcess = {
    lines,
    exited,
    stderr: () => stderr,
    next(matches, what) {
      const found = new Promise<Line>((resolve, reject) => {
        const check = () => {
          const line = lines.find(matches)
          if (line !== undefined || ended) waiting.delete(check)
          if (line !== undefined) resolve(line)
          else if (ended)
            reject(new Error(`the wallet process ended while waiting for ${what}${tail(wallet)}`))
        }
        waiting.add(check)
        check()
      })
      return within(found, stepMs, what, wallet)
    },
    async stop() {
      if (ended) return
      child.kill('SIGTERM')
      await within(exited, stepMs, 'the wallet process to stop on SIGTERM', wallet).catch((error) => {
        child.kill('SIGKILL')
        throw error
      })
    },
    kill() {
      if (!ended) child.kill('SIGKILL')
      return exited
    },
  }
  running.add(wallet)
  return wallet
}

/** A report line; anything else a library printed is kept as text. */
function parseLine(text: string): Line {
  try {
    const line = JSON.parse(text) as unknown
    if (typeof line === 'object' && line !== null && 'event' in line) return line as Line
  } catch {}
  return { event: 'stdout', text }
}

function tail(wallet: WalletProcess | undefined): string {
  if (wallet === undefined) return ''
  const reported = wallet.lines.map((line) => JSON.stringify(line)).join('\n')
  return `\nreported:\n${reported}\nstderr:\n${wallet.stderr()}`
}

/** `promise`, or a rejection saying what did not happen within `ms` (with the wallet process's output). */
async function within<T>(promise: Promise<T>, ms: number, what: string, wallet?: WalletProcess): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${ms} ms waiting for ${what}${tail(wallet)}`)),
      ms,
    )
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}
