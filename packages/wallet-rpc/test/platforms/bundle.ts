import { mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

/**
 * Bundles a browser entry the way a wallet team would, with each of the three bundlers and no plugin, no
 * `.wasm` loader and no Node polyfill (the only polyfill, `buffer`, is imported by the entry itself).
 * Each returns one classic script (IIFE), usable as a page's `<script>` and as an MV3 service worker.
 */
export const root = fileURLToPath(new URL('../..', import.meta.url))
/** The workspace's installs (npm hoists every package's dependencies to the repository root). */
export const nodeModules = fileURLToPath(new URL('../../../../node_modules', import.meta.url))

export type Bundler = 'esbuild' | 'webpack' | 'vite'
export const bundlers: Bundler[] = ['esbuild', 'webpack', 'vite']

export async function bundle(bundler: Bundler, entry: string, outDir: string): Promise<string> {
  mkdirSync(outDir, { recursive: true })
  const outfile = join(outDir, `${bundler}.js`)
  if (bundler === 'esbuild') {
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      minify: true,
      outfile,
      logLevel: 'error',
    })
  } else if (bundler === 'webpack') {
    const { default: webpack } = await import('webpack')
    await new Promise<void>((resolve, reject) =>
      webpack(
        {
          mode: 'production',
          target: 'web',
          entry,
          output: { path: outDir, filename: `${bundler}.js`, iife: true },
          devtool: false,
          performance: { hints: false },
        },
        (error, stats) => {
          if (error) return reject(error)
          if (stats?.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true })))
          resolve()
        },
      ),
    )
  } else {
    const { build } = await import('vite')
    await build({
      root: dirname(entry),
      logLevel: 'error',
      configFile: false,
      build: {
        outDir,
        emptyOutDir: false,
        minify: true,
        lib: { entry, formats: ['iife'], name: 'walletRpcTest', fileName: () => `${bundler}.js` },
      },
    })
  }
  readFileSync(outfile) // exists
  return outfile
}
