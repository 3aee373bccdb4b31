import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { root } from './bundle.js'

/**
 * A React Native app as a wallet team makes one, bundled by Metro itself with `@react-native/metro-config`'s
 * defaults (main fields `react-native`, `browser`, `main`; package exports with the `react-native`
 * condition; `@react-native/babel-preset` through RN's Babel transformer; inline requires).
 *
 * The app directory: `node_modules/wallet-rpc` is a link to the package root, as `npm i file:…` makes it, so
 * Metro resolves the package through its `exports` and fields as for any installed package;
 * `buffer` and `fast-text-encoding` are the real packages the README names; the README's other two need
 * native code and stand in from fixtures/react-native/ (each says why). No stand-in for anything wallet-rpc
 * never calls: Metro fails the build if the bundle requires a package the app does not have (`expo-crypto`,
 * `react-native-fast-pbkdf2` through @ton/crypto's React Native entry, until the package's `react-native`
 * field gave /ton and /verify their own @ton/core). `shim.js` is the README's React Native setup block, read
 * from README.md, and `index.js` imports it first.
 */
const fixtures = join(root, 'test/platforms/fixtures')
const standIns = ['react-native-get-random-values', 'react-native-url-polyfill']
const realPackages = ['buffer', 'fast-text-encoding']
const require = createRequire(import.meta.url)
/** Where an installed package's folder is (the repository's or a workspace root's node_modules). */
const packageFolder = (name: string) => dirname(require.resolve(`${name}/package.json`))
/** The node_modules folder that holds wallet-rpc's own dependencies. */
const dependencies = dirname(dirname(packageFolder('@ton/core')))

/** The code block between `<!-- react-native-setup -->` and its closing marker in README.md. */
export function readmeReactNativeSetup(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const block = /<!-- react-native-setup -->\n```js\n([\s\S]*?)```\n<!-- \/react-native-setup -->/.exec(
    readme,
  )
  if (block?.[1] === undefined) throw new Error('README.md has no react-native-setup block')
  return block[1]
}

/** Writes the app into `work/app`, its `index.js` importing the shim and then `entry` (a fixture path). */
export function createMetroApp(work: string, entry: string): string {
  const app = join(work, 'app')
  const modules = join(app, 'node_modules')
  mkdirSync(modules, { recursive: true })
  symlinkSync(root, join(modules, 'wallet-rpc'), 'dir')
  for (const name of realPackages) symlinkSync(packageFolder(name), join(modules, name), 'dir')
  for (const name of standIns)
    cpSync(join(fixtures, 'react-native', name), join(modules, name), { recursive: true })
  const declared = Object.fromEntries([
    ['wallet-rpc', `file:${root}`],
    ...[...realPackages, ...standIns].map((name) => [name, '*']),
  ])
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'wallet-app', private: true, dependencies: declared }),
  )
  writeFileSync(join(app, 'shim.js'), readmeReactNativeSetup())
  writeFileSync(join(app, 'index.js'), `import './shim'\nimport ${JSON.stringify(entry)}\n`)
  return app
}

/** Metro's release bundle of the app (`dev: false`, as `react-native bundle` makes for a release build). */
export async function buildMetroBundle(
  app: string,
  out: string,
  options: { minify: boolean },
): Promise<string> {
  const { getDefaultConfig, mergeConfig } = require('@react-native/metro-config')
  const Metro = require('metro')
  const config = mergeConfig(getDefaultConfig(app), {
    // The harness's differences from an app's metro.config.js. wallet-rpc's link points into this
    // repository, so Metro watches it and the folder of its dependencies (Metro's loadConfig would add the
    // app itself; runBuild with a config object does not), and its dependencies resolve from there, where the
    // app's own packages are not: nodeModulesPaths adds the app's node_modules for them (in an installed app
    // hoisting puts everything in one node_modules), then that folder for the fixtures' test dependencies;
    watchFolders: [...new Set([app, root, dependencies])],
    resolver: { nodeModulesPaths: [join(app, 'node_modules'), dependencies], useWatchman: false },
    serializer: {
      // no `react-native` package here, so no InitializeCore (fixtures/react-native/runtimeGlobals.js gives
      // the globals of it the suite needs), and RN's own polyfills plus what the standalone Hermes 0.12 lacks;
      getModulesRunBeforeMainModule: () => [],
      getPolyfills: () => [
        ...require('@react-native/js-polyfills')(),
        join(fixtures, 'react-native/hermes012Polyfills.js'),
      ],
    },
    // and a cache of its own per run, so no earlier build's transform is reused.
    cacheStores: [],
    reporter: { update() {} },
  })
  await Metro.runBuild(config, {
    entry: join(app, 'index.js'),
    out,
    platform: 'android',
    dev: false,
    ...options,
  })
  return out
}
