#!/usr/bin/env node
// Build step (after tsc): the explorer sample's listing file and its logos, sized, into dist. tsc copies no
// assets, and sizing at build time means the published sandbox serves ready files; it uses the same
// `renderLogo` the sandbox applies to a user's own listing file, so both paths give identical bytes.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { renderLogo } from '../dist/explorer/logos.js'

const source = new URL('../src/explorer/sample/', import.meta.url)
const target = new URL('../dist/explorer/sample/', import.meta.url)
const sizes = ['sm', 'md', 'lg']

mkdirSync(target, { recursive: true })
copyFileSync(new URL('listings.json', source), new URL('listings.json', target))
const logos = readdirSync(new URL('logos/', source)).filter((name) => name.endsWith('.svg'))
for (const size of sizes) {
  mkdirSync(new URL(`logos/${size}/`, target), { recursive: true })
  for (const name of logos) {
    const svg = readFileSync(new URL(`logos/${name}`, source), 'utf8')
    try {
      writeFileSync(new URL(`logos/${size}/${name}`, target), renderLogo(svg, size))
    } catch (error) {
      console.error(`explorer logo ${name}: ${error.message}`)
      process.exit(1)
    }
  }
}
console.log(`explorer sample: ${logos.length} logos × ${sizes.length} sizes`)
