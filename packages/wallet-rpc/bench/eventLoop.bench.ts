import { fork } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { base58 } from '@scure/base'
import { beginCell } from '@ton/core'
import { manyInputParents, manyInputPsbt } from '../test/bip122/manyInputPsbt.js'
import { typedDataBatch } from '../test/eip155/typedDataBatch.js'
import { fundDistinctParents } from './coreCoins.js'
import { measure, type Sample } from './measure.js'
import { solanaTransfer } from './solanaTransfer.js'

/**
 * The longest time one request keeps the event loop from running anything else (a frozen UI in a React
 * Native JS thread or an extension), through `handle()` at the largest size each limit admits, with the
 * request's total time and, for scale, the raw signatures it needs (see `longestBlock`). Target: ≤ 50 ms,
 * total ≤ 2× the raw signatures. sendTransfer's raw is all it cannot skip (signatures, their verification,
 * its chain reads), its ratio to the signatures alone printed below the table (target ≤ 5×), on Esplora and,
 * where Debian's litecoind is installed, on Bitcoin Core's JSON-RPC (the row is left out without it). Runs on
 * the built package.
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const now = () => performance.now()

/**
 * `task`'s wall and CPU time in ms (bench/measure.ts, one call; CPU, unlike wall time, is not stretched when
 * other jobs share the cores).
 */
async function spanOf(task: () => unknown): Promise<Sample> {
  const { wall, cpu } = await measure(1, task)
  return { wall: wall / 1000, cpu: cpu / 1000 }
}

/**
 * Runs `task` with a probe beside it (a 1 ms timer, re-armed at each turn, as bench/platforms does; a
 * `setImmediate` loop would spin through the request's I/O waits and bill its CPU to the request). The
 * longest block is the longest wall-clock gap between two turns of the probe (over-stated by at most the
 * timer's millisecond): the time nothing else could run. `monitorEventLoopDelay`'s largest delay (libuv's
 * own timer) is a cross-check. The probe reads only the wall clock: `process.cpuUsage()` at every turn cost
 * 210 ms of CPU over a 17 s sendTransfer, billed to the request. The total is given in wall and CPU time
 * (`process.cpuUsage()` counts every thread, V8's GC helpers too, so CPU can exceed wall).
 */
export async function longestBlock(
  task: () => Promise<unknown>,
): Promise<{ total: Sample; longestWall: number; loopDelayMax: number }> {
  let longestWall = 0
  let last = now()
  let done = false
  const tick = () => {
    const at = now()
    longestWall = Math.max(longestWall, at - last)
    last = at
    if (!done) setTimeout(tick, 1)
  }
  const loopDelay = monitorEventLoopDelay({ resolution: 1 })
  loopDelay.enable()
  setTimeout(tick, 1)
  const total = await spanOf(task)
  done = true
  tick()
  loopDelay.disable()
  return { total, longestWall, loopDelayMax: loopDelay.max / 1e6 }
}

/**
 * With EVENT_LOOP_PROFILE=dir, a V8 CPU profile of the run alone (no setup, warm-up or probe), written to
 * dir/<request>.cpuprofile for DevTools or `node --cpu-prof`'s tools.
 */
async function profiled<T>(name: string, measured: () => Promise<T>): Promise<T> {
  const folder = process.env.EVENT_LOOP_PROFILE
  if (!folder) return measured()
  const session = new Session()
  session.connect()
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (error, result) => (error ? reject(error) : resolve(result))),
    )
  await post('Profiler.enable')
  await post('Profiler.start')
  const result = await measured()
  const { profile } = (await post('Profiler.stop')) as { profile: unknown }
  session.disconnect()
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, `${name.replace(/[^\w]+/g, '-')}.cpuprofile`), JSON.stringify(profile))
  return result
}

/**
 * A chain provider that records the reads a request makes up to its broadcast (to replay them alone, as the
 * raw cost of talking to the chain) and times the broadcast: the chain checks every signature before it
 * answers, and that wait is the chain's time, not the wallet's. After a send the wallet refreshes its coins
 * in the background; those reads are not the request's, and `idle` waits for them to end.
 */
