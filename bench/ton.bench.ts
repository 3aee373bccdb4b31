import * as v from 'valibot'
import { defineMethod } from '../src/core/namespace.js'
import { createWalletRpc } from '../src/createWalletRpc.js'
import { ed25519, ton, tonKeys } from '../src/ton/index.js'

/**
 * ton_signData through the whole `handle()` path (envelope, schema, plan, review, approve, sign, JSON-safe
 * answer) against one raw Ed25519 signature by the fastest backend, measured in the same run.
 * Target: at most 1.5x.
 */
const seed = new Uint8Array(32).fill(42)

async function medianMicros(
  rounds: number,
  perRound: number,
  work: () => Promise<unknown> | unknown,
): Promise<number> {
  const samples: number[] = []
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < perRound; i++) await work()
    samples.push(Number(process.hrtime.bigint() - start) / 1000 / perRound)
  }
  samples.sort((a, b) => a - b)
  return samples[Math.floor(samples.length / 2)]!
}

export async function run(): Promise<void> {
  const backend = await ed25519()
  const key = backend.fromSeed(seed)
  const digest = new Uint8Array(32).fill(7)
  const rpc = createWalletRpc({
    namespaces: [ton({ keys: tonKeys.fromSecretKey(seed, { backend }), chains: ['ton:-239'] })],
    approve: () => true,
  })
  let id = 0
  const signData = async () => {
    const response = await rpc.handle({
      chainId: 'ton:-239',
      origin: 'https://app.example.com',
      request: {
        jsonrpc: '2.0',
        id: ++id,
        method: 'ton_signData',
        params: [{ type: 'text', text: 'Confirm login #1234' }],
      },
    })
    if (!('result' in response)) throw new Error(JSON.stringify(response))
  }

  // The router's own share: the same request through handle() to a method that signs nothing and returns
  // a result of the same shape, so the report can tell the router's cost from the ton namespace's.
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
  const routerOnly = async () => {
    await floorRpc.handle({
      chainId: 'ton:-239',
      origin: 'https://app.example.com',
      request: {
        jsonrpc: '2.0',
        id: ++id,
        method: 'ton_signData',
        params: [{ type: 'text', text: 'Confirm login #1234' }],
      },
    })
  }

  // Warm up both paths (JIT, lazy wallet code cells), then interleave the measurements.
  await medianMicros(3, 300, signData)
  await medianMicros(3, 300, () => key.sign(digest))
  await medianMicros(3, 300, routerOnly)
  const raw: number[] = []
  const full: number[] = []
  const router: number[] = []
  for (let repeat = 0; repeat < 5; repeat++) {
    raw.push(await medianMicros(7, 400, () => key.sign(digest)))
    full.push(await medianMicros(7, 400, signData))
    router.push(await medianMicros(7, 400, routerOnly))
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const rawMicros = median(raw)
  const fullMicros = median(full)
  const routerMicros = median(router)
  const ratio = fullMicros / rawMicros
  console.log(`ed25519 backend: ${backend.name}`)
  console.log(`raw Ed25519 sign (32 bytes):        ${rawMicros.toFixed(1)} µs/op`)
  console.log(`ton_signData through handle():      ${fullMicros.toFixed(1)} µs/op`)
  const tonMicros = fullMicros - routerMicros - rawMicros
  console.log(
    `  router alone (no-op method):      ${routerMicros.toFixed(1)} µs/op = ${(routerMicros / rawMicros).toFixed(2)}x raw sign`,
  )
  console.log(
    `  ton namespace beyond the sign:    ${tonMicros.toFixed(1)} µs/op = ${(tonMicros / rawMicros).toFixed(2)}x raw sign`,
  )
  console.log(
    `ratio handle()/raw sign:            ${ratio.toFixed(2)}x (target <= 1.5x) ${ratio <= 1.5 ? 'OK' : 'OVER TARGET'}`,
  )
  await rpc.close()
  await floorRpc.close()
}
