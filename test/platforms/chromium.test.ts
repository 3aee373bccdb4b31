import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as esbuild from 'esbuild'
import puppeteer, { type Browser, type Target } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyPersonalSign, verifySignMessage, verifyTonSignData } from '../../src/verify/index.js'
import { type Bundler, bundle, bundlers, root } from './bundle.js'
import {
  agreementTable,
  expectSameAsNode,
  nodeOutcome,
  type Outcome,
  platformCases,
  portableBackends,
  sendingMethods,
} from './vectorCases.js'

/**
 * The library where browser wallets run it: bundles made by esbuild, webpack and Vite (no plugin, no
 * `.wasm` loader, no Node polyfill but `buffer`) loaded in headless Debian Chromium (a) as a page's script and
 * (b) as the service worker of an unpacked Manifest V3 extension, where `import()` and synchronous XHR are
 * forbidden and a worker has no DOM. Each context answers every conformance vector that needs no chain —
 * signing methods of every namespace, refusals, session properties, and the vector's wallet-rpc/verify
 * check — and every sending method's vector over a recorded chain served inside the context
 * (fixtures/chainStubs.js); the answers and broadcast bytes must equal Node's byte for byte.
 */
const chromium =
  process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync)
const required = process.env.REQUIRE_CHROMIUM === '1'
if (!chromium && !required) {
  console.warn('chromium not found (apt install chromium, or CHROMIUM_PATH): the browser suite is SKIPPED')
}

describe.runIf(!chromium && required)('chromium required', () => {
  it('chromium is installed', () => {
    expect.fail('REQUIRE_CHROMIUM=1 but no chromium (apt install chromium, or set CHROMIUM_PATH)')
  })
})

