import * as v from 'valibot'
import { privateKeyToAccount } from 'viem/accounts'
import type { Namespace } from '../src/core/namespace.js'
import { createWalletRpc } from '../src/createWalletRpc.js'
import { accountKeys, eip155 } from '../src/eip155/index.js'

/**
 * personal_sign through the whole `handle()` path (envelope, schema, ownership, plan, review, approve,
 * sign, JSON-safe answer) against viem's `account.signMessage` on the same key and message, measured
 * in the same run. Target: at most 1.10x.
 *
 * The two sides run in alternating small batches (which one goes first alternates too) and the figure is
 * the median of the per-pair ratios. The headline uses this process's CPU time (`process.cpuUsage`),
 * because the CI/dev machine's 2 cores are shared and wall-clock batches swing by ±20% with other load;
 * the wall-clock ratio is printed beside it. A bare namespace whose method only signs (no schema, no review
 * content) runs through the same router as a reference, to tell the router's share from eip155's.
 */
const privateKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const message = '0x48656c6c6f2c20776f726c6421' // "Hello, world!" as dapps send it (hex)
const target = 1.1
const pairs = 80
const perBatch = 25

type Sample = { cpu: number; wall: number }

async function measure(work: () => Promise<unknown>): Promise<Sample> {
  const cpuStart = process.cpuUsage()
  const wallStart = process.hrtime.bigint()
  for (let i = 0; i < perBatch; i++) await work()
  const wall = Number(process.hrtime.bigint() - wallStart) / 1000 / perBatch
  const cpu = process.cpuUsage(cpuStart)
  return { cpu: (cpu.user + cpu.system) / perBatch, wall }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

export async function run(): Promise<void> {
  const account = privateKeyToAccount(privateKey)
  const rpc = createWalletRpc({
    namespaces: [eip155({ keys: accountKeys(account), chains: [1] })],
    approve: () => true,
  })
  let id = 0
  const viaHandle = async () => {
    const response = await rpc.handle({
      chainId: 'eip155:1',
      origin: 'https://app.example.com',
      request: { jsonrpc: '2.0', id: ++id, method: 'personal_sign', params: [message, account.address] },
    })
    if (!('result' in response)) throw new Error(JSON.stringify(response))
  }
  const direct = () => account.signMessage({ message: { raw: message } })
  const bare: Namespace = {
    name: 'eip155',
    chains: ['eip155:1'],
    methods: {
      personal_sign: {
        params: v.unknown(),
        plan: () => ({
          review: { account: account.address, title: '', items: [], warnings: [] },
          plan: null,
        }),
        execute: () => direct(),
      },
    },
  }
  const bareRpc = createWalletRpc({ namespaces: [bare], approve: () => true })
  const viaBareRouter = async () => {
    await bareRpc.handle({
      chainId: 'eip155:1',
      origin: 'https://app.example.com',
      request: { jsonrpc: '2.0', id: ++id, method: 'personal_sign', params: [message, account.address] },
    })
  }

  // Same answer first.
  const expected = await direct()
  const check = await rpc.handle({
    chainId: 'eip155:1',
    request: { id: 0, method: 'personal_sign', params: [message, account.address] },
  })
  if (!('result' in check) || check.result !== expected) throw new Error('handle() and viem disagree')

  for (let i = 0; i < 300; i++) {
    await viaHandle()
    await viaBareRouter()
    await direct()
  }
  const raw: Sample[] = []
  const full: Sample[] = []
  const bareRouter: Sample[] = []
  const sides = [
    () => measure(direct).then((sample) => raw.push(sample)),
    () => measure(viaHandle).then((sample) => full.push(sample)),
    () => measure(viaBareRouter).then((sample) => bareRouter.push(sample)),
  ]
  for (let round = 0; round < pairs; round++) {
    // Rotate which side goes first so none profits from its position.
    for (let i = 0; i < sides.length; i++) await sides[(round + i) % sides.length]!()
  }
  const ratioOf = (samples: Sample[], pick: (sample: Sample) => number) =>
    median(samples.map((sample, i) => pick(sample) / pick(raw[i]!)))
  const cpuRatio = ratioOf(full, (sample) => sample.cpu)
  const wallRatio = ratioOf(full, (sample) => sample.wall)
  const bareRatio = ratioOf(bareRouter, (sample) => sample.cpu)
  const micros = (samples: Sample[], pick: (sample: Sample) => number) => median(samples.map(pick)).toFixed(1)
  console.log(
    `viem account.signMessage (raw hex):  ${micros(raw, (s) => s.cpu)} µs CPU/op (${micros(raw, (s) => s.wall)} µs wall)`,
  )
  console.log(
    `personal_sign through handle():      ${micros(full, (s) => s.cpu)} µs CPU/op (${micros(full, (s) => s.wall)} µs wall)`,
  )
  console.log(
    `ratio handle()/viem signMessage:     ${cpuRatio.toFixed(3)}x CPU (target <= ${target}x) ${cpuRatio <= target ? 'OK' : 'OVER TARGET'}; ${wallRatio.toFixed(3)}x wall`,
  )
  console.log(`reference: a bare signing method through the same router: ${bareRatio.toFixed(3)}x CPU`)
  await rpc.close()
  await bareRpc.close()
}
