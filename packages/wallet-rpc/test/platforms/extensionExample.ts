import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { SignClient } from '@walletconnect/sign-client'
import type { SessionTypes } from '@walletconnect/types'
import type { Browser, Target } from 'puppeteer-core'
import { BIP122_MAINNET } from '../../src/bip122/index.js'
import { solanaMainnet } from '../../src/solana/index.js'
import type { LocalRelay } from '../walletkit/localRelay.js'
import { relayCore } from '../walletkit/localRelay.js'
import { nodeModules, root } from './bundle.js'

/** What a wallet built from examples/extension installs (its package.json), linked to this checkout's copies. */
const exampleInstalls = ['buffer', 'esbuild', '@reown/walletkit', '@walletconnect/core']

/**
 * A web page the test serves over http on 127.0.0.1 (any port: a match pattern without one matches all). The
 * built extension gets a TEST-ONLY content script on it, which tries to approve a signature the way a
 * malicious page could drive a content script to: the worker must refuse anything but its own pages.
 */
export const contentScriptPage = 'approve-attempt.html'
const contentScriptMethod = 'eth_signTypedData_v4'
/**
 * The content script records the worker's answer on the page (its DOM is shared) for the test to read: the
 * worker's `{ ok: true }` if it stored the approval; none (the message resolves with undefined, or rejects)
 * if it ignored the message.
 */
const contentScript = `const record = (text) => { document.documentElement.dataset.approveAttempt = text }
chrome.runtime.sendMessage({ type: 'approve', method: '${contentScriptMethod}' }).then(
  (answer) => record(answer === undefined ? 'no answer' : 'answered: ' + JSON.stringify(answer)),
  (error) => record('no answer: ' + error.message),
)
`

/**
 * Builds examples/extension the way its README says (`npm run build`, i.e. `node build.mjs`, in a folder
 * holding the example and its installs) with the relay URL compiled in, into `dir`; returns the unpacked
 * extension's folder. The installs are symlinks: `wallet-rpc` to this checkout, the others to its node_modules.
 * Then adds the test-only content script on `http://127.0.0.1/${contentScriptPage}` to dist/manifest.json.
 */
export async function buildExample(
  dir: string,
  relayUrl: string,
  settings: Record<string, string> = {},
): Promise<string> {
  const source = join(dir, 'src')
  cpSync(join(root, 'examples/extension'), source, { recursive: true })
  const modules = join(source, 'node_modules')
  mkdirSync(join(modules, '@reown'), { recursive: true })
  mkdirSync(join(modules, '@walletconnect'), { recursive: true })
  symlinkSync(root, join(modules, 'wallet-rpc'))
  for (const name of exampleInstalls) symlinkSync(join(nodeModules, name), join(modules, name))
  await promisify(execFile)(process.execPath, ['build.mjs'], {
    cwd: source,
    env: {
      ...process.env,
      WALLETCONNECT_PROJECT_ID: 'local-test',
      WALLETCONNECT_RELAY_URL: relayUrl,
      ...settings,
    },
  })
  const dist = join(source, 'dist')
  const manifest = JSON.parse(readFileSync(join(dist, 'manifest.json'), 'utf8'))
  manifest.content_scripts = [
    {
      matches: [`http://127.0.0.1/${contentScriptPage}`],
      js: ['approve-attempt.js'],
      run_at: 'document_end',
    },
  ]
  writeFileSync(join(dist, 'manifest.json'), JSON.stringify(manifest))
  writeFileSync(join(dist, 'approve-attempt.js'), contentScript)
  return dist
}

/**
 * Opens `url` (the suite's http page `contentScriptPage`) and resolves with the worker's answer to the content
 * script's `{ type: 'approve', method: 'eth_signTypedData_v4' }`, once it came: 'no answer…' or 'answered: …'.
 */
export async function contentScriptApproveAttempt(browser: Browser, url: string): Promise<string> {
  const page = await browser.newPage()
  try {
    await page.goto(url)
    const attempt = await page.waitForFunction(
      () =>
        (globalThis as unknown as { document: { documentElement: { dataset: { approveAttempt?: string } } } })
          .document.documentElement.dataset.approveAttempt,
    )
    return String(await attempt.jsonValue())
  } finally {
    await page.close()
  }
}

