#!/usr/bin/env node
// `npm run size`: each subpath bundled for the browser with esbuild (minified, metafile), its min and
// min+gzip bytes, what the library itself adds beyond its dependencies, and a check that importing one
// namespace never pulls another namespace's chain library. Fails above the budgets (README, Size).
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import * as esbuild from 'esbuild'

/** The package's folder: bundles resolve `wallet-rpc` from here, and metafile paths start at `dist/`. */
const packageRoot = fileURLToPath(new URL('..', import.meta.url))

/** Budgets in KiB (min+gzip), set from the first measurement plus about 10%. */
export const budgets = {
  'wallet-rpc': 15,
  'wallet-rpc/bip122': 136,
  'wallet-rpc/ton': 136,
  'wallet-rpc/eip155': 134,
  'wallet-rpc/solana': 60,
  'wallet-rpc/verify': 162,
  'wallet-rpc/walletkit': 48,
  'wallet-rpc/pay': 18,
  'wallet-rpc/explorer': 5,
}
/** Each namespace's chain libraries, which no other namespace's bundle may contain. */
const chainLibraries = {
  bip122: ['node_modules/bitcoinjs-lib/', 'node_modules/bip32/', 'node_modules/bip174/'],
  // tweetnacl is not listed: it is the shared Ed25519 fallback (src/crypto/ed25519.ts) of ton and solana.
  ton: ['node_modules/@ton/core/', 'node_modules/@ton/crypto/'],
  eip155: ['node_modules/viem/', 'node_modules/ox/'],
  solana: ['node_modules/@solana/', 'node_modules/litesvm/'],
}

export async function measure(subpath) {
  const result = await esbuild.build({
    stdin: { contents: `export * from '${subpath}'`, resolveDir: packageRoot, loader: 'js' },
    absWorkingDir: packageRoot,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'error',
  })
  const code = result.outputFiles[0].contents
  const inputs = Object.entries(result.metafile.outputs)[0][1].inputs
  const ours = Object.entries(inputs)
    .filter(([path]) => path.startsWith('dist/'))
    .reduce((sum, [, input]) => sum + input.bytesInOutput, 0)
  return { min: code.length, gzip: gzipSync(code).length, ours, inputs: Object.keys(inputs) }
}

export function foreignChainLibraries(subpath, inputs) {
  const own = subpath.split('/')[1]
  return Object.entries(chainLibraries)
    .filter(([namespace]) => namespace !== own)
    .flatMap(([, libraries]) => libraries.filter((library) => inputs.some((path) => path.includes(library))))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let failed = false
  const kib = (bytes) => (bytes / 1024).toFixed(1).padStart(7)
  console.log('subpath                    min KiB  gzip KiB  ours KiB  budget (gzip)')
  for (const [subpath, budget] of Object.entries(budgets)) {
    const { min, gzip, ours, inputs } = await measure(subpath)
    const over = gzip / 1024 > budget
    const foreign = ['bip122', 'ton', 'eip155', 'solana'].includes(subpath.split('/')[1])
      ? foreignChainLibraries(subpath, inputs)
      : []
    failed ||= over || foreign.length > 0
    console.log(
      `${subpath.padEnd(24)} ${kib(min)}   ${kib(gzip)}   ${kib(ours)}   ${String(budget).padStart(5)} ${over ? 'OVER BUDGET' : 'ok'}${foreign.length ? ` pulls ${foreign.join(', ')}` : ''}`,
    )
  }
  process.exit(failed ? 1 : 0)
}
