import { base58 } from '@scure/base'
import { measure, measureCalls, median, quantile, type Sample } from './measure.js'
import { solanaTransfer as transaction } from './solanaTransfer.js'

/**
 * solana_signTransaction through the whole `handle()` path (envelope, schema, strict decode, review with the
 * instruction decoded, approve, sign, answer) against one raw Ed25519 signature of the same message bytes by
 * the same backend, in alternating batches; headline on process CPU time (the machine is shared), wall time
 * beside it. Both sides run the built package (`dist/`, which `npm run bench` builds): what a wallet ships, without
 * the names tsx's transform wraps around every function of the sources. Target: at most 1.3x. Then signAllTransactions: the per-transaction cost of a 100-transaction
 * request over that of a 1-transaction request (target: at most 1.2x, i.e. linear).
 */
const seed = new Uint8Array(32).fill(42)
const rounds = 60
const perBatch = 100

/** A module of the built package, typed as its source (dist/ exists only after `npm run build`). */
const built = <T>(path: string): Promise<T> => import(new URL(`../dist/${path}`, import.meta.url).href)

export async function run(): Promise<void> {
  const { createWalletRpc } = await built<typeof import('../src/createWalletRpc.js')>('createWalletRpc.js')
  const { ed25519 } = await built<typeof import('../src/crypto/ed25519.js')>('crypto/ed25519.js')
  const { solana, solanaKeys, solanaMainnet } =
    await built<typeof import('../src/solana/index.js')>('solana/index.js')
  const backend = ed25519()
  const key = backend.fromSeed(seed)
  const keys = solanaKeys.fromSecretKey(seed)
  const owner = base58.encode(key.publicKey)
  const rpc = createWalletRpc({
    namespaces: [solana({ keys, chains: [solanaMainnet], policy: { maxTransactions: 100 } })],
    approve: () => true,
  })
  const one = transaction(owner, 1_000n)
  let id = 0
  const call = async (method: string, params: unknown) => {
    const response = await rpc.handle({
      chainId: solanaMainnet,
      request: { jsonrpc: '2.0', id: ++id, method, params },
    })
    if (!('result' in response)) throw new Error(JSON.stringify(response))
  }

  const raw: Sample[] = []
  const full: Sample[] = []
  const sides = [
    () =>
      measure(perBatch, () => {
        for (let i = 0; i < perBatch; i++) key.sign(one.message)
      }).then((sample) => raw.push(sample)),
    () =>
      measureCalls(perBatch, () => call('solana_signTransaction', { transaction: one.wire })).then((sample) =>
        full.push(sample),
      ),
  ]
  for (let round = 0; round < 20; round++) for (const side of sides) await side()
  raw.length = full.length = 0
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < sides.length; i++) await sides[(round + i) % sides.length]!()
  }
  const cpuRatios = raw.map((sample, i) => full[i]!.cpu / sample.cpu)
  const wallRatio = median(raw.map((sample, i) => full[i]!.wall / sample.wall))
  const micros = (samples: Sample[]) =>
    `${median(samples.map((s) => s.cpu)).toFixed(1)} µs CPU/op (${median(samples.map((s) => s.wall)).toFixed(1)} µs wall)`
  console.log(`ed25519 backend: ${backend.name}; ${rounds} rounds of ${perBatch} calls per side`)
  console.log(`raw Ed25519 sign of the message: ${micros(raw)}`)
  console.log(`solana_signTransaction via handle(): ${micros(full)}`)
  console.log(
    `ratio (CPU): ${median(cpuRatios).toFixed(2)}x (middle half ${quantile(cpuRatios, 0.25).toFixed(2)}–${quantile(cpuRatios, 0.75).toFixed(2)}; wall ${wallRatio.toFixed(2)}x), target ≤ 1.3x`,
  )

  // signAllTransactions: per-transaction cost at 100 over at 1 (distinct transactions, same shape).
  const hundred = Array.from({ length: 100 }, (_, i) => transaction(owner, BigInt(2_000 + i)).wire)
  const single: Sample[] = []
  const batch: Sample[] = []
  const allSides = [
    () =>
      measureCalls(100, () => call('solana_signAllTransactions', { transactions: [one.wire] })).then((s) =>
        single.push(s),
      ),
    () =>
      measure(100, () => call('solana_signAllTransactions', { transactions: hundred })).then((s) =>
        batch.push(s),
      ),
  ]
  for (let round = 0; round < 5; round++) for (const side of allSides) await side()
  single.length = batch.length = 0
  for (let round = 0; round < 30; round++) {
    for (let i = 0; i < allSides.length; i++) await allSides[(round + i) % allSides.length]!()
  }
  const linear = single.map((sample, i) => batch[i]!.cpu / sample.cpu)
  console.log(`signAllTransactions, 1 transaction: ${micros(single)} per transaction`)
  console.log(`signAllTransactions, 100 transactions: ${micros(batch)} per transaction`)
  console.log(
    `per-transaction cost at 100 ÷ at 1 (CPU): ${median(linear).toFixed(2)}x (middle half ${quantile(linear, 0.25).toFixed(2)}–${quantile(linear, 0.75).toFixed(2)}), target ≤ 1.2x`,
  )
}