describe.skipIf(!chromium)('browser wallets (headless Chromium)', () => {
  const cases = platformCases()
  const work = mkdtempSync(join(tmpdir(), 'wallet-rpc-chromium-'))
  let browser: Browser
  let server: Server
  let origin = ''
  let node: Outcome
  const scripts = new Map<Bundler, string>()
  /** Bundler → the service worker target of its extension. */
  const serviceWorkers = new Map<Bundler, Target>()
  let exampleWorker: Target | undefined
  /** Context ("esbuild page", "vite service worker" …) → its answers, for the summary printed at the end. */
  const outcomes = new Map<string, Outcome>()

  beforeAll(async () => {
    node = await nodeOutcome(cases)
    const entry = join(root, 'test/platforms/fixtures/browserEntry.js')
    for (const bundler of bundlers) scripts.set(bundler, await bundle(bundler, entry, join(work, 'page')))
    // One unpacked MV3 extension per bundler: its service worker is the bundle.
    const extensions: string[] = bundlers.map((bundler) => {
      const dir = join(work, `extension-${bundler}`)
      mkdirSync(dir, { recursive: true })
      writeFileSync(
        join(dir, 'manifest.json'),
        JSON.stringify({
          manifest_version: 3,
          name: `wallet-rpc ${bundler}`,
          version: '1.0',
          background: { service_worker: 'background.js' },
        }),
      )
      writeFileSync(join(dir, 'background.js'), readFileSync(scripts.get(bundler)!))
      return dir
    })
    extensions.push(await buildExample(join(work, 'example')))
    writeFileSync(join(work, 'page', 'index.html'), '<!doctype html><title>wallet-rpc</title>')
    server = createServer((request, response) => {
      const name = (request.url ?? '/').slice(1) || 'index.html'
      const path = join(work, 'page', name)
      if (!/^[\w.-]+$/.test(name) || !existsSync(path)) return void response.writeHead(404).end()
      response.writeHead(200, { 'content-type': name.endsWith('.js') ? 'text/javascript' : 'text/html' })
      response.end(readFileSync(path))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await puppeteer.launch({
      executablePath: chromium!,
      headless: true,
      pipe: true,
      enableExtensions: extensions,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    })
    // Each extension's service worker, told apart by the name in its own manifest.
    const deadline = Date.now() + 90_000 // a loaded CI machine starts extensions slowly
    while ((serviceWorkers.size < bundlers.length || !exampleWorker) && Date.now() < deadline) {
      for (const target of browser.targets().filter((candidate) => candidate.type() === 'service_worker')) {
        // A worker that is still starting (or one that is not an extension's) has no chrome.runtime yet.
        const name = await target
          .worker()
          .then((worker) =>
            worker?.evaluate(
              () =>
                (
                  globalThis as unknown as { chrome?: { runtime?: { getManifest?(): { name: string } } } }
                ).chrome?.runtime?.getManifest?.().name,
            ),
          )
          .catch(() => undefined)
        const bundler = bundlers.find((candidate) => name === `wallet-rpc ${candidate}`)
        if (bundler !== undefined) serviceWorkers.set(bundler, target)
        if (name === 'wallet-rpc example wallet') exampleWorker = target
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }, 240_000)

  afterAll(async () => {
    if (outcomes.size > 0)
      console.log(`Chromium, per method and context:\n${agreementTable(cases, node, outcomes)}`)
    await browser?.close()
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    rmSync(work, { recursive: true, force: true })
  })

  it('the vectors cover every namespace, the sending methods, refusals, and verify checks', () => {
    const methods = new Set(cases.map((testCase) => testCase.request.method))
    const signing = ['signMessage', 'signPsbt', 'getAccountAddresses', 'personal_sign', 'ton_signData']
    for (const method of [...signing, ...sendingMethods]) expect(methods).toContain(method)
    // Each sending method signed and broadcast something in Node (what the other contexts must reproduce).
    for (const method of sendingMethods)
      expect(
        cases.some(
          (testCase, i) => testCase.request.method === method && node.results[i]?.broadcasts?.length === 1,
        ),
      ).toBe(true)
    expect(node.results.some(({ answer }) => 'error' in (answer as object))).toBe(true)
    expect(node.results.filter(({ verdict }) => verdict !== undefined).length).toBeGreaterThan(5)
    expect(node.results.every(({ verdict }) => verdict === undefined || verdict.valid)).toBe(true)
  })

  for (const bundler of bundlers) {
    it(`${bundler} bundle in a page: every answer equals Node's`, async () => {
      const page = await browser.newPage()
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(String(error)))
      await page.goto(`${origin}/index.html`)
      await page.addScriptTag({ url: `${origin}/${bundler}.js` })
      const outcome = (await page.evaluate(
        (input) => (globalThis as unknown as { runCases: (c: unknown) => Promise<unknown> }).runCases(input),
        cases as never,
      )) as Outcome
      outcomes.set(`${bundler} page`, outcome)
      expect(errors).toEqual([])
      expectSameAsNode(cases, outcome, node)
      expect(outcome.backends).toEqual(portableBackends)
      await page.close()
    }, 120_000)

    it(`${bundler} bundle as an MV3 extension's service worker: every answer equals Node's`, async () => {
      const target = serviceWorkers.get(bundler)
      expect(target, `the ${bundler} extension's service worker started`).toBeDefined()
      const worker = (await target!.worker())!
      const outcome = (await worker.evaluate(
        (input) => (globalThis as unknown as { runCases: (c: unknown) => Promise<unknown> }).runCases(input),
        cases as never,
      )) as Outcome
      outcomes.set(`${bundler} service worker`, outcome)
      expectSameAsNode(cases, outcome, node)
      expect(outcome.backends).toEqual(portableBackends)
    }, 120_000)
  }

  it('examples/extension, built as its README says, answers one request per namespace from its service worker', async () => {
    expect(exampleWorker, 'the example extension started').toBeDefined()
    const worker = (await exampleWorker!.worker())!
    const send = (message: unknown) =>
      worker.evaluate(
        (m) =>
          (
            globalThis as unknown as { walletRpcExample: { onMessage(m: unknown): Promise<unknown> } }
          ).walletRpcExample.onMessage(m),
        message as never,
      ) as Promise<{ result?: unknown; error?: unknown }>
    for (const method of ['personal_sign', 'signMessage', 'ton_signData'])
      await send({ type: 'approve', method })
    const event = (id: number, chainId: string, method: string, params: unknown) => ({
      type: 'session_request',
      event: {
        id,
        topic: 'example',
        params: { chainId, request: { method, params } },
        verifyContext: { verified: { origin: 'https://dapp.example', validation: 'VALID' } },
      },
    })
    const personal = ['0x68656c6c6f', '0x9858EfFD232B4033E47d90003D41EC34EcaEda94']
    const personalAnswer = await send(event(1, 'eip155:1', 'personal_sign', personal))
    expect(verifyPersonalSign(personal, personalAnswer.result)).toEqual({ valid: true })
    const message = {
      account: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
      message: 'from the extension',
      protocol: 'bip322',
    }
    const messageAnswer = await send(
      event(2, 'bip122:000000000019d6689c085ae165831e93', 'signMessage', message),
    )
    expect(verifySignMessage(message as never, messageAnswer.result)).toEqual({ valid: true })
    const session = (await send({ type: 'session_properties' })) as Record<string, string>
    const signData = [{ type: 'text', text: 'from the extension' }]
    const signDataAnswer = await send(event(3, 'ton:-239', 'ton_signData', signData))
    expect(
      verifyTonSignData(signData, signDataAnswer.result, {
        publicKey: session.ton_getPublicKey!,
        stateInit: session.ton_getStateInit!,
        domain: 'dapp.example',
      }),
    ).toEqual({ valid: true })
    // Not approved: refused, nothing signed.
    const refused = await send(event(4, 'eip155:1', 'eth_signTypedData_v4', [personal[1], '{}']))
    expect(refused.error).toBeDefined()
  }, 60_000)
})

/**
 * Builds examples/extension the way its README says (its own package: `wallet-rpc` and `buffer` installed,
 * esbuild, no plugin), into `dir`. The installs are symlinks to this checkout.
 */
async function buildExample(dir: string): Promise<string> {
  const source = join(dir, 'src')
  cpSync(join(root, 'examples/extension'), source, { recursive: true })
  mkdirSync(join(source, 'node_modules'), { recursive: true })
  symlinkSync(root, join(source, 'node_modules/wallet-rpc'))
  symlinkSync(join(root, 'node_modules/buffer'), join(source, 'node_modules/buffer'))
  const out = join(dir, 'dist')
  await esbuild.build({
    entryPoints: [join(source, 'background.js')],
    bundle: true,
    format: 'iife',
    outfile: join(out, 'background.js'),
    logLevel: 'error',
  })
  cpSync(join(source, 'manifest.json'), join(out, 'manifest.json'))
  return out
}