export const exampleDappUrl = 'https://dapp.example'

/** The namespaces the dapp asks for (the SDK turns required ones into optional ones): one chain each. */
const exampleNamespaces = {
  bip122: { chains: [BIP122_MAINNET], methods: ['signMessage'], events: [] },
  eip155: { chains: ['eip155:1'], methods: ['personal_sign', 'eth_signTypedData_v4'], events: [] },
  solana: { chains: [solanaMainnet], methods: ['solana_signMessage'], events: [] },
  ton: { chains: ['ton:-239'], methods: ['ton_signData'], events: [] },
}

/** The example's demo mnemonic (background.js): anvil funds its first accounts when started with it. */
export const exampleMnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

/** A dapp as in production: the real `SignClient` and `@walletconnect/core`, here on the local relay. */
export async function startExampleDapp(relay: LocalRelay) {
  const client = await SignClient.init({
    core: relayCore(relay, 'dapp'),
    metadata: { name: 'Example dapp', description: '', url: exampleDappUrl, icons: [] },
    logger: 'silent',
  })
  return {
    client,
    /** Proposes a session; `pair(uri)` hands the `wc:` URI to the wallet; resolves with the settled session. */
    async connect(
      pair: (uri: string) => Promise<unknown>,
      requests: Pick<Parameters<typeof client.connect>[0], 'authentication' | 'walletPay'> = {},
    ): Promise<SessionTypes.Struct> {
      const { uri, approval } = await client.connect({ optionalNamespaces: exampleNamespaces, ...requests })
      if (!uri) throw new Error('SignClient.connect gave no pairing uri')
      await pair(uri)
      return approval()
    },
    request: <T>(session: SessionTypes.Struct, chainId: string, method: string, params: unknown) =>
      client.request<T>({ topic: session.topic, chainId, request: { method, params } }),
    async close() {
      await client.core.relayer.transportClose().catch(() => {})
      client.core.heartbeat.stop()
    },
  }
}

/** The account of `session` on `chainId` (CAIP-10 `chainId:address`), without the chain. */
export function sessionAccount(session: SessionTypes.Struct, chainId: string): string {
  const namespace = session.namespaces[chainId.split(':')[0]!]
  const account = namespace?.accounts.find((candidate) => candidate.startsWith(`${chainId}:`))
  if (!account) throw new Error(`the session has no ${chainId} account`)
  return account.slice(chainId.length + 1)
}

/**
 * The example's popup page, opened in `browser`: `send` posts a chrome.runtime message to the background
 * service worker, as the popup's own script does (and wakes the worker if Chrome stopped it).
 */
export async function openExamplePopup(browser: Browser, serviceWorker: Target) {
  const page = await browser.newPage()
  await page.goto(`chrome-extension://${new URL(serviceWorker.url()).host}/popup.html`)
  return {
    send: (message: unknown): Promise<unknown> =>
      page.evaluate(
        (m) =>
          (
            globalThis as unknown as { chrome: { runtime: { sendMessage(m: unknown): Promise<unknown> } } }
          ).chrome.runtime.sendMessage(m),
        message as never,
      ),
    /** Sets a one-off alarm `delay` ms from now: its event starts the stopped worker (no runtime message). */
    wakeByAlarm: (delay: number): Promise<void> =>
      page.evaluate(
        (ms) =>
          (
            globalThis as unknown as {
              chrome: { alarms: { create(name: string, info: { when: number }): Promise<void> } }
            }
          ).chrome.alarms.create('test-wake', { when: Date.now() + ms }),
        delay,
      ),
    /** The alarm the worker sets to be started again every 30 s (undefined if none). */
    relayAlarm: (): Promise<unknown> =>
      page.evaluate(() =>
        (
          globalThis as unknown as { chrome: { alarms: { get(name: string): Promise<unknown> } } }
        ).chrome.alarms.get('walletconnect-relay'),
      ),
    close: () => page.close(),
  }
}
