import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { beginCell, Cell, loadMessage } from '@ton/core'
import { initWasm, TW } from '@trustwallet/wallet-core'
import { measureCalls, median, quantile, type Sample } from './measure.js'

/**
 * Every request a wallet signs most, through our whole `handle()` path, against Trust Wallet Core's WASM
 * signing core (`@trustwallet/wallet-core`, what a major production wallet signs with) doing the same job
 * through its public API (protobuf in, protobuf out, as a wallet calls it), and one raw signature of the
 * backend our keys use. Same process, same keys, same inputs; each row first checks that both give the same
 * bytes. The sides run in alternating batches (which goes first rotates every round); the headline is the
 * median of the per-round CPU-time ratios (`PEERS_FILTER=ton` runs the
 * rows whose name contains it; `PEERS_ROUNDS` sets the rounds) (`process.cpuUsage`: the machine's cores are shared), the middle
 * half beside it, and the load average with it. Target: ours ÷ TW Core ≤ 1.0 on every row.
 *
 * TON: Trust Wallet Core puts the signed wallet body in a reference of the external message, @ton/ton and
 * we inline it when it fits; the check is on the signed body (cell hash) and the TEP-467 normalized message
 * hash, which are what the chain and indexers key on. TW Core always gives an internal message a body (an
 * empty cell without a comment), so the row sends a 100-character comment, which both store as a reference.
 */
const evmKey = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const evmAddress = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const recipient = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const tonSeed = new Uint8Array(32).fill(42)
const tonRecipient = 'EQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA0-Jn'
const now = 1_800_000_000
// 200: at 60 the first TON row was still warming up (v5R1 read 0.91–1.15×, 0.68–0.73× at 200).
const rounds = Number(process.env.PEERS_ROUNDS ?? 200)
const perBatch = 20

// EIP-712's own example (Ether Mail), from the eip155 vectors.
const mail = JSON.parse(
  readFileSync(new URL('../test-vectors/eip155/eip712-mail.json', import.meta.url), 'utf8'),
).typedData
const mailJson = JSON.stringify(mail)

/** A module of the built package, typed as its source (dist/ exists only after `npm run build`). */
const built = <T>(path: string): Promise<T> => import(new URL(`../dist/${path}`, import.meta.url).href)

const bigEndian = (value: bigint) => {
  if (value === 0n) return new Uint8Array()
  const hex = value.toString(16)
  return Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex')
}

type Row = {
  name: string
  ours: () => Promise<string>
  peer: () => string
  /** The answers in a form both sides must agree on. */
  same: (ours: string, peer: string) => boolean
}

