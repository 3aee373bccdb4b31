import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import * as esbuild from 'esbuild'
import puppeteer from 'puppeteer-core'
import { nodeModules, root } from '../test/platforms/bundle.js'
// @ts-expect-error: plain JavaScript shared with the Chromium and Hermes bundles
import { runBench } from '../test/platforms/fixtures/benchWallet.js'
import { buildMetroBundle, createMetroApp } from '../test/platforms/metroApp.js'

/**
 * Per platform: personal_sign, BIP-322 signMessage (P2WPKH), ton_signData, solana_signMessage and a
 * 100-input P2WPKH signPsbt through `handle()`, each against the raw primitive of the same backend on the same
 * runtime in the same run (median of alternating rounds), with the absolute µs per operation, so a React
 * Native team can see what a signature costs on Hermes and whether to plug a native backend. In the first
 * Chromium worker Trust Wallet Core's WASM signs the two Ed25519 rows beside us (same bytes checked). Node uses libsecp256k1 WASM and
 * OpenSSL; Chromium runs in a dedicated worker with the portable code, then with the WASM backend plugged
 * in; Hermes (the standalone VM, an interpreter without JIT) runs the portable code in a Metro release bundle
 * of an app whose first lines are the README's React Native setup (test/platforms/metroApp.ts). Then, per
 * platform, the longest event-loop block of a large signPsbt (1000 inputs; 100 on Hermes, where a signature
 * is milliseconds) and of eth_signTypedData_v4 at its 20,000-value limit, by a 1 ms timer as bench/eventLoop.
 */
type Bench = {
  backends: Record<string, string>
  results: Record<
    string,
    { handleMicros: number; rawMicros: number; ratio: number; peer?: string; peerMicros?: number }
  >
  /** Per large request: the longest gap of a 1 ms timer while it ran, and its total (wall ms). */
  blocks: Record<string, { longestMs: number; totalMs: number }>
}

type BenchWorker = {
  onmessage: (event: { data: unknown }) => void
  onerror: (event: { message: string }) => void
  postMessage(data: unknown): void
}

const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync)
const hermes = join(nodeModules, 'hermes-engine-cli/linux64-bin/hermes')

/** tiny-secp256k1's browser loader imports its .wasm as an ES module; this one instantiates the bytes. */
const wasmFromBytes: esbuild.Plugin = {
  name: 'tiny-secp256k1-wasm-from-bytes',
  setup(build) {
    build.onLoad({ filter: /tiny-secp256k1[\\/]lib[\\/]wasm_loader\.browser\.js$/ }, () => ({
      contents: `import bytes from './secp256k1.wasm'
import * as rand from './rand.js'
import * as validate_error from './validate_error.js'
const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { './rand.js': rand, './validate_error.js': validate_error })
export default instance.exports`,
      resolveDir: join(nodeModules, 'tiny-secp256k1/lib'),
      loader: 'js',
    }))
  },
}

