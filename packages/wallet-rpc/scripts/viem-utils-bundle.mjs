#!/usr/bin/env node
// Build step (after tsc): Node's copy of `dist/eip155/viemUtils.js` becomes one esbuild bundle of just the
// viem helpers it re-exports. Node does not tree-shake: the `viem/utils` barrel loads ~270 files (actions,
// CCIP, ox, abitype) for 17 functions, which was most of `wallet-rpc/eip155`'s cold start. Bundlers read the
// package's `browser` field and get tsc's plain re-export (`viemUtils.browser.js`) instead, so a browser,
// extension or React Native app shares its own viem and ships no second copy (`npm run size` checks it).
// The bundled code is viem's own, unchanged: no signed byte can differ.
import { readFileSync, writeFileSync } from 'node:fs'
import * as esbuild from 'esbuild'

const folder = new URL('../dist/eip155/', import.meta.url)
const reexport = readFileSync(new URL('viemUtils.js', folder), 'utf8')
writeFileSync(new URL('viemUtils.browser.js', folder), reexport)
await esbuild.build({
  stdin: { contents: reexport, resolveDir: new URL('.', folder).pathname, loader: 'js' },
  bundle: true,
  format: 'esm',
  // `browser` resolves viem's socket helper (isows) without Node's `ws`; tree-shaking drops it anyway, and
  // what is left is plain computation (hex, keccak, RLP, EIP-712, ABI), the same in Node.
  platform: 'browser',
  target: 'es2022',
  outfile: new URL('viemUtils.js', folder).pathname,
  allowOverwrite: true,
  legalComments: 'inline',
  logLevel: 'error',
})