export async function run(): Promise<void> {
  const { createWalletRpc } = await built<typeof import('../src/createWalletRpc.js')>('createWalletRpc.js')
  const { eip155, privateKeyKeys } = await built<typeof import('../src/eip155/index.js')>('eip155/index.js')
  const { ton, tonKeys } = await built<typeof import('../src/ton/index.js')>('ton/index.js')
  const { ecc, secp256k1Backend } =
    await built<typeof import('../src/crypto/secp256k1.js')>('crypto/secp256k1.js')
  const { ed25519 } = await built<typeof import('../src/crypto/ed25519.js')>('crypto/ed25519.js')
  const core = await initWasm()
  const twKey = core.PrivateKey.createWithData(Buffer.from(evmKey, 'hex'))
  const eth = TW.Ethereum.Proto
  const twEthSign = (input: TW.Ethereum.Proto.ISigningInput) => {
    const encoded = eth.SigningInput.encode(eth.SigningInput.create(input)).finish()
    const output = eth.SigningOutput.decode(core.AnySigner.sign(encoded, core.CoinType.ethereum))
    return `0x${Buffer.from(output.encoded).toString('hex')}`
  }
  const evmWallet = createWalletRpc({
    namespaces: [eip155({ keys: privateKeyKeys(`0x${evmKey}`), chains: [1] })],
    approve: () => true,
  })
  let id = 0
  const answer = async (rpc: typeof evmWallet, chainId: string, method: string, params: unknown) => {
    const response = await rpc.handle({ chainId, request: { jsonrpc: '2.0', id: ++id, method, params } })
    if (!('result' in response)) throw new Error(`${method}: ${JSON.stringify(response)}`)
    return response.result as string
  }
  const transaction = {
    from: evmAddress,
    to: recipient,
    value: '0xde0b6b3a7640000',
    gas: '0x5208',
    nonce: '0x7',
  }
  const twTransaction = {
    chainId: bigEndian(1n),
    nonce: bigEndian(7n),
    gasLimit: bigEndian(21000n),
    toAddress: recipient,
    privateKey: twKey.data(),
    transaction: { transfer: { amount: bigEndian(10n ** 18n) } },
  }
  const equalHex = (a: string, b: string) => a.toLowerCase() === b.toLowerCase()

  const rows: Row[] = [
    {
      name: 'personal_sign',
      ours: () =>
        answer(evmWallet, 'eip155:1', 'personal_sign', ['0x48656c6c6f2c20776f726c6421', evmAddress]),
      peer: () => `0x${core.EthereumMessageSigner.signMessage(twKey, 'Hello, world!')}`,
      same: equalHex,
    },
    {
      name: 'eth_signTransaction legacy',
      ours: () =>
        answer(evmWallet, 'eip155:1', 'eth_signTransaction', [{ ...transaction, gasPrice: '0x6fc23ac00' }]),
      peer: () =>
        twEthSign({
          ...twTransaction,
          txMode: eth.TransactionMode.Legacy,
          gasPrice: bigEndian(30_000_000_000n),
        }),
      same: equalHex,
    },
    {
      name: 'eth_signTransaction EIP-1559',
      ours: () =>
        answer(evmWallet, 'eip155:1', 'eth_signTransaction', [
          { ...transaction, maxFeePerGas: '0x6fc23ac00', maxPriorityFeePerGas: '0x77359400' },
        ]),
      peer: () =>
        twEthSign({
          ...twTransaction,
          txMode: eth.TransactionMode.Enveloped,
          maxFeePerGas: bigEndian(30_000_000_000n),
          maxInclusionFeePerGas: bigEndian(2_000_000_000n),
        }),
      same: equalHex,
    },
    {
      name: 'eth_signTypedData_v4 (EIP-712 Mail)',
      ours: () => answer(evmWallet, 'eip155:1', 'eth_signTypedData_v4', [evmAddress, mailJson]),
      peer: () => `0x${core.EthereumMessageSigner.signTypedMessage(twKey, mailJson)}`,
      same: equalHex,
    },
  ]

  const comment =
    'Payment for order #1234 at example shop; thank you for your purchase, see you again soon!'.padEnd(
      100,
      '.',
    )
  const payload = beginCell().storeUint(0, 32).storeStringTail(comment).endCell().toBoc().toString('base64')
  const toncore = TW.TheOpenNetwork.Proto
  const signedBody = (boc: string) =>
    loadMessage(Cell.fromBase64(boc).beginParse()).body.hash().toString('hex')
  for (const version of ['v5r1', 'v4r2'] as const) {
    const wallet = createWalletRpc({
      namespaces: [
        ton({
          keys: tonKeys.fromSecretKey(tonSeed),
          chains: ['ton:-239'],
          wallet: { version },
          providers: {
            'ton:-239': {
              getAccount: async () => ({ state: 'active', balance: 10n ** 12n }),
              getSeqno: async () => 5,
              sendBoc: async () => ({}),
            },
          },
        }),
      ],
      approve: () => true,
      clock: () => now * 1000,
    })
    const params = [
      { valid_until: now + 60, messages: [{ address: tonRecipient, amount: '1000000', payload }] },
    ]
    const input = toncore.SigningInput.encode(
      toncore.SigningInput.create({
        privateKey: tonSeed,
        sequenceNumber: 5,
        expireAt: now + 60,
        walletVersion:
          version === 'v5r1' ? toncore.WalletVersion.WALLET_V5_R1 : toncore.WalletVersion.WALLET_V4_R2,
        messages: [{ dest: tonRecipient, amount: bigEndian(1_000_000n), mode: 3, bounceable: true, comment }],
      }),
    ).finish()
    rows.push({
      name: `ton_sendMessage ${version}, one message`,
      ours: () => answer(wallet, 'ton:-239', 'ton_sendMessage', params),
      peer: () => toncore.SigningOutput.decode(core.AnySigner.sign(input, core.CoinType.ton)).encoded,
      same: (ours, peer) => signedBody(ours) === signedBody(peer),
    })
  }

  // The raw primitive our keys use, for scale: one secp256k1 signature (32-byte digest), one Ed25519.
  const digest = new Uint8Array(32).fill(7)
  const secpKey = Buffer.from(evmKey, 'hex')
  const edKey = ed25519().fromSeed(tonSeed)
  const raw = {
    secp256k1: async () => {
      ecc.signRecoverable(digest, secpKey)
      return ''
    },
    ed25519: async () => {
      edKey.sign(digest)
      return ''
    },
  }

  console.log(
    `backends: secp256k1 ${secp256k1Backend.name}, ed25519 ${ed25519().name}; TW Core 4.8.2 (WASM); ${rounds} rounds × ${perBatch} calls per side`,
  )
  console.log(
    `load average before: ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  )
  for (const row of rows) {
    const ours = await row.ours()
    const peer = row.peer()
    if (!row.same(ours, peer)) throw new Error(`${row.name}: ours and TW Core differ:\n${ours}\n${peer}`)
  }
  const results: string[] = []
  const only = process.env.PEERS_FILTER ?? ''
  for (const row of rows.filter((candidate) => candidate.name.includes(only))) {
    const primitive = row.name.startsWith('ton') ? raw.ed25519 : raw.secp256k1
    const sides = [row.ours, async () => row.peer(), primitive]
    const samples: Sample[][] = [[], [], []]
    for (let round = 0; round < 10; round++) for (const side of sides) await measureCalls(perBatch, side)
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < sides.length; i++) {
        const at = (round + i) % sides.length
        samples[at]!.push(await measureCalls(perBatch, sides[at]!))
      }
    }
    const [ours, peer, prim] = samples as [Sample[], Sample[], Sample[]]
    const ratios = ours.map((sample, i) => sample.cpu / peer[i]!.cpu)
    const cpu = (values: Sample[]) => median(values.map((sample) => sample.cpu))
    const ratio = median(ratios)
    results.push(
      `| ${row.name} | ${cpu(ours).toFixed(0)} µs | ${cpu(peer).toFixed(0)} µs | ${ratio.toFixed(2)}× (${quantile(ratios, 0.25).toFixed(2)}–${quantile(ratios, 0.75).toFixed(2)}) ${ratio <= 1 ? 'OK' : 'OVER'} | ${cpu(prim).toFixed(0)} µs | ${loadavg()[0]!.toFixed(2)} |`,
    )
    console.log(results.at(-1))
  }
  console.log(
    '\n| request | ours (CPU/op) | TW Core (CPU/op) | ours ÷ TW Core (middle half) | raw sign | load |',
  )
  console.log('| --- | --- | --- | --- | --- | --- |')
  for (const line of results) console.log(line)
}
