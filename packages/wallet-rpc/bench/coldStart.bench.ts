import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { buildSync } from 'esbuild'
import { median } from './measure.js'

/**
 * Cold start, as an MV3 service worker or a freshly launched wallet pays it after every idle stop: wall time
 * of a fresh Node process that imports one subpath of the built package (`dist/`, what `npm run bench`
 * builds), against a fresh process importing the namespace's own chain library, in alternating runs; the
 * median of `runs` each. Then "process start → first answer" for personal_sign and BIP-322 signMessage from
 * an HD mnemonic (PBKDF2 seed, derivation, backend choice, signature), against the chain library doing the
 * same job directly, as shipped (unbundled) and as an extension or app ships it (one esbuild bundle, minified).
 *
 * Targets (issue 14): each namespace at most 1.2x its chain library. Printed, not asserted.
 */
const root = fileURLToPath(new URL('../', import.meta.url))
const runs = Number(process.env.COLD_START_RUNS ?? 9)
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

const imports: Array<{ subpath: string; module: string; library: string }> = [
  { subpath: 'wallet-rpc/eip155', module: './dist/eip155/index.js', library: 'viem/accounts' },
  { subpath: 'wallet-rpc/bip122', module: './dist/bip122/index.js', library: 'bitcoinjs-lib' },
  { subpath: 'wallet-rpc/ton', module: './dist/ton/index.js', library: '@ton/core' },
  // Solana has no chain library among our dependencies: the SDK a Solana wallet would otherwise use (a
  // devDependency), and the Ed25519 primitive that signs, the stricter comparison.
  { subpath: 'wallet-rpc/solana', module: './dist/solana/index.js', library: '@solana/kit' },
  { subpath: 'wallet-rpc/solana', module: './dist/solana/index.js', library: '@noble/curves/ed25519.js' },
  { subpath: 'wallet-rpc', module: './dist/index.js', library: 'valibot' },
]

/**
 * Process start → first answer, ours against the chain library doing the same job directly (the mnemonic's
 * seed, the derivation, the signature): what a wallet pays after each idle stop, with or without this library.
 */
const firstAnswers: Array<{ name: string; ours: string; library: string; libraryName: string }> = [
  {
    name: 'first personal_sign (eip155, HD mnemonic)',
    ours: `
      import { createWalletRpc } from './dist/index.js'
      import { eip155, mnemonicKeys } from './dist/eip155/index.js'
      const wallet = createWalletRpc({ namespaces: [eip155({ keys: mnemonicKeys({ mnemonic: '${mnemonic}' }), chains: [1] })], approve: () => true })
      const answer = await wallet.handle({ chainId: 'eip155:1', request: { id: 1, method: 'personal_sign', params: ['0x68656c6c6f', '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'] } })
      if (!('result' in answer)) throw new Error(JSON.stringify(answer))`,
    libraryName: 'viem mnemonicToAccount + signMessage',
    library: `
      import { mnemonicToAccount } from 'viem/accounts'
      const signature = await mnemonicToAccount('${mnemonic}').signMessage({ message: { raw: '0x68656c6c6f' } })
      if (!signature) throw new Error('no signature')`,
  },
  {
    name: 'first signMessage bip322 (bip122, HD mnemonic)',
    ours: `
      import { createWalletRpc } from './dist/index.js'
      import { bip122, hdKeys } from './dist/bip122/index.js'
      const wallet = createWalletRpc({ namespaces: [bip122({ keys: hdKeys({ mnemonic: '${mnemonic}' }) })], approve: () => true })
      const answer = await wallet.handle({ chainId: 'bip122:000000000019d6689c085ae165831e93', request: { id: 1, method: 'signMessage', params: { account: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', message: 'cold', protocol: 'bip322' } } })
      if (!('result' in answer)) throw new Error(JSON.stringify(answer))`,
    libraryName: 'bip39 + bip32 + bip322-js Signer.sign',
    library: `
      import * as ecc from '@bitcoinerlab/secp256k1'
      import { BIP32Factory } from 'bip32'
      import { mnemonicToSeedSync } from 'bip39'
      import { Signer } from 'bip322-js'
      const key = BIP32Factory(ecc).fromSeed(mnemonicToSeedSync('${mnemonic}')).derivePath("m/84'/0'/0'/0/0")
      const signature = Signer.sign(key.toWIF(), 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', 'cold')
      if (!signature) throw new Error('no signature')`,
  },
]

