import { privateKeyToAccount } from 'viem/accounts'
import { createWalletRpc } from '../src/createWalletRpc.js'
import { eip155, privateKeyKeys } from '../src/eip155/index.js'

/**
 * personal_sign through the whole `handle()` path (envelope, schema, ownership, plan, review, approve,
 * sign, JSON-safe answer) against viem's `account.signMessage` on the same key and message, measured
 * in the same run, interleaved. Target: at most 1.10x.
 */
const privateKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const message = '0x48656c6c6f2c20776f726c6421' // "Hello, world!" as dapps send it (hex)
const target = 1.1

async function medianMicros(rounds: number, perRound: number, work: () => Promise<unknown>): Promise<number> {
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
  const account = privateKeyToAccount(privateKey)
  const rpc = createWalletRpc({
    namespaces: [eip155({ keys: privateKeyKeys(privateKey), chains: [1] })],
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

  // Same answer first, then warm both paths and interleave the measurements.
  const expected = await direct()
  const check = await rpc.handle({
    chainId: 'eip155:1',
    request: { id: 0, method: 'personal_sign', params: [message, account.address] },
  })
  if (!('result' in check) || check.result !== expected) throw new Error('handle() and viem disagree')
  await medianMicros(3, 200, viaHandle)
  await medianMicros(3, 200, direct)
  const raw: number[] = []
  const full: number[] = []
  for (let repeat = 0; repeat < 5; repeat++) {
    raw.push(await medianMicros(5, 300, direct))
    full.push(await medianMicros(5, 300, viaHandle))
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const rawMicros = median(raw)
  const fullMicros = median(full)
  const ratio = fullMicros / rawMicros
  console.log(`viem account.signMessage (raw hex):  ${rawMicros.toFixed(1)} µs/op`)
  console.log(`personal_sign through handle():      ${fullMicros.toFixed(1)} µs/op`)
  console.log(
    `ratio handle()/viem signMessage:     ${ratio.toFixed(3)}x (target <= ${target}x) ${ratio <= target ? 'OK' : 'OVER TARGET'}`,
  )
  await rpc.close()
}
