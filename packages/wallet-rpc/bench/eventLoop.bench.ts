import { loadavg } from 'node:os'
import { base58, base64 } from '@scure/base'
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import { beginCell } from '@ton/core'
import { startBitcoinRegtest } from '@wallet-rpc/devchains/bitcoinRegtest'
import { psbtFromUnsignedTransaction } from '../src/bip122/psbt/build.js'

/**
 * The longest time one request keeps the event loop from running anything else (a frozen UI in a React
 * Native JS thread or an extension), through `handle()` at the largest size each limit admits, with the
 * request's total time and, for scale, the raw signatures it needs. A `setImmediate` probe runs beside the
 * request; the longest gap between two of its turns is the longest block. Target: ≤ 50 ms, total ≤ 2× the
 * raw signatures. Runs on the built package (`dist/`).
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const now = () => performance.now()

/** Runs `task` with a probe beside it: its total wall time and the longest stretch without a turn. */
export async function longestBlock(
  task: () => Promise<unknown>,
): Promise<{ total: number; longest: number }> {
  let longest = 0
  let last = now()
  let done = false
  const tick = () => {
    const at = now()
    if (at - last > longest) longest = at - last
    last = at
    if (!done) setImmediate(tick)
  }
  setImmediate(tick)
  const start = now()
  await task()
  const total = now() - start
  done = true
  if (now() - last > longest) longest = now() - last
  return { total, longest }
}

const built = <T>(path: string): Promise<T> => import(new URL(`../dist/${path}`, import.meta.url).href)

/** `once`: the request can run only once (it spends the coins), so no warm-up run. */
type Case = { name: string; run: () => Promise<unknown>; raw: () => void; once?: boolean }