async function inChromium(work: string, rounds: number): Promise<Record<string, Bench>> {
  const out: Record<string, Bench> = {}
  const bundles = {
    'Chromium (pure JS, WebCrypto Ed25519; TW Core WASM beside)': {
      entry: 'benchBrowserEntry.js',
      plugins: [] as esbuild.Plugin[],
      twCore: true,
    },
    'Chromium (WASM plugged in)': {
      entry: 'benchBrowserWasmEntry.js',
      plugins: [wasmFromBytes],
      twCore: false,
    },
  }
  // Trust Wallet Core's Emscripten loader fetches its .wasm from beside the worker's script.
  copyFileSync(
    join(nodeModules, '@trustwallet/wallet-core/dist/lib/wallet-core.wasm'),
    join(work, 'wallet-core.wasm'),
  )
  // The polyfill as a script of its own, loaded by each worker with importScripts before the bundle.
  await esbuild.build({
    entryPoints: [join(root, 'test/platforms/fixtures/bufferPolyfill.js')],
    bundle: true,
    platform: 'browser',
    format: 'iife',
    outfile: join(work, 'polyfill.js'),
    logLevel: 'error',
  })
  for (const [, { entry, plugins }] of Object.entries(bundles)) {
    writeFileSync(join(work, `worker-${entry}`), `importScripts('polyfill.js', '${entry}')`)
    await esbuild.build({
      entryPoints: [join(root, 'test/platforms/fixtures', entry)],
      bundle: true,
      platform: 'browser',
      format: 'iife',
      minify: true,
      outfile: join(work, entry),
      loader: { '.wasm': 'binary' },
      // TW Core's loader requires these only when it runs in Node.
      external: ['fs', 'crypto', 'path'],
      plugins,
      logLevel: 'error',
    })
  }
  writeFileSync(join(work, 'index.html'), '<!doctype html><title>bench</title>')
  const server = createServer((request, response) => {
    const name = (request.url ?? '/').slice(1) || 'index.html'
    if (!/^[\w.-]+$/.test(name) || !existsSync(join(work, name))) return void response.writeHead(404).end()
    const type = name.endsWith('.js')
      ? 'text/javascript'
      : name.endsWith('.wasm')
        ? 'application/wasm'
        : 'text/html'
    response.writeHead(200, { 'content-type': type })
    response.end(readFileSync(join(work, name)))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const browser = await puppeteer.launch({
    executablePath: chromium!,
    headless: true,
    args: ['--no-sandbox'],
  })
  try {
    const page = await browser.newPage()
    await page.goto(`${origin}/index.html`)
    for (const [name, { entry, twCore }] of Object.entries(bundles)) {
      out[name] = (await page.evaluate(
        (url, options) =>
          new Promise((resolve, reject) => {
            const worker = new (globalThis as unknown as { Worker: new (url: string) => BenchWorker }).Worker(
              url,
            )
            worker.onmessage = (event) =>
              (event.data as { error?: string }).error
                ? reject(new Error((event.data as { error: string }).error))
                : resolve(event.data)
            worker.onerror = (event) => reject(new Error(event.message))
            worker.postMessage(options)
          }),
        `${origin}/worker-${entry}`,
        { rounds, batch: 20, twCore },
      )) as Bench
    }
  } finally {
    await browser.close()
    server.close()
  }
  return out
}

async function inHermes(work: string, rounds: number): Promise<Bench> {
  const app = createMetroApp(work, join(root, 'test/platforms/fixtures/benchHermesEntry.js'))
  const bundle = await buildMetroBundle(app, join(work, 'metro.js'), { minify: true })
  const script = `${bundle}.run.js`
  writeFileSync(
    script,
    `${readFileSync(bundle, 'utf8')}\nrunBench({ rounds: ${rounds}, batch: 5, blockPsbtInputs: 100 }).then(function (r) { print(JSON.stringify(r)) }, function (e) { print('ERROR ' + e + ' ' + e.stack) })\n`,
  )
  const { stdout } = await promisify(execFile)(hermes, ['-w', script], {
    maxBuffer: 1 << 26,
    timeout: 1_200_000,
  })
  const line = stdout.trim().split('\n').pop() ?? ''
  if (!line.startsWith('{')) throw new Error(`hermes: ${stdout.slice(-1000)}`)
  return JSON.parse(line) as Bench
}

export async function run(): Promise<void> {
  const rounds = Number(process.env.PLATFORM_BENCH_ROUNDS ?? 7)
  const work = mkdtempSync(join(tmpdir(), 'wallet-rpc-platform-bench-'))
  const platforms: Record<string, Bench> = {
    'Node (WASM, OpenSSL)': (await runBench({ rounds, batch: 50 })) as Bench,
  }
  try {
    if (chromium) Object.assign(platforms, await inChromium(work, rounds))
    else console.log('  (chromium not found: Chromium rows skipped)')
    if (existsSync(hermes))
      platforms['Hermes 0.12 (Metro bundle, pure JS, interpreter)'] = await inHermes(work, 3)
    else console.log('  (hermes not found: Hermes row skipped)')
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  console.log(
    `per platform: µs per request through handle() · µs of the raw primitive · ratio (median of rounds); load average ${loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}`,
  )
  for (const [platform, bench] of Object.entries(platforms)) {
    console.log(`  ${platform} — backends ${Object.values(bench.backends).join(' · ')}`)
    for (const [name, { handleMicros, rawMicros, ratio }] of Object.entries(bench.results)) {
      const { peer, peerMicros } = bench.results[name]!
      const beside =
        peerMicros === undefined
          ? ''
          : `  ${peer} ${peerMicros.toFixed(0)} µs (ours ÷ peer ${(handleMicros / peerMicros).toFixed(2)}x)`
      console.log(
        `    ${name.padEnd(28)} ${handleMicros.toFixed(0).padStart(9)} µs  raw ${rawMicros.toFixed(0).padStart(9)} µs  ${ratio.toFixed(2)}x${beside}`,
      )
    }
    for (const [name, { longestMs, totalMs }] of Object.entries(bench.blocks)) {
      console.log(
        `    longest block, ${name.padEnd(36)} ${longestMs.toFixed(1).padStart(9)} ms of ${totalMs.toFixed(0)} ms (wall)`,
      )
    }
  }
}
