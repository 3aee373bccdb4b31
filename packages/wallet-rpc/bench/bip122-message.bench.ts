import { sha256 } from '@noble/hashes/sha2.js'
import { utf8ToBytes } from '@noble/hashes/utils.js'
import { Signer } from 'bip322-js'
import { BIP122_MAINNET } from '../src/bip122/chains.js'
import { hdKeys } from '../src/bip122/keys/hdKeys.js'
import { bip122 } from '../src/bip122/namespace.js'
import type { ChainProvider } from '../src/bip122/types.js'
import { createWalletRpc } from '../src/createWalletRpc.js'
import { ecc, secp256k1Backend } from '../src/crypto/secp256k1.js'
import { measureCalls, median, quantile, type Sample } from './measure.js'

/**
 * BIP-322 / BIP-137 signMessage through the whole `handle()` path (parse, account resolution, review,
 * approval, sign, encode) against one raw signature of the same secp256k1 backend, measured in the same run.
 * Target: ≤ 2× the raw sign. Also: a warm getAccountAddresses (target ≤ 1 ms).
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const p2wpkh = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'
const p2tr = 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr'

const rounds = 31
/** Calls of each side before measuring: fewer leave the handle() path partly unoptimised in the first row. */
const warmUp = 3000

/**
 * Runs `subject` and `raw` in alternating batches (which one goes first alternates too, so a busy machine
 * slows both alike) after a warm-up long enough for the JIT to optimise the handle() path, and reports the
 * median µs of each and the median of the per-round ratios. The headline is CPU time (`process.cpuUsage`):
 * the machine's 2 cores are shared and wall-clock batches swing with other load; the wall ratio is beside it.
 */
async function compare(
  iterations: number,
  subject: (i: number) => unknown,
  raw: (i: number) => unknown,
  { roundCount = rounds, warmUpCalls = warmUp } = {},
) {
  await measureCalls(warmUpCalls, subject)
  await measureCalls(warmUpCalls, raw)
  const subjects: Sample[] = []
  const raws: Sample[] = []
  for (let r = 0; r < roundCount; r++) {
    if (r % 2 === 0) raws.push(await measureCalls(iterations, raw))
    subjects.push(await measureCalls(iterations, subject))
    if (r % 2 === 1) raws.push(await measureCalls(iterations, raw))
  }
  const ratios = (pick: (sample: Sample) => number) =>
    subjects.map((sample, r) => pick(sample) / pick(raws[r]!))
  const cpuRatios = ratios((sample) => sample.cpu)
  return {
    subject: median(subjects.map((sample) => sample.cpu)),
    raw: median(raws.map((sample) => sample.cpu)),
    ratio: median(cpuRatios),
    /** The middle half of the per-round CPU ratios: how stable the headline is. */
    spread: [quantile(cpuRatios, 0.25), quantile(cpuRatios, 0.75)] as const,
    wallRatio: median(ratios((sample) => sample.wall)),
  }
}

export async function run(): Promise<void> {
  // A chain provider with an empty history, so getAccountAddresses runs its full discovery once, then warm.
  const empty: ChainProvider = {
    utxos: async () => [],
    addressActivity: async () => ({ txCount: 0 }),
    feeRates: async () => ({}),
    rawTransaction: async () => new Uint8Array(),
    broadcast: async () => {
      throw new Error('not in this bench')
    },
  }
  const namespace = bip122({
    keys: hdKeys({ mnemonic }),
    chains: { [BIP122_MAINNET]: { provider: empty } },
    cacheMs: 3_600_000,
  })
  const wallet = createWalletRpc({ namespaces: [namespace], approve: () => true })
  const sign = async (address: string, protocol: 'ecdsa' | 'bip322', i: number) => {
    const response = await wallet.handle({
      chainId: BIP122_MAINNET,
      request: {
        id: i,
        jsonrpc: '2.0',
        method: 'signMessage',
        params: { account: address, message: `Hello World ${i}`, protocol },
      },
    })
    if (!('result' in response)) throw new Error(JSON.stringify(response))
  }

  const key = sha256(utf8ToBytes('bench key'))
  const hashes = Array.from({ length: 64 }, (_, i) => sha256(utf8ToBytes(`hash ${i}`)))
  const aux = sha256(utf8ToBytes('aux'))
  const iterations = 100

  const rawEcdsa = (i: number) => ecc.sign(hashes[i % 64]!, key)
  const rawRecoverable = (i: number) => ecc.signRecoverable(hashes[i % 64]!, key)
  const rawSchnorr = (i: number) => ecc.signSchnorr(hashes[i % 64]!, key, aux)
  const rows: Array<[string, Awaited<ReturnType<typeof compare>>, string]> = [
    [
      'handle() signMessage bip322 P2WPKH',
      await compare(iterations, (i) => sign(p2wpkh, 'bip322', i), rawEcdsa),
      'raw ECDSA sign (target ≤ 2×)',
    ],
    [
      'handle() signMessage bip322 P2TR',
      await compare(iterations, (i) => sign(p2tr, 'bip322', i), rawSchnorr),
      'raw Schnorr sign (target ≤ 2×)',
    ],
    [
      'handle() signMessage ecdsa (BIP-137) P2WPKH',
      await compare(iterations, (i) => sign(p2wpkh, 'ecdsa', i), rawRecoverable),
      'raw recoverable ECDSA sign',
    ],
  ]
  const wif = 'KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d' // BIP-84 vector key of p2wpkh
  rows.push([
    'bip322-js Signer.sign P2WPKH (reference)',
    await compare(10, (i) => Signer.sign(wif, p2wpkh, `Hello World ${i}`), rawEcdsa, {
      roundCount: 7,
      warmUpCalls: 20,
    }),
    'raw ECDSA sign (7 rounds of 10)',
  ])

  const list = () =>
    wallet.handle({
      chainId: BIP122_MAINNET,
      request: { id: 1, jsonrpc: '2.0', method: 'getAccountAddresses', params: { account: p2wpkh } },
    })
  await list() // discovery (cold)
  await measureCalls(2000, list)
  const warmList = median(
    [await measureCalls(2000, list), await measureCalls(2000, list), await measureCalls(2000, list)].map(
      (sample) => sample.cpu,
    ),
  )

  console.log(
    `secp256k1 backend: ${secp256k1Backend.name}; CPU µs/op, medians of ${rounds} alternating rounds of ${iterations}`,
  )
  for (const [name, result, rawName] of rows) {
    console.log(
      `${name.padEnd(46)} ${result.subject.toFixed(1).padStart(8)} µs  vs ${result.raw.toFixed(1).padStart(7)} µs  = ${result.ratio.toFixed(2)}× ${rawName} (rounds ${result.spread.map((x) => x.toFixed(2)).join('–')}×, wall ${result.wallRatio.toFixed(2)}×)`,
    )
  }
  console.log(
    `${'handle() getAccountAddresses, warm'.padEnd(46)} ${warmList.toFixed(1).padStart(8)} µs  (target ≤ 1000 µs)`,
  )
  await wallet.close()
}
