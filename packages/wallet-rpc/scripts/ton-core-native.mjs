#!/usr/bin/env node
// Build step (after tsc): dist/vendor/ton-core.js, @ton/core bundled with dist/ton/coreCrypto.js in
// @ton/crypto's place, for React Native only: the package's `react-native` field maps `@ton/core` to it for
// this package's own modules (Metro reads object-valued main fields as replacements, bare specifiers
// included). @ton/core requires @ton/crypto, which loads @ton/crypto-primitives, whose `react-native` entry
// requires the native modules `expo-crypto` and `react-native-fast-pbkdf2`: Metro would refuse to build any
// app without them, though wallet-rpc never calls them. Everywhere else @ton/core stays an import shared with
// the app. The module lists @ton/core's exports by name (read from the installed package), so it is a plain
// ES module with static exports; the libraries the stand-in uses (@noble/hashes, tweetnacl) stay imports.
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

const root = fileURLToPath(new URL('..', import.meta.url))
const require = createRequire(join(root, 'package.json'))
const tonCore = require.resolve('@ton/core')
const names = Object.keys(require('@ton/core')).filter((name) => name !== '__esModule' && name !== 'default')
const standIn = join(root, 'dist/ton/coreCrypto.js')

await esbuild.build({
  stdin: {
    contents: `export { ${names.join(', ')} } from ${JSON.stringify(tonCore)}\n`,
    resolveDir: root,
    sourcefile: 'ton-core.native-entry.js',
  },
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['main'],
  target: 'es2022',
  outfile: join(root, 'dist/vendor/ton-core.js'),
  banner: {
    js: `// @ton/core ${require('@ton/core/package.json').version} (MIT, ton-org/ton-core) for React Native, built by scripts/ton-core-native.mjs: @ton/crypto replaced by ../ton/coreCrypto.js.`,
  },
  logLevel: 'error',
  plugins: [
    {
      name: 'ton-core-alone',
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.kind === 'entry-point') return undefined
          if (args.path === '@ton/crypto') return { path: standIn }
          // The stand-in's libraries stay imports, shared with the rest of the package.
          if (args.importer === standIn) return { path: args.path, external: true }
          return { errors: [{ text: `@ton/core now requires ${args.path}: decide how React Native gets it` }] }
        })
      },
    },
  ],
})
