import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import vm from 'node:vm'
import { afterAll, describe, expect, it } from 'vitest'
import { type Bundler, bundle, bundlers, nodeModules, root } from './bundle.js'

/**
 * Zero-config bundling: every public subpath a browser wallet may import (all of package.json's exports but
 * the Node-only pay sandbox, conformance runner and Postgres webhook store), imported alone by an app that
 * installed wallet-rpc, bundles with esbuild, webpack 5 and Vite with no plugin, no `.wasm` loader and no Node polyfill (only the README's `Buffer` line
 * for /ton and /verify), and the script loads where no Node global exists and exports what Node's import of
 * the subpath exports. The Chromium suite runs the root, the namespaces and verify in a page and a service worker; this one
 * also covers walletkit, pay and explorer, and each subpath on its own.
 */
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>
}
const nodeOnly = new Set(['./package.json', './pay/sandbox', './pay/postgres', './conformance'])
const subpaths = Object.keys(pkg.exports)
  .filter((subpath) => !nodeOnly.has(subpath))
  .map((subpath) => (subpath === '.' ? 'wallet-rpc' : `wallet-rpc/${subpath.slice(2)}`))

/** The subpaths that need the README's `Buffer` line (@ton/core reads the global while it loads). */
const needsBuffer = new Set(['wallet-rpc/ton', 'wallet-rpc/verify'])

/**
 * What a browser page or an MV3 service worker offers a script at load (no `process`, `require`, `Buffer`,
 * `module`), as a fresh V8 context: a bundle that still needs Node fails to load here.
 */
function browserLikeContext(): vm.Context {
  const { TextEncoder, TextDecoder, URL, URLSearchParams, crypto, atob, btoa, setTimeout, clearTimeout } =
    globalThis
  const context = vm.createContext({ TextEncoder, TextDecoder, URL, URLSearchParams, crypto, atob, btoa })
  Object.assign(context, { setTimeout, clearTimeout, queueMicrotask, self: context })
  return context
}

/**
 * The script `bundler` makes of an app entry (in `app`) that imports the whole of `subpath`: every export kept,
 * not what tree shaking leaves of it; with `polyfill`, the app's Buffer module is imported first.
 */
async function bundleSubpath(app: string, subpath: string, bundler: Bundler, polyfill: boolean) {
  const dir = join(app, subpath.replace(/\W/g, '_'))
  mkdirSync(dir, { recursive: true })
  const entry = join(dir, 'entry.js')
  writeFileSync(
    entry,
    `${polyfill ? "import '../polyfill.js'\n" : ''}import * as subpath from '${subpath}'\nglobalThis.subpath = subpath\n`,
  )
  return readFileSync(await bundle(bundler, entry, join(dir, 'out')), 'utf8')
}

describe('every browser subpath bundles alone with every bundler, no plugin', () => {
  // An app that installed wallet-rpc: its node_modules/wallet-rpc is this checkout.
  const app = mkdtempSync(join(tmpdir(), 'wallet-rpc-subpaths-'))
  mkdirSync(join(app, 'node_modules'))
  symlinkSync(root, join(app, 'node_modules/wallet-rpc'))
  symlinkSync(join(nodeModules, 'buffer'), join(app, 'node_modules/buffer'))
  // The README's one setup line for /ton and /verify (Platforms), in a module the entry imports first.
  writeFileSync(join(app, 'polyfill.js'), "import { Buffer } from 'buffer'\nglobalThis.Buffer ??= Buffer\n")
  afterAll(() => rmSync(app, { recursive: true, force: true }))

  it('covers every subpath the issue names', () => {
    for (const name of ['', '/bip122', '/ton', '/eip155', '/solana', '/verify', '/walletkit', '/pay'])
      expect(subpaths).toContain(`wallet-rpc${name}`)
  })

  for (const subpath of subpaths)
    for (const bundler of bundlers)
      it(`${subpath} with ${bundler}`, async () => {
        const script = await bundleSubpath(app, subpath, bundler, needsBuffer.has(subpath))
        const context = browserLikeContext()
        vm.runInContext(script, context)
        const loaded = Object.keys((context as { subpath?: object }).subpath ?? {}).sort()
        expect(loaded).toEqual(Object.keys(await import(subpath)).sort())
      }, 120_000)
})

describe('without the Buffer line, /ton and /verify say so at load (never a wrong verdict later)', () => {
  const app = mkdtempSync(join(tmpdir(), 'wallet-rpc-nobuffer-'))
  mkdirSync(join(app, 'node_modules'))
  symlinkSync(root, join(app, 'node_modules/wallet-rpc'))
  afterAll(() => rmSync(app, { recursive: true, force: true }))

  for (const subpath of needsBuffer)
    for (const bundler of bundlers)
      it(`${subpath} with ${bundler}`, async () => {
        const script = await bundleSubpath(app, subpath, bundler, false)
        expect(() => vm.runInContext(script, browserLikeContext())).toThrow(
          /need a global Buffer.*globalThis\.Buffer = Buffer/,
        )
      }, 120_000)
})
