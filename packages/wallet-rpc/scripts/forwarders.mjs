#!/usr/bin/env node
// Build step (after tsc): `wallet-rpc/pay/sandbox`, a fixed public name, forwards to the pay sandbox's own
// package. Written here rather than compiled: the library builds before the sandbox (which depends on it),
// so tsc cannot resolve the sandbox's types yet. Without `@wallet-rpc/pay-sandbox` installed, Node's
// ERR_MODULE_NOT_FOUND names that package, and TypeScript's "cannot find module" names it too.
import { mkdirSync, writeFileSync } from 'node:fs'

const folder = new URL('../dist/pay/sandbox/', import.meta.url)
const forward = `// The pay sandbox is its own package: npm install @wallet-rpc/pay-sandbox\nexport * from '@wallet-rpc/pay-sandbox'\n`
mkdirSync(folder, { recursive: true })
writeFileSync(new URL('index.js', folder), forward)
writeFileSync(new URL('index.d.ts', folder), forward)
