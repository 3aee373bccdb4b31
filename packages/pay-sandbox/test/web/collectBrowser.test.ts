import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaySandbox, startPaySandbox } from '../../src/index.js'
import { createPayment } from '../helpers.js'
import { findChromium, launchChromium } from './chromium.js'

/**
 * The data collection page in headless Chromium, as a wallet shows it: framed by the wallet's own page (another
 * origin), the buyer fills in the form, the stored data's page tells the wallet `IC_COMPLETE` through its hashed
 * script (the CSP lets it run); the same form posted by another site's page is refused and stores nothing.
 */
const chromium = findChromium('data collection page')

describe.skipIf(!chromium)('data collection page (headless Chromium)', () => {
  let sandbox: PaySandbox
  let browser: Browser
  let page: Page
  let wallet: Server
  let walletUrl = ''
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    sandbox = await startPaySandbox({ processingMs: null, settlementMs: null })
    for (const name of ['framed', 'forged']) {
      ids[name] = await createPayment(sandbox, `collect-${name}`)
      sandbox.control.requireCollectData(ids[name]!)
    }
    // The wallet's page frames the collect URL and records what the frame posts to it; /forged is another site's
    // page with a ready-made form for the same URL.
    wallet = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end(
        request.url === '/forged'
          ? `<!doctype html><form method="post" action="${sandbox.url}/collect/${ids.forged}">
<input name="fullName" value="Mallory"><input name="dateOfBirth" value="2000-01-01"><button id="go">Win</button></form>`
          : `<!doctype html><title>wallet</title><script>window.messages = [];
window.addEventListener('message', (event) => window.messages.push({ origin: event.origin, data: event.data }))</script>
<iframe id="collect" src="${sandbox.url}/collect/${ids.framed}" width="400" height="400"></iframe>`,
      )
    })
    await new Promise<void>((resolve) => wallet.listen(0, '127.0.0.1', resolve))
    walletUrl = `http://localhost:${(wallet.address() as AddressInfo).port}`
    browser = await launchChromium(chromium!)
    page = await browser.newPage()
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    await sandbox?.stop()
    await new Promise<void>((resolve) => (wallet ? wallet.close(() => resolve()) : resolve()))
  })

  it('framed by the wallet: the buyer submits, the data is stored and the wallet hears IC_COMPLETE', async () => {
    await page.goto(walletUrl)
    const frame = await (await page.waitForSelector('#collect'))!.contentFrame()
    await frame.waitForSelector('#fullName')
    await frame.type('#fullName', 'Grace Hopper')
    await frame.$eval('#dateOfBirth', (input) => {
      ;(input as unknown as { value: string }).value = '1906-12-09'
    })
    await frame.type('#country', 'US')
    await Promise.all([frame.waitForNavigation(), frame.click('button[type=submit]')])
    await page.waitForFunction(() => (globalThis as unknown as { messages: unknown[] }).messages.length > 0)
    const messages = await page.evaluate(() => (globalThis as unknown as { messages: unknown[] }).messages)
    expect(messages).toEqual([{ origin: sandbox.url, data: { type: 'IC_COMPLETE', success: true } }])
    expect(sandbox.control.payment(ids.framed!).collected_data).toEqual([
      { id: 'fullName', value: 'Grace Hopper' },
      { id: 'dateOfBirth', value: '1906-12-09' },
      { id: 'country', value: 'US' },
    ])
  })

  it("another site's form for the same URL is refused and stores nothing", async () => {
    await page.goto(`${walletUrl}/forged`)
    const [response] = await Promise.all([page.waitForNavigation(), page.click('#go')])
    expect(response?.status()).toBe(403)
    expect(await page.$eval('h1', (heading) => heading.textContent)).toBe('Request refused')
    expect(sandbox.control.payment(ids.forged!).collected_data).toBeNull()
  })
})
