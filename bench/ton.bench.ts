import * as v from 'valibot'
import { defineMethod } from '../src/core/namespace.js'
import { createWalletRpc } from '../src/createWalletRpc.js'
import { type Ed25519Backend, ed25519, ton, tonKeys } from '../src/ton/index.js'

/**
 * ton_signData through the whole `handle()` path (envelope, schema, plan, review, approve, sign, JSON-safe
 * answer) against one raw Ed25519 signature by the fastest backend, measured in the same run.
 * Target: at most 1.5x.
 */
const seed = new Uint8Array(32).fill(42)

export async function run(): Promise<void> {
  const backend = await ed25519()
  const key = backend.fromSeed(seed)
  const digest = new Uint8Array(32).fill(7)
  // The same backend, timing each signature it makes inside handle(), to split the cost exactly.
  const inPath: number[] = []
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
  const rpc = createWalletRpc({
    namespaces: [ton({ keys: tonKeys.fromSecretKey(seed, { backend: timedBackend }), chains: ['ton:-239'] })],
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

  // Warm up every path (JIT, lazy wallet code cells). Then interleave the three measurements call by call,
  // so a loaded machine slows all of them alike, and compare per-call medians.
  for (let i = 0; i < 2000; i++) {
    key.sign(digest)
    await signData()
    await routerOnly()
  }
  inPath.length = 0
  const raw: number[] = []
  const full: number[] = []
  const router: number[] = []
  const micros = (from: bigint, to: bigint) => Number(to - from) / 1000
  for (let i = 0; i < 20_000; i++) {
    const t0 = process.hrtime.bigint()
    key.sign(digest)
    const t1 = process.hrtime.bigint()
    await signData()
    const t2 = process.hrtime.bigint()
    await routerOnly()
    const t3 = process.hrtime.bigint()
    raw.push(micros(t0, t1))
    full.push(micros(t1, t2))
    router.push(micros(t2, t3))
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const rawMicros = median(raw)
  const fullMicros = median(full)
  const routerMicros = median(router)
  const ratio = fullMicros / rawMicros
  console.log(`ed25519 backend: ${backend.name}`)
  console.log(`raw Ed25519 sign (32 bytes):        ${rawMicros.toFixed(1)} µs/op`)
  console.log(`ton_signData through handle():      ${fullMicros.toFixed(1)} µs/op`)
  const inPathMicros = median(inPath)
  const tonMicros = fullMicros - routerMicros - inPathMicros
  const share = (value: number) => `${value.toFixed(1)} µs/op = ${(value / rawMicros).toFixed(2)}x raw sign`
  console.log(`  router alone (no-op method):      ${share(routerMicros)}`)
  console.log(`  the Ed25519 sign inside handle(): ${share(inPathMicros)}`)
  console.log(`  ton namespace (schema, plan, review, digest, result): ${share(tonMicros)}`)
  console.log(
    `ratio handle()/raw sign:            ${ratio.toFixed(2)}x (target <= 1.5x) ${ratio <= 1.5 ? 'OK' : 'OVER TARGET'}`,
  )
  await rpc.close()
  await floorRpc.close()
}
