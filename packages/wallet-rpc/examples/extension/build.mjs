// `npm run build`: one classic script (a service worker may not `import()`), the manifest and the popup,
// all in dist/.
// WALLETCONNECT_PROJECT_ID (your project id from dashboard.reown.com), WALLETCONNECT_RELAY_URL (default:
// WalletConnect's relay), ETHEREUM_CHAIN_ID (default 1), ETHEREUM_RPC_URL (none: sign only) and ALLOW_DANGEROUS
// (comma-separated danger codes the user may approve; none) are read from the environment and compiled in.
import { copyFileSync } from 'node:fs'
import { build } from 'esbuild'

const define = {}
for (const name of [
  'WALLETCONNECT_PROJECT_ID',
  'WALLETCONNECT_RELAY_URL',
  'ETHEREUM_CHAIN_ID',
  'ETHEREUM_RPC_URL',
  'ALLOW_DANGEROUS',
]) {
  if (process.env[name]) define[name] = JSON.stringify(process.env[name])
}
if (!process.env.WALLETCONNECT_PROJECT_ID)
  console.warn(
    'build.mjs: WALLETCONNECT_PROJECT_ID is unset: the bundle carries YOUR_PROJECT_ID, which the relay refuses',
  )
await build({
  entryPoints: ['background.js'],
  bundle: true,
  format: 'iife',
  outfile: 'dist/background.js',
  define,
})
for (const file of ['manifest.json', 'popup.html', 'popup.js']) copyFileSync(file, `dist/${file}`)