export async function run(): Promise<void> {
  const { createWalletRpc } = await built<typeof import('../src/createWalletRpc.js')>('createWalletRpc.js')
  const bip = await built<typeof import('../src/bip122/index.js')>('bip122/index.js')
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
  const rawSchnorr = (count: number) => () => {
    for (let i = 0; i < count; i++) ecc.signSchnorr(digest, secpKey, digest)
  }
  const edKey = ed25519().fromSeed(new Uint8Array(32).fill(42))
  const rawEd25519 = (count: number) => () => {
    for (let i = 0; i < count; i++) edKey.sign(digest)
  }

  // bip122: signPsbt with 3000 inputs of each kind, sendTransfer from 3000 coins on the embedded chain.
  // The chain starts only when the sendTransfer row runs (funding 3000 coins takes a while).
  let chain: Awaited<ReturnType<typeof startBitcoinRegtest>> | undefined
  let esplora: ReturnType<typeof bip.esplora> | undefined
  const provider = () => {
    if (chain === undefined) throw new Error('no chain yet')
    esplora ??= bip.esplora(chain.url, { retries: 0 })
    return esplora
  }
  const namespace = bip.bip122({
    keys: bip.hdKeys({ mnemonic }),
    chains: {
      [bip.BIP122_REGTEST]: {
        provider: {
          utxos: (address) => provider().utxos(address),
          addressActivity: (address) => provider().addressActivity(address),
          feeRates: () => provider().feeRates(),
          rawTransaction: (txid) => provider().rawTransaction(txid),
          broadcast: (raw) => provider().broadcast(raw),
        },
      },
    },
  })
  const wallet = createWalletRpc({
    namespaces: [
      namespace,
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
  const { account } = await namespace.wallet.chain(bip.BIP122_REGTEST)
  const payment = await account.address(84, 0, 0)
  const taproot = await account.address(86, 0, 0)
  // Built from an unsigned transaction (bitcoinjs' addInput with witnessUtxo is quadratic: minutes at 3000).
  const psbtOf = (owner: typeof payment, inputs: number) => {
    const psbt = psbtFromUnsignedTransaction({
      version: 2,
      locktime: 0,
      inputs: Array.from({ length: inputs }, (_, i) => ({
        txid: Uint8Array.from({ length: 32 }, (_, j) => (j < 2 ? (i >> (8 * j)) & 255 : 7)),
        vout: 0,
        sequence: 0xfffffffd,
        scriptSig: new Uint8Array(0),
        witness: [],
      })),
      outputs: [{ script: owner.scriptPubKey, value: BigInt(inputs) * 9_000n }],
    })
    for (let i = 0; i < inputs; i++)
      psbt.updateInput(i, { witnessUtxo: { script: owner.scriptPubKey, value: 10_000n } })
    return base64.encode(psbt.toBuffer())
  }
  const signPsbt = (owner: typeof payment, inputs: number) => {
    const psbt = psbtOf(owner, inputs)
    const signInputs = Array.from({ length: inputs }, (_, index) => ({ address: owner.address, index }))
    return () => answer(wallet, bip.BIP122_REGTEST, 'signPsbt', { account: account.id, psbt, signInputs })
  }
  const fundedChain = async () => {
    step('starting the regtest chain, funding 3000 coins')
    const started = await startBitcoinRegtest()
    const addresses = await Promise.all(Array.from({ length: 30 }, (_, i) => account.address(84, 0, i)))
    for (let i = 0; i < 3000; i++) started.chain.fund(addresses[i % 30]!.address, 10_000, { confirm: false })
    started.mine(1)
    await account.refresh()
    return started
  }
  const recipient = (await account.address(84, 0, 40)).address
  // Spends nearly every coin: 2990 × 10 000 sat.
  const sendTransfer = () =>
    answer(wallet, bip.BIP122_REGTEST, 'sendTransfer', {
      account: account.id,
      recipientAddress: recipient,
      amount: String(2990 * 10_000 - 200_000),
    })

  const evmAccount = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'
  const typedData = JSON.stringify({
    types: {
      EIP712Domain: [{ name: 'name', type: 'string' }],
      Entry: [
        { name: 'owner', type: 'address' },
        { name: 'amounts', type: 'uint256[]' },
        { name: 'note', type: 'string' },
      ],
      Batch: [{ name: 'entries', type: 'Entry[]' }],
    },
    primaryType: 'Batch',
    domain: { name: 'limits' },
    // The most values the limits admit: entries of 18 amounts, under maxValues and maxArrayLength.
    message: {
      entries: Array.from({ length: Math.floor(typedDataLimits.maxValues / 21) }, (_, i) => ({
        owner: evmAccount,
        amounts: Array.from({ length: 18 }, (_, j) => String(i * 18 + j)),
        note: `entry ${i}`,
      })).slice(0, typedDataLimits.maxArrayLength),
    },
  })

  const comment = beginCell().storeUint(0, 32).storeStringTail('thanks').endCell().toBoc().toString('base64')
  const tonMessages = Array.from({ length: 255 }, (_, i) => ({
    address: 'EQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA0-Jn',
    amount: String(1000 + i),
    payload: comment,
  }))

  const solOwner = base58.encode(edKey.publicKey)
  const solDistinct = Array.from({ length: 100 }, (_, i) => {
    const payer = address(solOwner)
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(payer, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash('EETubP5AKHgjPAhzPAFcb8BAY1hMH639CWCFTqi3hq1k'), lastValidBlockHeight: 1n },
          m,
        ),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getTransferSolInstruction({
              source: createNoopSigner(payer),
              destination: address('9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'),
              amount: BigInt(1000 + i),
            }),
          ],
          m,
        ),
    )
    return getBase64EncodedWireTransaction(compileTransaction(message))
  })
  // 100 distinct transactions, each 100 times: building 10 000 with @solana/kit takes longer than signing them.
  const solTransactions = Array.from({ length: 10_000 }, (_, i) => solDistinct[i % 100]!)

  const cases: Case[] = [
    { name: 'signPsbt, 3000 P2WPKH inputs', run: signPsbt(payment, 3000), raw: rawEcdsa(3000) },
    { name: 'signPsbt, 3000 P2TR inputs', run: signPsbt(taproot, 3000), raw: rawSchnorr(3000) },
    {
      name: `eth_signTypedData_v4, ${typedDataLimits.maxValues} values`,
      run: () => answer(wallet, 'eip155:1', 'eth_signTypedData_v4', [evmAccount, typedData]),
      raw: rawEcdsa(1),
    },
    {
      name: 'ton_sendMessage, 255 messages (v5R1)',
      run: () => answer(wallet, 'ton:-239', 'ton_sendMessage', [{ messages: tonMessages }]),
      raw: rawEd25519(1),
    },
    {
      name: 'solana_signAllTransactions, 10000 (policy cap)',
      run: () =>
        answer(wallet, sol.solanaMainnet, 'solana_signAllTransactions', { transactions: solTransactions }),
      raw: rawEd25519(10_000),
    },
    { name: 'sendTransfer, 3000 coins (2990 spent)', run: sendTransfer, raw: rawEcdsa(2990), once: true },
  ]
  const only = process.env.EVENT_LOOP_FILTER ?? ''
  console.log(
    `load average: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  )
  console.log('| request | longest block | total | raw signatures | total ÷ raw | load |')
  console.log('| --- | --- | --- | --- | --- | --- |')
  try {
    for (const { name, run, raw, once } of cases.filter((candidate) => candidate.name.includes(only))) {
      step(name)
      if (once) chain ??= await fundedChain()
      else await run() // warm-up (JIT)
      const rawStart = now()
      raw()
      const rawMs = now() - rawStart
      const { total, longest } = await longestBlock(run)
      console.log(
        `| ${name} | ${longest.toFixed(1)} ms ${longest <= 50 ? 'OK' : 'OVER'} | ${total.toFixed(0)} ms | ${rawMs.toFixed(0)} ms | ${(total / rawMs).toFixed(2)}× | ${loadavg()[0]!.toFixed(2)} |`,
      )
    }
  } finally {
    await wallet.close()
    await chain?.stop()
  }
}