// The child's own CPU time (user + system, all its threads) at exit: on a shared machine wall time swings
// with the load, CPU time much less, so both are printed.
const reportCpu = `;{const u=process.cpuUsage();process.stdout.write('\\ncpu '+(u.user+u.system)/1000)}`

/** Wall and CPU milliseconds of one fresh `node` running `script` as an ES module from the package root. */
function timesOf(script: string): { wall: number; cpu: number } {
  const start = process.hrtime.bigint()
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script + reportCpu], {
    cwd: root,
    encoding: 'utf8',
  })
  const wall = Number(process.hrtime.bigint() - start) / 1e6
  if (child.status !== 0) throw new Error(`cold-start script failed: ${child.stderr.slice(-2000)}`)
  return { wall, cpu: Number(child.stdout.split('\ncpu ').at(-1)) }
}

type Medians = { wall: number; cpu: number }

/** Medians of alternating runs of each script (which goes first rotates), in milliseconds. */
function alternate(scripts: string[]): Medians[] {
  const samples = scripts.map(() => ({ wall: [] as number[], cpu: [] as number[] }))
  for (let round = 0; round < runs; round++) {
    for (let k = 0; k < scripts.length; k++) {
      const index = (k + round) % scripts.length
      const { wall, cpu } = timesOf(scripts[index]!)
      samples[index]!.wall.push(wall)
      samples[index]!.cpu.push(cpu)
    }
  }
  return samples.map(({ wall, cpu }) => ({ wall: median(wall), cpu: median(cpu) }))
}

/** Wall and CPU milliseconds of one side, e.g. `  231 ms (cpu  130)`. */
function times({ wall, cpu }: Medians): string {
  return `${wall.toFixed(0).padStart(5)} ms (cpu ${cpu.toFixed(0).padStart(4)})`
}

/** Both ratios, wall first (what the target is about), e.g. `1.20x (cpu 1.08x)`. */
function ratios(ours: Medians, theirs: Medians): string {
  return `${(ours.wall / theirs.wall).toFixed(2)}x (cpu ${(ours.cpu / theirs.cpu).toFixed(2)}x)`
}

export async function run(): Promise<void> {
  console.log(
    `cold start: wall (and CPU) ms of a fresh node process, median of ${runs} alternating runs (target <= 1.2x); load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  )
  for (const { subpath, module, library } of imports) {
    const [ours, theirs] = alternate([`await import('${module}')`, `await import('${library}')`])
    const ratio = ours!.wall / theirs!.wall
    console.log(
      `  import ${subpath.padEnd(18)} ${times(ours!)}   ${library.padEnd(24)} ${times(theirs!)}   ${ratios(ours!, theirs!)} ${ratio <= 1.2 ? 'ok' : 'ABOVE TARGET'}`,
    )
  }
  console.log('  process start -> first answer, ours vs the chain library doing the same job directly:')
  const scratch = mkdtempSync(join(tmpdir(), 'cold-start-'))
  try {
    for (const { name, ours, library, libraryName } of firstAnswers) {
      for (const packaging of ['unbundled', 'bundled'] as const) {
        const [mine, theirs] = alternate(
          packaging === 'unbundled' ? [ours, library] : [bundled(ours, scratch), bundled(library, scratch)],
        )
        console.log(
          `  ${`${name}, ${packaging}`.padEnd(58)} ${times(mine!)}   ${libraryName} ${times(theirs!)}   ${ratios(mine!, theirs!)}`,
        )
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

let bundles = 0
/** `script` bundled with everything it imports into one minified ES module; a script that imports it. */
function bundled(script: string, scratch: string): string {
  const outfile = join(scratch, `bundle-${++bundles}.mjs`)
  buildSync({
    stdin: { contents: script, resolveDir: root, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    minify: true,
    outfile,
    logLevel: 'error',
    // CommonJS dependencies (bip39, bitcoinjs-lib) call require() for Node built-ins.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
  })
  return `await import(${JSON.stringify(pathToFileURL(outfile).href)})`
}
