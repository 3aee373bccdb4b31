import * as v from 'valibot'
import { type Hex, hashMessage, hexToBytes } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Namespace } from '../src/core/namespace.js'
import { createWalletRpc, type WalletRpc } from '../src/createWalletRpc.js'
import { ecc, secp256k1Backend } from '../src/crypto/secp256k1.js'
import { accountKeys, type Eip155Keys, eip155, privateKeyKeys } from '../src/eip155/index.js'
import { measureCalls, median, type Sample } from './measure.js'

/**
 * personal_sign through the whole `handle()` path (envelope, schema, ownership, plan, review, approve,
 * sign, JSON-safe answer), measured in the same run against:
 * - the issue's headline: viem's `privateKeyToAccount(key).signMessage` called directly (pure-JS
 *   @noble/curves), target at most 1.10x. Our own keys sign with the shared secp256k1 backend, so this
 *   figure mostly says how much faster that backend is than viem's signer;
 * - the honest overhead: the raw primitive of the backend our keys use, `hashMessage` + one
 *   `ecc.signRecoverable` + the 0x hex answer, i.e. everything handle() adds on top of the signature;
 * - an external signer (`accountKeys(privateKeyToAccount(key))`, signing itself, its signature then
 *   checked by recovery) against its own `signMessage`: what users of HSM / remote / custom viem accounts pay;
 * - as a reference, a bare signing method (no schema, no review content) through the same router against
 *   the same primitive, to tell the router's share from eip155's.
 *
 * The sides run in alternating batches (which one goes first rotates every round); each ratio is the median
 * of the per-round ratios. The ratios use this process's CPU time (`process.cpuUsage`), because the
 * machine's 2 cores are shared and wall-clock batches swing by ±20% with other load; the wall-clock ratio
 * is printed beside each. `WALLET_RPC_SECP256K1=noble` runs the same figures on the portable backend.
 */
const privateKey = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const message = '0x48656c6c6f2c20776f726c6421' // "Hello, world!" as dapps send it (hex)
const target = 1.1
const rounds = 80
const perBatch = 25

export async function run(): Promise<void> {
  const viemAccount = privateKeyToAccount(privateKey)
  const address = viemAccount.address
  const key = hexToBytes(privateKey)
  const wallet = (keys: Eip155Keys) =>
    createWalletRpc({ namespaces: [eip155({ keys, chains: [1] })], approve: () => true })
  const ours = wallet(privateKeyKeys(privateKey))
  const external = wallet(accountKeys(viemAccount))
  const primitive = () => {
    const { signature, recoveryId } = ecc.signRecoverable(hashMessage({ raw: message }, 'bytes'), key)
    return `0x${Buffer.from(signature).toString('hex')}${recoveryId === 0 ? '1b' : '1c'}`
  }
  const bare: Namespace = {
    name: 'eip155',
    chains: ['eip155:1'],
    methods: {
      personal_sign: {
        params: v.unknown(),
        plan: () => ({ review: { account: address, title: '', items: [], warnings: [] }, plan: null }),
        execute: primitive,
      },
    },
  }
  const bareRpc = createWalletRpc({ namespaces: [bare], approve: () => true })
  let id = 0
  const personalSign = async (rpc: WalletRpc): Promise<Hex> => {
    const response = await rpc.handle({
      chainId: 'eip155:1',
      origin: 'https://app.example.com',
      request: { jsonrpc: '2.0', id: ++id, method: 'personal_sign', params: [message, address] },
    })
    if (!('result' in response)) throw new Error(JSON.stringify(response))
    return response.result as Hex
  }

  const sides = {
    viemDirect: () => viemAccount.signMessage({ message: { raw: message } }),
    primitive,
    ours: () => personalSign(ours),
    external: () => personalSign(external),
    bareRouter: () => personalSign(bareRpc),
  }
  // Same answer everywhere first.
  const expected = await sides.viemDirect()
  for (const [name, side] of Object.entries(sides)) {
    const answer = await side()
    if (answer !== expected) throw new Error(`${name} disagrees with viem`)
  }

  const names = Object.keys(sides) as (keyof typeof sides)[]
  for (let i = 0; i < 300; i++) for (const name of names) await sides[name]()
  const samples = Object.fromEntries(names.map((name) => [name, [] as Sample[]])) as Record<
    keyof typeof sides,
    Sample[]
  >
  for (let round = 0; round < rounds; round++) {
    // Rotate which side goes first so none profits from its position.
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length]!
      samples[name].push(await measureCalls(perBatch, sides[name]))
    }
  }
  const ratio = (side: keyof typeof sides, base: keyof typeof sides, pick: (sample: Sample) => number) =>
    median(samples[side].map((sample, i) => pick(sample) / pick(samples[base][i]!)))
  const cpu = (sample: Sample) => sample.cpu
  const wall = (sample: Sample) => sample.wall
  const micros = (label: string, side: keyof typeof sides) =>
    console.log(
      `${label.padEnd(66)} ${median(samples[side].map(cpu)).toFixed(1)} µs CPU/op (${median(samples[side].map(wall)).toFixed(1)} µs wall)`,
    )
  const line = (label: string, side: keyof typeof sides, base: keyof typeof sides, withTarget = false) => {
    const r = ratio(side, base, cpu)
    const verdict = withTarget ? ` (target <= ${target}x) ${r <= target ? 'OK' : 'OVER TARGET'}` : ''
    console.log(
      `${label.padEnd(66)} ${r.toFixed(3)}x CPU${verdict}; ${ratio(side, base, wall).toFixed(3)}x wall`,
    )
  }

  const backend = secp256k1Backend.name
  console.log(`secp256k1 backend of our keys: ${backend}`)
  micros('viem privateKeyToAccount(key).signMessage (@noble/curves)', 'viemDirect')
  micros(`${backend} primitive: hashMessage + signRecoverable`, 'primitive')
  micros('personal_sign through handle(), our keys', 'ours')
  micros('personal_sign through handle(), external viem account', 'external')
  line('headline (issue): handle() our keys / viem signMessage direct', 'ours', 'viemDirect', true)
  line(`overhead: handle() our keys / ${backend} primitive`, 'ours', 'primitive')
  line('external signer: handle() accountKeys(viem) / its own signMessage', 'external', 'viemDirect')
  line(`reference: bare method, same router / ${backend} primitive`, 'bareRouter', 'primitive')
  await ours.close()
  await external.close()
  await bareRpc.close()
}
