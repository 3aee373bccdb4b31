import * as v from 'valibot'
import { defineMethod } from '../src/core/namespace.js'
import { createWalletRpc } from '../src/createWalletRpc.js'
import { type Ed25519Backend, ed25519, ton, tonKeys } from '../src/ton/index.js'
import { measure, measureCalls, median, quantile, type Sample } from './measure.js'

/**
 * ton_signData through the whole `handle()` path (envelope, schema, plan, review, approve, sign, JSON-safe
 * answer) against one raw Ed25519 signature of 32 bytes by the fastest backend, measured in the same run.
 * Target: at most 1.5x.
 *
 * The sides run in alternating batches (which one goes first rotates every round) and each figure is the
 * median over rounds; the ratio is the median of the per-round ratios. The headline uses this process's CPU
 * time (`process.cpuUsage`), because the machine's 2 cores are shared and wall-clock batches swing with other
 * load; the wall-clock ratio is printed beside it, and the middle half of the per-round ratios shows the
 * noise. A no-op method with a result of the same shape runs through the same router, to tell the router's
 * share from the ton namespace's. That share (handle() minus the router minus one raw sign) includes what
 * interleaving its JS with a signature costs both in caches and GC: a tight loop of raw signs is the most
 * favourable baseline, and the namespace's code alone, without the sign, costs under half of its share.
 */
const seed = new Uint8Array(32).fill(42)
const target = 1.5
const rounds = 100
const perBatch = 100

const signDataRequest = (id: number) => ({
  chainId: 'ton:-239',
  origin: 'https://app.example.com',
  request: {
    jsonrpc: '2.0' as const,
    id,
    method: 'ton_signData',
    params: [{ type: 'text', text: 'Confirm login #1234' }],
  },
})

export async function run(): Promise<void> {
  const backend = await ed25519()
  const key = backend.fromSeed(seed)
  const digest = new Uint8Array(32).fill(7)
  const rpc = createWalletRpc({
    namespaces: [ton({ keys: tonKeys.fromSecretKey(seed, { backend }), chains: ['ton:-239'] })],
    approve: () => true,
  })
  let id = 0
  const signData = async (through = rpc) => {
    const response = await through.handle(signDataRequest(++id))
    if (!('result' in response)) throw new Error(JSON.stringify(response))
  }

  // The router's own share: the same request through handle() to a method that signs nothing and returns
  // a result of the same shape.
  const fixedResult = {
    signature: 'A'.repeat(88),
    address: `0:${'a'.repeat(64)}`,
    timestamp: 1,
    domain: 'app.example.com',
    payload: { type: 'text', text: 'Confirm login #1234' },
    publicKey: 'ab'.repeat(32),
  }
  const floorRpc = createWalletRpc({
    namespaces: [
      {
        name: 'ton',
        chains: ['ton:-239'],
        methods: {
          ton_signData: defineMethod({
            params: v.unknown(),
            plan: () => ({ review: { account: 'a', title: 't', items: [], warnings: [] }, plan: null }),
            execute: () => fixedResult,
          }),
        },
      },
    ],
    approve: () => true,
  })

  const raw: Sample[] = []
  const full: Sample[] = []
  const router: Sample[] = []
  const sides = [
    () =>
      measure(perBatch, () => {
        for (let i = 0; i < perBatch; i++) key.sign(digest)
      }).then((sample) => raw.push(sample)),
    () => measureCalls(perBatch, () => signData()).then((sample) => full.push(sample)),
    () =>
      measureCalls(perBatch, () => floorRpc.handle(signDataRequest(++id))).then((sample) =>
        router.push(sample),
      ),
  ]
  // Warm-up (JIT, lazy wallet code cells), then the measured rounds.
  for (let round = 0; round < 20; round++) for (const side of sides) await side()
  raw.length = full.length = router.length = 0
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < sides.length; i++) await sides[(round + i) % sides.length]!()
  }

  const perRound = (pick: (i: number) => number) => median(raw.map((_, i) => pick(i)))
  const cpuRatios = raw.map((sample, i) => full[i]!.cpu / sample.cpu)
  const cpuRatio = median(cpuRatios)
  const wallRatio = perRound((i) => full[i]!.wall / raw[i]!.wall)
  const rawCpu = median(raw.map((sample) => sample.cpu))
  const micros = (samples: Sample[]) =>
    `${median(samples.map((s) => s.cpu)).toFixed(1)} µs CPU/op (${median(samples.map((s) => s.wall)).toFixed(1)} µs wall)`
  const share = (value: number) => `${value.toFixed(1)} µs CPU/op = ${(value / rawCpu).toFixed(2)}x raw sign`

  // The signature inside handle(): the same backend, each sign timed, against raw signs timed the same way,
  // call by call. It checks that the in-path sign costs what a raw one does, so that the namespace's share is
  // handle() minus the router minus one raw sign.
  const inPath: number[] = []
  const rawTimed: number[] = []
  const timedBackend: Ed25519Backend = {
    ...backend,
    fromSeed(secret) {
      const inner = backend.fromSeed(secret)
      return {
        publicKey: inner.publicKey,
        sign(message) {
          const start = process.hrtime.bigint()
          const signature = inner.sign(message)
          inPath.push(Number(process.hrtime.bigint() - start) / 1000)
          return signature
        },
      }
    },
  }
  const timedRpc = createWalletRpc({
    namespaces: [ton({ keys: tonKeys.fromSecretKey(seed, { backend: timedBackend }), chains: ['ton:-239'] })],
    approve: () => true,
  })
  for (let i = 0; i < 5000; i++) {
    await signData(timedRpc)
    const start = process.hrtime.bigint()
    key.sign(digest)
    rawTimed.push(Number(process.hrtime.bigint() - start) / 1000)
  }
  const inPathRatio = median(inPath) / median(rawTimed)

  console.log(`ed25519 backend: ${backend.name}; ${rounds} rounds of ${perBatch} calls per side`)
  console.log(`raw Ed25519 sign (32 bytes):        ${micros(raw)}`)
  console.log(`ton_signData through handle():      ${micros(full)}`)
  console.log(`  router alone (no-op method):      ${share(median(router.map((s) => s.cpu)))}`)
  console.log(
    `  the Ed25519 sign inside handle(): ${median(inPath).toFixed(1)} µs wall/op = ${inPathRatio.toFixed(2)}x a raw sign timed alike`,
  )
  const tonShare = perRound((i) => full[i]!.cpu - router[i]!.cpu - raw[i]!.cpu)
  console.log(`  ton namespace (schema, plan, review, digest, result): ${share(tonShare)}`)
  console.log(
    `ratio handle()/raw sign:            ${cpuRatio.toFixed(2)}x CPU (target <= ${target}x) ${cpuRatio <= target ? 'OK' : 'OVER TARGET'}; ${wallRatio.toFixed(2)}x wall`,
  )
  console.log(
    `  per-round CPU ratios, middle half: ${quantile(cpuRatios, 0.25).toFixed(2)}x to ${quantile(cpuRatios, 0.75).toFixed(2)}x`,
  )
  await rpc.close()
  await floorRpc.close()
  await timedRpc.close()
}
