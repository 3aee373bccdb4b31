#!/usr/bin/env node
// Build step (after tsc): each chain namespace's entry (`dist/<namespace>/index.js`) becomes one ES module
// holding that namespace's own files. Node pays per module file at import (resolve, read, compile: about
// 0.3 ms each, 15-36 files per namespace), and a wallet started cold (an MV3 worker after each idle stop)
// pays it every time. Everything outside the namespace's folder stays an import: the packages (viem,
// bitcoinjs-lib, @ton/core…, shared with the app) and this package's shared modules (`../core`, `../crypto`,
// `../verify`), so `createWalletRpc` and the namespaces keep one copy of each error class and backend.
// tsc's per-file `.js` and `.d.ts` stay beside it (the types, and the sources a stack trace names).
import { dirname, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const dist = fileURLToPath(new URL('../dist/', import.meta.url))
/** Modules of a namespace folder that stay separate files (the package's `browser` field swaps them). */
const keptSeparate = new Set([resolve(dist, 'eip155/viemUtils.js')])

for (const namespace of ['bip122', 'ton', 'eip155', 'solana']) {
  const folder = resolve(dist, namespace)
  const entry = resolve(folder, 'index.js')
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outfile: entry,
    allowOverwrite: true,
    logLevel: 'error',
    plugins: [
      {
        name: 'namespace-only',
        setup(build) {
          build.onResolve({ filter: /.*/ }, (args) => {
            if (args.kind === 'entry-point') return undefined
            if (!args.path.startsWith('.')) return { path: args.path, external: true }
            const target = resolve(dirname(args.importer), args.path)
            if (target.startsWith(`${folder}/`) && !keptSeparate.has(target)) return undefined
            const path = relative(folder, target)
            return { path: path.startsWith('.') ? path : `./${path}`, external: true }
          })
        },
      },
    ],
  })
}
