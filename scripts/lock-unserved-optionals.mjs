#!/usr/bin/env node
// Our package registry mirror does not serve every platform build of a few tools (biome's darwin, win32 and
// android CLIs; anvil's non-linux binaries). npm then leaves those optional packages out of
// package-lock.json, and `npm ci` refuses the lockfile as out of sync. This adds each missing optional
// platform package as a version-only optional entry; npm skips it on this platform, as it would anyway.
// Run after any `npm install` that rewrote the lockfile (CI runs it before `npm ci`).
import { readFileSync, writeFileSync } from 'node:fs'

const file = process.argv[2] ?? 'package-lock.json'
const lock = JSON.parse(readFileSync(file, 'utf8'))
const added = []
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (lock.packages[`node_modules/${name}`] || lock.packages[`${path}/node_modules/${name}`]) continue
    lock.packages[`node_modules/${name}`] = { version, ...(entry.dev ? { dev: true } : {}), optional: true }
    added.push(`${name}@${version}`)
  }
}
if (added.length > 0) {
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`)
  process.stdout.write(`lockfile: added unserved optional packages ${added.join(', ')}\n`)
}
