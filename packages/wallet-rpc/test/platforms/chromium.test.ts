import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { base58 } from '@scure/base'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import type { EngineTypes } from '@walletconnect/types'
import { validateSignedCacao } from '@walletconnect/utils'
import puppeteer, { type Browser, type Target } from 'puppeteer-core'
import { createPublicClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { BIP122_MAINNET } from '../../src/bip122/index.js'
import { solanaMainnet } from '../../src/solana/index.js'
import {
  verifyCacao,
  verifyPersonalSign,
  verifySignMessage,
  verifySolanaSignMessage,
  verifyTonSignData,
} from '../../src/verify/index.js'
import { type LocalRelay, startLocalRelay } from '../walletkit/localRelay.js'
import { type Bundler, bundle, bundlers, root } from './bundle.js'
import {
  buildExample,
  contentScriptApproveAttempt,
  contentScriptPage,
  exampleDappUrl,
  exampleMnemonic,
  openExamplePopup,
  sessionAccount,
  startExampleDapp,
} from './extensionExample.js'
import {
  agreementTable,
  browserBackends,
  expectSameAsNode,
  nodeOutcome,
  type Outcome,
  platformCases,
  sendingMethods,
} from './vectorCases.js'

/**
 * The library where browser wallets run it: bundles made by esbuild, webpack and Vite (no plugin, no
 * `.wasm` loader, no Node polyfill but `buffer`) loaded in headless Debian Chromium (a) as a page's script and
 * (b) as the service worker of an unpacked Manifest V3 extension, where `import()` and synchronous XHR are
 * forbidden and a worker has no DOM. Each context answers every conformance vector that needs no chain —
 * signing methods of every namespace, refusals, session properties, and the vector's wallet-rpc/verify
 * check — and every vector that needs a chain (the sending methods') over a recorded chain served inside the
 * context (fixtures/chainStubs.js); the answers and broadcast bytes must equal Node's byte for byte.
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
  /** The WalletConnect relay between examples/extension and the Node-side dapp. */
  let relay: LocalRelay | undefined
  /** eip155:1 of examples/extension (its ETHEREUM_RPC_URL), where a payment at connect is made. */
  let anvil: AnvilInstance | undefined
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
    ;[relay, anvil] = await Promise.all([
      startLocalRelay(),
      startAnvil({ chainId: 1, mnemonic: exampleMnemonic }),
    ])
    extensions.push(
      await buildExample(join(work, 'example'), relay.url, {
        ETHEREUM_CHAIN_ID: '1',
        ETHEREUM_RPC_URL: anvil.url,
        // The local relay runs no Verify server: every origin is UNKNOWN, a danger for a sign-in at connect.
        ALLOW_DANGEROUS: 'siwe.origin_unverified',
      }),
    )
    writeFileSync(join(work, 'page', 'index.html'), '<!doctype html><title>wallet-rpc</title>')
    writeFileSync(join(work, 'page', contentScriptPage), '<!doctype html><title>a web page</title>')
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
    await relay?.close()
    await anvil?.stop()
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
      expect(outcome.backends).toEqual(browserBackends)
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
      expect(outcome.backends).toEqual(browserBackends)
    }, 120_000)
  }

  it('examples/extension answers a proposal with a sign-in (a CACAO) and a payment (walletPay, mined on anvil) from its MV3 service worker', async () => {
    expect(exampleWorker, 'the example extension started').toBeDefined()
    const popup = await openExamplePopup(browser, exampleWorker!)
    const merchant = '0x000000000000000000000000000000000000bEEF'
    const chain = createPublicClient({ transport: http(anvil!.url) })
    const before = await chain.getBalance({ address: merchant })
    // The user's answers: connect, sign the sign-in, make the payment (one approval each).
    for (const method of ['session_proposal', 'personal_sign', 'eth_sendTransaction'])
      await popup.send({ type: 'approve', method })
    const dapp = await startExampleDapp(relay!)
    try {
      const signIn = {
        domain: new URL(exampleDappUrl).host,
        chains: ['eip155:1'],
        nonce: 'extensionNonce1',
        uri: `${exampleDappUrl}/login`,
        statement: 'Sign in to the example dapp.',
      }
      const walletPay = {
        version: '1.0.0',
        orderId: 'extension-order-1',
        expiry: Math.floor(Date.now() / 1000) + 300,
        acceptedPayments: [
          { asset: 'eip155:1/slip44:60', amount: '0x2386f26fc10000', recipient: `eip155:1:${merchant}` },
        ],
      }
      const session = await dapp.connect((uri) => popup.send({ type: 'pair', uri }), {
        // The SDK's type also asks for a ttl, which this sign-in leaves out (as proposalRequests.e2e.test.ts does).
        authentication: [signIn] as never,
        walletPay: walletPay as EngineTypes.WalletPayParams,
      })
      const [cacao] = session.authentication ?? []
      if (!cacao)
        throw new Error(`no CACAO; worker errors: ${JSON.stringify(await popup.send({ type: 'errors' }))}`)
      expect(cacao.p.iss.toLowerCase()).toBe(
        `did:pkh:eip155:1:${sessionAccount(session, 'eip155:1').toLowerCase()}`,
      )
      expect(await validateSignedCacao({ cacao })).toBe(true)
      expect(verifyCacao(cacao, { domain: signIn.domain, nonce: signIn.nonce, uri: signIn.uri })).toEqual({
        valid: true,
      })
      const [paid] =
        (session as typeof session & { walletPayResult?: EngineTypes.WalletPayResult[] }).walletPayResult ??
        []
      expect(paid).toMatchObject({
        orderId: 'extension-order-1',
        asset: 'eip155:1/slip44:60',
        amount: '0x2386f26fc10000',
      })
      const receipt = await chain.getTransactionReceipt({ hash: paid!.txid as `0x${string}` })
      expect(receipt.status).toBe('success')
      expect((await chain.getBalance({ address: merchant })) - before).toBe(10n ** 16n)
      expect(await popup.send({ type: 'errors' }), 'no WalletKit error reported in the worker').toEqual([])
      // The dapp leaves: the worker drops the session (the next test counts the sessions it holds).
      await dapp.client.disconnect({
        topic: session.topic,
        reason: { code: 6000, message: 'User disconnected.' },
      })
      await vi.waitFor(async () => expect(await popup.send({ type: 'sessions' })).toEqual([]), {
        timeout: 20_000,
      })
    } finally {
      await dapp.close()
      await popup.close()
    }
  }, 120_000)

  it('examples/extension is a WalletKit wallet: a dapp pairs through the relay, gets one verified answer per namespace per one-shot approval and refusals, also after Chrome stopped the worker', async () => {
    expect(exampleWorker, 'the example extension started').toBeDefined()
    const popup = await openExamplePopup(browser, exampleWorker!)
    const send = popup.send
    // The user's answers, given ahead, one request each: connect, and sign these four (eth_signTypedData_v4
    // stays unapproved).
    for (const method of [
      'session_proposal',
      'personal_sign',
      'signMessage',
      'ton_signData',
      'solana_signMessage',
    ])
      await send({ type: 'approve', method })
    const dapp = await startExampleDapp(relay!)
    try {
      const session = await dapp.connect((uri) => send({ type: 'pair', uri }))
      expect(Object.keys(session.namespaces).sort()).toEqual(['bip122', 'eip155', 'solana', 'ton'])
      expect(await send({ type: 'sessions' })).toEqual([
        expect.objectContaining({
          topic: session.topic,
          peer: expect.objectContaining({ url: exampleDappUrl }),
        }),
      ])

      const personal = ['0x68656c6c6f', sessionAccount(session, 'eip155:1')]
      const signature = await dapp.request(session, 'eip155:1', 'personal_sign', personal)
      expect(verifyPersonalSign(personal, signature)).toEqual({ valid: true })
      // That approval was consumed: the same method again, without a fresh one, is rejected.
      await expect(dapp.request(session, 'eip155:1', 'personal_sign', personal)).rejects.toEqual({
        code: 4001,
        message: 'User denied the request.',
      })

      const message = {
        account: sessionAccount(session, BIP122_MAINNET),
        message: 'from the extension',
        protocol: 'bip322',
      }
      const signed = await dapp.request(session, BIP122_MAINNET, 'signMessage', message)
      expect(verifySignMessage(message as never, signed)).toEqual({ valid: true })

      const signData = [{ type: 'text', text: 'from the extension' }]
      const signedData = await dapp.request(session, 'ton:-239', 'ton_signData', signData)
      expect(
        verifyTonSignData(signData, signedData, {
          publicKey: session.sessionProperties?.ton_getPublicKey ?? '',
          stateInit: session.sessionProperties?.ton_getStateInit ?? '',
          domain: new URL(exampleDappUrl).host,
        }),
      ).toEqual({ valid: true })

      const solanaMessage = {
        message: base58.encode(new TextEncoder().encode('from the extension')),
        pubkey: sessionAccount(session, solanaMainnet),
      }
      const solanaSigned = await dapp.request(session, solanaMainnet, 'solana_signMessage', solanaMessage)
      expect(verifySolanaSignMessage(solanaMessage, solanaSigned)).toEqual({ valid: true })

      // A web page's content script tries to approve eth_signTypedData_v4: the worker answers only the
      // extension's own pages, so the request below stays unapproved.
      expect(await contentScriptApproveAttempt(browser, `${origin}/${contentScriptPage}`)).toMatch(
        /^no answer/,
      )
      // Not approved by the user (nor by the content script): the dapp's SDK rejects with 5000, nothing signed.
      const typedData = {
        types: {
          EIP712Domain: [{ name: 'name', type: 'string' }],
          Mail: [{ name: 'contents', type: 'string' }],
        },
        primaryType: 'Mail',
        domain: { name: 'Example' },
        message: { contents: 'not approved' },
      }
      await expect(
        dapp.request(session, 'eip155:1', 'eth_signTypedData_v4', [personal[1], JSON.stringify(typedData)]),
      ).rejects.toEqual({ code: 4001, message: 'User denied the request.' })
      expect(await send({ type: 'errors' }), 'no WalletKit error reported in the worker').toEqual([])

      // Chrome stops an idle worker; a request sent meanwhile waits at the relay. The next event starts the
      // worker again, WalletKit restores the session from IndexedDB and answers the request: once the popup's
      // message, once an alarm (what starts the worker while the popup is closed).
      const stopWorker = async () => {
        const stoppedWorker = exampleWorker!
        let onDestroyed = (_target: Target) => {}
        const stopped = new Promise<void>((resolve) => {
          onDestroyed = (target) => target === stoppedWorker && resolve()
          browser.on('targetdestroyed', onDestroyed)
        })
        await (await stoppedWorker.worker())!.close()
        await stopped
        browser.off('targetdestroyed', onDestroyed)
        return () =>
          browser.waitForTarget(
            (target) =>
              target.type() === 'service_worker' &&
              target.url() === stoppedWorker.url() &&
              target !== stoppedWorker,
          )
      }
      /**
       * Sends personal_sign while the worker is stopped; returns once the relay holds it (a new irn_publish),
       * so the answer can only come through the relay's mailbox after a restart.
       */
      const requestWhileStopped = async (params: unknown[]) => {
        const before = relay!.methods.length
        const answered = dapp.request(session, 'eip155:1', 'personal_sign', params)
        answered.catch(() => {}) // awaited by the caller: a rejection meanwhile is no unhandled one
        await vi.waitFor(() => expect(relay!.methods.slice(before)).toContain('irn_publish'), {
          timeout: 20_000,
        })
        return { answered }
      }

      // Woken by the popup's message.
      await send({ type: 'approve', method: 'personal_sign' })
      let restarted = await stopWorker()
      const afterRestart = ['0x726573746172746564', personal[1]]
      let { answered } = await requestWhileStopped(afterRestart)
      expect(await send({ type: 'sessions' })).toEqual([expect.objectContaining({ topic: session.topic })])
      exampleWorker = await restarted()
      expect(verifyPersonalSign(afterRestart, await answered)).toEqual({ valid: true })
      expect(await send({ type: 'errors' })).toEqual([])

      // Woken by an alarm, no runtime message: requests arrive while the popup is closed (the worker's own
      // 30 s alarm does the same; waiting for it is no test).
      await send({ type: 'approve', method: 'personal_sign' })
      restarted = await stopWorker()
      const afterAlarm = ['0x616c61726d', personal[1]]
      ;({ answered } = await requestWhileStopped(afterAlarm))
      await popup.wakeByAlarm(200)
      exampleWorker = await restarted()
      expect(verifyPersonalSign(afterAlarm, await answered)).toEqual({ valid: true })
      expect(await send({ type: 'errors' })).toEqual([])
      expect(await popup.relayAlarm()).toMatchObject({ name: 'walletconnect-relay', periodInMinutes: 0.5 })
    } finally {
      await dapp.close()
      await popup.close()
    }
  }, 120_000)
})