function chainRecorder() {
  let reads: (() => Promise<unknown>)[] = []
  let recording = true
  let inFlight = 0
  let broadcastWall = 0
  const wrap = <P extends object>(provider: P): P =>
    Object.fromEntries(
      Object.entries(provider).map(([key, value]) => {
        if (typeof value !== 'function') return [key, value]
        const call = value as (...args: unknown[]) => Promise<unknown>
        return [
          key,
          async (...args: unknown[]) => {
            const broadcast = key === 'broadcast'
            if (broadcast) recording = false
            else if (recording) reads.push(() => call(...args))
            inFlight++
            const start = now()
            try {
              return await call(...args)
            } finally {
              inFlight--
              if (broadcast) broadcastWall += now() - start
            }
          },
        ]
      }),
    ) as P
  /** Until no call has been in flight for 100 ms (the background refresh reads in several rounds). */
  const idle = async () => {
    for (let quiet = 0; quiet < 20; quiet = inFlight === 0 ? quiet + 1 : 0) {
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }
  return {
    wrap,
    idle,
    /** Once idle, forgets what was recorded and records the next request. */
    async reset(): Promise<void> {
      await idle()
      reads = []
      broadcastWall = 0
      recording = true
    },
    broadcastWall: () => broadcastWall,
    /**
     * The recorded reads again, straight to the provider, 8 calls at a time (a `rawTransactions` batch is one
     * call, which the provider spreads over its own requests in flight, as when the wallet made it).
     */
    async replayReads(): Promise<void> {
      for (let start = 0; start < reads.length; start += 8) {
        await Promise.all(reads.slice(start, start + 8).map((read) => read()))
      }
    },
  }
}

const built = <T>(path: string): Promise<T> => import(new URL(`../dist/${path}`, import.meta.url).href)

/**
 * Each case runs three times: a warm-up (JIT, WASM tier-up), a run beside the probe for the longest block, and
 * a run alone for the total (the probe's 1 ms timer costs about 36 ms of CPU per second, which is not the
 * request's); then its raw cost, measured after the runs. `warmUp`: a request of its own when `run` cannot
 * repeat itself (sendTransfer spends other coins each time). `oneSignature`: its work is hashing, not
 * signing, so no ratio to the raw signature is printed. `chain`: the request talks to a chain, whose
 * broadcast answer is not the wallet's time (it is taken out of the wall time).
 */
type Case = {
  name: string
  run: () => Promise<unknown>
  raw: () => void | Promise<void>
  warmUp?: () => Promise<unknown>
  oneSignature?: boolean
  chain?: { reset: () => Promise<void>; idle: () => Promise<void>; broadcastWall: () => number }
  /** sendTransfer's raw, CPU ms by part, once measured. */
  parts?: { signing: number; verifying: number; reading: number }
}

export async function run(): Promise<void> {
  const { createWalletRpc } = await built<typeof import('../src/createWalletRpc.js')>('createWalletRpc.js')
  const bip = await built<typeof import('../src/bip122/index.js')>('bip122/index.js')
  const { serializeTransaction, transactionId } = await built<
    typeof import('../src/bip122/transaction/transaction.js')
  >('bip122/transaction/transaction.js')
  const evm = await built<typeof import('../src/eip155/index.js')>('eip155/index.js')
  const tonNs = await built<typeof import('../src/ton/index.js')>('ton/index.js')
  const sol = await built<typeof import('../src/solana/index.js')>('solana/index.js')
  const { typedDataLimits } = await built<typeof import('../src/eip155/typedData.js')>('eip155/typedData.js')
  const { ecc } = await built<typeof import('../src/crypto/secp256k1.js')>('crypto/secp256k1.js')
  const { ed25519 } = await built<typeof import('../src/crypto/ed25519.js')>('crypto/ed25519.js')

  const step = (what: string) => process.env.EVENT_LOOP_VERBOSE && console.log(`  … ${what}`)
  let id = 0
  const answer = async (
    rpc: ReturnType<typeof createWalletRpc>,
    chainId: string,
    method: string,
    params: unknown,
  ) => {
    const response = await rpc.handle({ chainId, request: { jsonrpc: '2.0', id: ++id, method, params } })
    if (!('result' in response)) throw new Error(`${method}: ${JSON.stringify(response).slice(0, 400)}`)
    return response.result
  }
  const digest = new Uint8Array(32).fill(7)
  const secpKey = new Uint8Array(32).fill(1)
  const rawEcdsa = (count: number) => () => {
    for (let i = 0; i < count; i++) ecc.sign(digest, secpKey)
  }
  // Uncompressed, as the wallet verifies (sign.ts: no square root per verification).
  const secpPublicKey = ecc.pointFromScalar(secpKey, false)!
  const secpSignature = ecc.sign(digest, secpKey)
  const rawEcdsaVerify = (count: number) => () => {
    for (let i = 0; i < count; i++) ecc.verify(digest, secpPublicKey, secpSignature)
  }
  const rawSchnorr = (count: number) => () => {
    for (let i = 0; i < count; i++) ecc.signSchnorr(digest, secpKey, digest)
  }
  const edKey = ed25519().fromSeed(new Uint8Array(32).fill(42))
  const rawEd25519 = (count: number) => () => {
    for (let i = 0; i < count; i++) edKey.sign(digest)
  }

  // bip122: signPsbt with 3000 inputs of each kind on a wallet without a chain provider (a signing-only
  // wallet: a P2WPKH input then proves its amount with its parent transaction, nonWitnessUtxo), and
  // sendTransfer from 3000 coins on the embedded chain, on a wallet created once that chain is funded.
  const signingNamespace = bip.bip122({
    keys: bip.hdKeys({ mnemonic }),
    chains: { [bip.BIP122_REGTEST]: {} },
  })
  const signer = createWalletRpc({ namespaces: [signingNamespace], approve: () => true })
  const wallet = createWalletRpc({
    namespaces: [
      evm.eip155({ keys: evm.mnemonicKeys({ mnemonic }), chains: [1] }),
      tonNs.ton({
        keys: tonNs.tonKeys.fromSecretKey(new Uint8Array(32).fill(42)),
        chains: ['ton:-239'],
        providers: {
          'ton:-239': {
            getAccount: async () => ({ state: 'active', balance: 10n ** 15n }),
            getSeqno: async () => 5,
            sendBoc: async () => ({}),
          },
        },
      }),
      sol.solana({
        keys: sol.solanaKeys.fromSecretKey(new Uint8Array(32).fill(42)),
        chains: [sol.solanaMainnet],
        policy: { maxTransactions: 10_000 },
      }),
    ],
    approve: () => true,
  })
  const { account } = await signingNamespace.wallet.chain(bip.BIP122_REGTEST)
  const payment = await account.address(84, 0, 0)
  const taproot = await account.address(86, 0, 0)
  // P2WPKH inputs carry their parent (the signing-only wallet's amount proof), P2TR ones their spent output.
  const signPsbt = (owner: typeof payment, inputs: number) => {
    const withParents = owner.addressType !== 'p2tr'
    const params = manyInputPsbt({
      account: account.id,
      owners: [owner],
      count: inputs,
      seed: 9,
      parents: withParents,
      witnessUtxo: true,
    })
    return () => answer(signer, bip.BIP122_REGTEST, 'signPsbt', params)
  }
  // P2WPKH inputs with only their spent output (witnessUtxo), on a wallet with a chain provider: the wallet
  // fetches each parent itself (rawTransaction, answered from memory at once, so nothing but the wallet's own
  // work sits between two turns) and checks its hash and amount. Each run signs other coins: the wallet keeps
  // verified parents, and a parent met before would not be fetched again.
  const fetchedRuns = [11, 12, 13].map((seed) => {
    const options = { account: account.id, owners: [payment], count: 3000, seed }
    return {
      params: manyInputPsbt({ ...options, parents: false, witnessUtxo: true }),
      parents: manyInputParents(options),
    }
  })
  const served = new Map(
    fetchedRuns.flatMap(({ parents }) =>
      parents.map((parent) => [transactionId(parent), serializeTransaction(parent)] as const),
    ),
  )
  const parentsProvider: import('../src/bip122/types.js').ChainProvider = {
    utxos: async () => [],
    addressActivity: async () => ({ txCount: 0 }),
    feeRates: async () => ({ '1': 1 }),
    async rawTransaction(txid) {
      const raw = served.get(txid)
      if (raw === undefined) throw new Error(`no transaction ${txid}`)
      return raw
    },
    broadcast: async () => {
      throw new Error('signPsbt sends nothing')
    },
  }
  const fetcher = createWalletRpc({
    namespaces: [
      bip.bip122({
        keys: bip.hdKeys({ mnemonic }),
        chains: { [bip.BIP122_REGTEST]: { provider: parentsProvider } },
      }),
    ],
    approve: () => true,
  })
  let fetchedRun = 0
  const signPsbtFetchingParents = () =>
    answer(fetcher, bip.BIP122_REGTEST, 'signPsbt', fetchedRuns[fetchedRun++ % fetchedRuns.length]!.params)
  // sendTransfer's chains start only when their row runs (funding the coins takes a while), each in a process
  // of its own: its signature checks must count neither as a block of ours nor in our CPU time.
  type TransferChain = { sender: ReturnType<typeof createWalletRpc>; stop: () => Promise<void> }
  const addresses = () => Promise.all(Array.from({ length: 30 }, (_, i) => account.address(84, 0, i)))
  const senderOn = async (provider: import('../src/bip122/types.js').ChainProvider) => {
    const namespace = bip.bip122({
      keys: bip.hdKeys({ mnemonic }),
      chains: { [bip.BIP122_REGTEST]: { provider } },
    })
    await (await namespace.wallet.chain(bip.BIP122_REGTEST)).account.refresh()
    return createWalletRpc({ namespaces: [namespace], approve: () => true })
  }
  // The embedded regtest chain behind Esplora (one request per parent; `esplora()` keeps 8 in flight).
  const esploraChain = async (recording: ReturnType<typeof chainRecorder>): Promise<TransferChain> => {
    step('starting the regtest chain, funding 4500 coins')
    const child = fork(fileURLToPath(new URL('./regtestProcess.mjs', import.meta.url)), [], { execArgv: [] })
    const next = () => new Promise<unknown>((resolve) => child.once('message', resolve))
    const { url } = (await next()) as { url: string }
    const owners = await addresses()
    child.send({
      // 3000 for the measured transfers (1450 each, beside the probe and alone), 1500 spare for the warm-up.
      fund: Array.from({ length: 4500 }, (_, i) => ({ address: owners[i % 30]!.address, sats: 10_000 })),
    })
    await next()
    const sender = await senderOn(recording.wrap(bip.esplora(url, { retries: 0, timeoutMs: 120_000 })))
    const stop = async () => {
      child.send('stop')
      await next()
    }
    return { sender, stop }
  }
  // Debian's litecoind (Bitcoin Core 0.21's node) through `bitcoinCore()`: the parents in JSON-RPC batches.
  // Each coin has a funding transaction of its own (bench/coreCoins.ts), so every coin has a parent of its own.
  const coreChain = async (recording: ReturnType<typeof chainRecorder>): Promise<TransferChain> => {
    step('starting litecoind, funding 3100 coins, one transaction each')
    const { startLitecoind } = await import('@wallet-rpc/devchains/litecoind')
    const node = await startLitecoind()
    const owners = await addresses()
    await fundDistinctParents(
      node,
      owners.map((owner) => owner.scriptPubKey),
      3100,
      coreCoinSats,
    )
    const provider = bip.bitcoinCore({ url: node.url, auth: node.auth, timeoutMs: 120_000 })
    coreFeeRate = Math.max(...Object.values(await provider.feeRates()))
    return { sender: await senderOn(recording.wrap(provider)), stop: () => node.stop() }
  }
  const coreCoinSats = 20_000
  let coreFeeRate = 1
  const { litecoindPath } = await import('@wallet-rpc/devchains/litecoind')
  const recipient = (await account.address(84, 0, 40)).address
  /**
   * A sendTransfer row on `start`'s chain: as many coins as a standard transaction holds (400 000 weight
   * units, about 1470 P2WPKH inputs; nodes refuse a larger one), 1450 for `amount()`; the warm-up sends about
   * 100 coins' worth through the same code. Its raw is what the request cannot do without: 1450 signatures,
   * 1450 verifications before broadcast (as Bitcoin Core's CKey::Sign checks each signature it makes), and its
   * reads of the chain (the coins, and each coin's parent transaction: the segwit-v0 amount proof), replayed
   * alone through the same provider.
   */
  const transferCase = (
    name: string,
    start: (recording: ReturnType<typeof chainRecorder>) => Promise<TransferChain>,
    amount: (coins: number) => string,
  ): Case => {
    const recording = chainRecorder()
    let chain: TransferChain | undefined
    const send = (coins: number) => () =>
      answer(chain!.sender, bip.BIP122_REGTEST, 'sendTransfer', {
        account: account.id,
        recipientAddress: recipient,
        amount: amount(coins),
      })
    const row: Case = {
      name: `${name} (raw: 1450 signatures + 1450 verifications + its chain reads)`,
      run: send(1450),
      raw: async () => {
        const signing = (await spanOf(rawEcdsa(1450))).cpu
        const verifying = (await spanOf(rawEcdsaVerify(1450))).cpu
        const reading = (await spanOf(() => recording.replayReads())).cpu
        row.parts = { signing, verifying, reading }
      },
      warmUp: async () => {
        if (chain === undefined) {
          const started = await start(recording)
          chain = started
          stops.push(async () => {
            await started.sender.close()
            await started.stop()
          })
        }
        await send(100)()
      },
      chain: recording,
    }
    return row
  }
  const stops: (() => Promise<void>)[] = []

  const evmAccount = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
  // The most values the limits admit: 4 for the domain and message, 22 per entry of 18 amounts.
  const typedData = typedDataBatch({
    entries: Math.min(Math.floor((typedDataLimits.maxValues - 4) / 22), typedDataLimits.maxArrayLength),
    amounts: 18,
    salt: 'limits',
    owner: evmAccount,
  })

  const comment = beginCell().storeUint(0, 32).storeStringTail('thanks').endCell().toBoc().toString('base64')
  const tonMessages = Array.from({ length: 255 }, (_, i) => ({
    address: 'EQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA0-Jn',
    amount: String(1000 + i),
    payload: comment,
  }))

  const solOwner = base58.encode(edKey.publicKey)
  const solDistinct = Array.from({ length: 100 }, (_, i) => solanaTransfer(solOwner, BigInt(1000 + i)).wire)
  // 100 distinct transactions, each 100 times: building 10 000 with @solana/kit takes longer than signing them.
  const solTransactions = Array.from({ length: 10_000 }, (_, i) => solDistinct[i % 100]!)

  const cases: Case[] = [
    {
      name: 'signPsbt, 3000 P2WPKH inputs (each with its parent)',
      run: signPsbt(payment, 3000),
      raw: rawEcdsa(3000),
    },
    {
      name: 'signPsbt, 3000 P2WPKH inputs (witnessUtxo only: the wallet fetches each parent)',
      run: signPsbtFetchingParents,
      raw: rawEcdsa(3000),
    },
    { name: 'signPsbt, 3000 P2TR inputs', run: signPsbt(taproot, 3000), raw: rawSchnorr(3000) },
    {
      name: `eth_signTypedData_v4, ${typedDataLimits.maxValues} values`,
      run: () => answer(wallet, 'eip155:1', 'eth_signTypedData_v4', [evmAccount, typedData]),
      raw: rawEcdsa(1),
      oneSignature: true,
    },
    {
      name: 'ton_sendMessage, 255 messages (v5R1)',
      run: () => answer(wallet, 'ton:-239', 'ton_sendMessage', [{ messages: tonMessages }]),
      raw: rawEd25519(1),
      oneSignature: true,
    },
    {
      name: 'solana_signAllTransactions, 10000 (policy cap)',
      run: () =>
        answer(wallet, sol.solanaMainnet, 'solana_signAllTransactions', { transactions: solTransactions }),
      raw: rawEd25519(10_000),
    },
    // At the chain's 2 sat/vB, 1450 coins of 10 000 sat pay 14.3 M sat and the fee.
    transferCase('sendTransfer, 1450 coins, Esplora', esploraChain, (coins) =>
      coins === 1450 ? '14300000' : '990000',
    ),
    ...(litecoindPath() === undefined
      ? []
      : [
          // What `coins` coins of 20 000 sat leave after the fee at the node's rate (68 vB per P2WPKH input),
          // less 10 000 sat: the change clears Litecoin's dust threshold, higher than Bitcoin's.
          transferCase('sendTransfer, 1450 coins, Bitcoin Core (litecoind)', coreChain, (coins) =>
            String(Math.floor(coins * (coreCoinSats - 69 * coreFeeRate) - 200 * coreFeeRate - 10_000)),
          ),
        ]),
  ]
  const only = process.env.EVENT_LOOP_FILTER ?? ''
  console.log(
    `load average: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  )
  console.log(
    '| request | longest block, wall (loop delay max) | total, wall (CPU) | raw signatures, wall (CPU) | total ÷ raw, wall (CPU) | load |',
  )
  console.log('| --- | --- | --- | --- | --- | --- |')
  const notes: string[] = []
  try {
    for (const testCase of cases.filter((candidate) => candidate.name.includes(only))) {
      const { name, run, raw, warmUp, oneSignature } = testCase
      step(name)
      await (warmUp ?? run)()
      await testCase.chain?.idle()
      const { longestWall, loopDelayMax } = await longestBlock(run)
      await testCase.chain?.reset()
      const total = await spanOf(() => profiled(name, run))
      await testCase.chain?.idle()
      const rawSpan = await spanOf(raw)
      const awaitingBroadcast = testCase.chain?.broadcastWall() ?? 0
      const own = total.wall - awaitingBroadcast
      // OVER only when the loop really was blocked (wall time) more than 50 ms.
      const verdict = longestWall <= 50 ? 'OK' : 'OVER'
      const ratio = oneSignature
        ? '— (one signature)'
        : `${(own / rawSpan.wall).toFixed(2)}× (${(total.cpu / rawSpan.cpu).toFixed(2)}×)`
      const wall = testCase.chain
        ? `${own.toFixed(0)} ms + ${awaitingBroadcast.toFixed(0)} awaiting the chain's broadcast answer`
        : `${own.toFixed(0)} ms`
      if (testCase.parts) {
        const { signing, verifying, reading } = testCase.parts
        notes.push(
          `${name.split(',')[0]}: raw CPU 1450 signatures ${signing.toFixed(0)} ms, 1450 verifications ${verifying.toFixed(0)} ms, its chain reads ${reading.toFixed(0)} ms; total CPU ÷ the signatures alone ${(total.cpu / signing).toFixed(2)}×`,
        )
      }
      console.log(
        `| ${name} | ${longestWall.toFixed(1)} ms ${verdict} (${loopDelayMax.toFixed(1)}) | ${wall} (${total.cpu.toFixed(0)}) | ${rawSpan.wall.toFixed(0)} ms (${rawSpan.cpu.toFixed(0)}) | ${ratio} | ${loadavg()[0]!.toFixed(2)} |`,
      )
    }
    for (const note of notes) console.log(`\n${note}`)
  } finally {
    await wallet.close()
    await signer.close()
    await fetcher.close()
    for (const stop of stops) await stop()
  }
}
