import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import jsQRModule from 'jsqr'
import type { Browser, HTTPRequest, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createWalletRpc } from 'wallet-rpc'
import { eip155, httpProvider, mnemonicKeys } from 'wallet-rpc/eip155'
import { createPayClient, parsePaymentLink } from 'wallet-rpc/pay'
import { type PaySandbox, startPaySandbox } from '../../src/index.js'
import { findChromium, launchChromium } from './chromium.js'

// jsqr is CommonJS with `export default` types: the default import is the function at run time.
const jsQR = jsQRModule as unknown as typeof import('jsqr')['default']

/**
 * The buyer's checkout portal in headless Debian Chromium on a phone-sized viewport: the QR code is read from a
 * screenshot by an independent decoder (jsQR on Chromium's own decoding of the PNG), that link is paid by our
 * wallet through wallet-rpc/pay on anvil, and the open page follows to succeeded without a reload (or leaves
 * for `successUrl`); a payment that times out shows the expired view; hostile merchant text stays inert; the
 * page works without JavaScript; unknown ids get the 404 page. Screenshots go to artifacts/checkout/.
 */
const chromium = findChromium('checkout portal')

const artifacts = join(process.cwd(), 'artifacts', 'checkout')
const mnemonic = 'test test test test test test test test test test test junk'
const checkoutHost = 'pay.sandbox.test'
const phone = { width: 390, height: 844, deviceScaleFactor: 1, isMobile: true, hasTouch: true }
/** The merchant's site and icon host: answered by request interception (the test machine has no network). */
const shop = 'https://shop.example'
const iconSvg =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 48 48"><rect width="48" height="48" rx="10" fill="#f59e0b"/><circle cx="24" cy="24" r="11" fill="#fff"/></svg>'

describe.skipIf(!chromium)('checkout portal in headless Chromium', () => {
  let browser: Browser
  let anvil: AnvilInstance
  let sandbox: PaySandbox

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    anvil = await startAnvil()
    sandbox = await startPaySandbox({
      checkoutUrl: `https://${checkoutHost}`,
      merchantName: 'Corner Coffee',
      merchantIconUrl: `${shop}/icon.svg`,
      chains: { 'eip155:31337': anvil.url },
      processingMs: 300,
      settlementMs: null,
      pollInMs: 50,
    })
    browser = await launchChromium(chromium!)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await sandbox?.stop()
    await anvil?.stop()
  })

  type Watched = { page: Page; dialogs: string[]; cspViolations: string[]; statuses: string[] }

  /** A phone-sized tab that answers the shop's URLs itself and records dialogs, CSP reports and status lines. */
  async function phoneTab(): Promise<Watched> {
    const page = await browser.newPage()
    await page.emulate({ viewport: phone, userAgent: 'Mozilla/5.0 (Linux; Android 14) Mobile' })
    const watched: Watched = { page, dialogs: [], cspViolations: [], statuses: [] }
    page.on('dialog', (dialog) => {
      watched.dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) watched.cspViolations.push(message.text())
    })
    await page.setRequestInterception(true)
    page.on('request', (request: HTTPRequest) => {
      if (!request.url().startsWith(`${shop}/`)) return void request.continue()
      if (request.url() === `${shop}/icon.svg`)
        return void request.respond({ status: 200, contentType: 'image/svg+xml', body: iconSvg })
      return void request.respond({
        status: 200,
        contentType: 'text/html',
        body: '<!doctype html><title>Shop</title><h1>Back at the shop</h1>',
      })
    })
    // The status line's every change, reported to the test (the exposed function survives navigations).
    await page.exposeFunction('reportStatus', (text: string) => watched.statuses.push(text))
    // (Page-side code is passed as text: these tests compile without the DOM library.)
    await page.evaluateOnNewDocument(`document.addEventListener('DOMContentLoaded', () => {
      const status = document.getElementById('status')
      if (status === null) return
      const report = () => window.reportStatus(status.textContent ?? '')
      report()
      new MutationObserver(report).observe(status, { childList: true, characterData: true, subtree: true })
    })`)
    return watched
  }

  async function createCheckout(
    target: PaySandbox,
    body: { referenceId?: string; value?: string; checkout?: Record<string, string> } = {},
  ): Promise<{ paymentId: string; gatewayUrl: string }> {
    const response = await fetch(`${target.url}/v1/merchant/payment`, {
      method: 'POST',
      headers: {
        'Api-Key': target.apiKey,
        'Merchant-Id': target.merchantId,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({
        referenceId: body.referenceId ?? `order-${Math.random().toString(36).slice(2, 8)}`,
        amount: { unit: 'iso4217/USD', value: body.value ?? '1250' },
        ...(body.checkout === undefined ? {} : { checkout: body.checkout }),
      }),
    })
    expect(response.status).toBe(201)
    return (await response.json()) as { paymentId: string; gatewayUrl: string }
  }

  async function screenshot(page: Page, name: string): Promise<string> {
    const png = await page.screenshot({ type: 'png', fullPage: true, encoding: 'base64' })
    writeFileSync(join(artifacts, `${name}.png`), Buffer.from(png, 'base64'))
    return png
  }

  /** Chromium decodes the screenshot PNG onto a canvas (a blank tab, no CSP); jsQR reads the pixels in Node. */
  async function decodeQr(pngBase64: string): Promise<string> {
    const decoder = await browser.newPage()
    try {
      const { width, height, rgba } = (await decoder.evaluate(`(async () => {
        const image = new Image()
        image.src = 'data:image/png;base64,${pngBase64}'
        await image.decode()
        const canvas = document.createElement('canvas')
        canvas.width = image.naturalWidth
        canvas.height = image.naturalHeight
        const context = canvas.getContext('2d')
        context.drawImage(image, 0, 0)
        const data = context.getImageData(0, 0, canvas.width, canvas.height).data
        let binary = ''
        for (let at = 0; at < data.length; at += 0x8000)
          binary += String.fromCharCode(...data.subarray(at, at + 0x8000))
        return { width: canvas.width, height: canvas.height, rgba: btoa(binary) }
      })()`)) as { width: number; height: number; rgba: string }
      const pixels = new Uint8ClampedArray(Buffer.from(rgba, 'base64'))
      const code = jsQR(pixels, width, height)
      expect(code, 'a QR code in the screenshot').not.toBeNull()
      return code!.data
    } finally {
      await decoder.close()
    }
  }

  /** What our wallet does with a scanned link: wallet-rpc/pay over the eip155 namespace on anvil. */
  async function payWithWallet(link: string, addressIndex: number) {
    const wallet = createWalletRpc({
      namespaces: [
        eip155({
          keys: mnemonicKeys({ mnemonic, addressIndex }),
          chains: [{ chainId: 31337, provider: httpProvider(anvil.url) }],
        }),
      ],
      approve: () => true,
    })
    const client = createPayClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.apiKey,
      wallet,
      trustedHosts: [checkoutHost],
      version: '2026-02-18',
      maxPollMs: 5_000,
    })
    const options = await client.getOptions(link, { includePaymentInfo: true })
    const [address] = await wallet.accounts('eip155:31337')
    const option = options.options.find((candidate) => candidate.account === `eip155:31337:${address}`)!
    expect(option.available).toBe(true)
    return client.pay(link, option.id, { options })
  }

  it('QR from the screenshot → our wallet pays → the open page follows to succeeded without reloading', async () => {
    const { paymentId, gatewayUrl } = await createCheckout(sandbox, { referenceId: 'order-1042' })
    const { page, dialogs, cspViolations, statuses } = await phoneTab()
    const response = await page.goto(gatewayUrl, { waitUntil: 'networkidle2' })
    expect(response?.status()).toBe(200)
    expect(await page.$eval('h1', (node) => node.textContent)).toBe('Corner Coffee')
    expect(await page.$eval('.amount', (node) => node.textContent)).toBe('Amount: 12.50 USD')
    expect(
      await page.$eval('img.icon', (node) => (node as unknown as { naturalWidth: number }).naturalWidth),
    ).toBeGreaterThan(0)
    // Fits a phone: nothing wider than the viewport.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(phone.width)
    // Labelled for screen readers: the QR is an image named by its caption; the status line is a live region.
    expect(await page.$eval('svg[role="img"]', (node) => node.getAttribute('aria-labelledby'))).toBe(
      'qr-caption',
    )
    expect(await page.$eval('#status', (node) => node.getAttribute('role'))).toBe('status')
    const countdown = await page.$eval('#countdown', (node) => node.textContent ?? '')
    expect(countdown).toMatch(/^1[45]:[0-5][0-9]$/)

    const png = await screenshot(page, 'pending')
    const scanned = await decodeQr(png)
    expect(scanned).toBe(`https://${checkoutHost}/${paymentId}`)
    expect(parsePaymentLink(scanned, { trustedHosts: [checkoutHost] })).toBe(paymentId)

    // Keyboard: Tab reaches the wallet link and the link details, in reading order.
    const focused: string[] = []
    for (let step = 0; step < 3; step++) {
      await page.keyboard.press('Tab')
      focused.push(String(await page.evaluate(`document.activeElement?.textContent?.trim() ?? ''`)))
    }
    expect(focused.slice(0, 2)).toEqual(['Open in a wallet app', 'Payment link as text'])

    await page.evaluate('window.sameDocument = true')
    const result = await payWithWallet(scanned, 3)
    expect(['processing', 'succeeded']).toContain(result.status)
    await page.waitForSelector('#result-heading', { timeout: 20_000 })
    await page.waitForFunction(
      `document.getElementById('result-heading')?.textContent === 'Payment succeeded'`,
      { timeout: 20_000 },
    )
    // Live: the same document (no reload), the focus moved to the result, the QR and countdown are gone.
    expect(await page.evaluate('window.sameDocument')).toBe(true)
    expect(await page.evaluate('document.activeElement?.id')).toBe('result-heading')
    expect(await page.$('svg')).toBeNull()
    expect(await page.$('#countdown')).toBeNull()
    expect(statuses).toContain('Payment succeeded')
    expect(sandbox.control.payment(paymentId)).toMatchObject({ status: 'succeeded' })
    await screenshot(page, 'succeeded')
    expect(dialogs).toEqual([])
    expect(cspViolations).toEqual([])
    await page.close()
  }, 120_000)

  it('with both redirect URLs HTTPS, the page follows the wallet payment to succeeded and leaves for successUrl', async () => {
    const successUrl = `${shop}/thanks?order=1043`
    const { paymentId, gatewayUrl } = await createCheckout(sandbox, {
      referenceId: 'order-1043',
      checkout: { successUrl, errorUrl: `${shop}/sorry?order=1043` },
    })
    const { page, cspViolations, statuses } = await phoneTab()
    await page.goto(gatewayUrl, { waitUntil: 'networkidle2' })
    const scanned = await decodeQr(await screenshot(page, 'redirect-pending'))
    expect(parsePaymentLink(scanned, { trustedHosts: [checkoutHost] })).toBe(paymentId)
    const arrived = page.waitForResponse((response) => response.url() === successUrl, { timeout: 30_000 })
    await payWithWallet(scanned, 4)
    await arrived
    await page.waitForFunction(`location.href === ${JSON.stringify(successUrl)}`, { timeout: 10_000 })
    expect(await page.$eval('h1', (node) => node.textContent)).toBe('Back at the shop')
    expect(statuses.at(-1)).toBe('Payment succeeded')
    expect(sandbox.control.payment(paymentId)).toMatchObject({ status: 'succeeded' })
    expect(cspViolations).toEqual([])
    // Opening gatewayUrl again goes straight to the merchant (303).
    const again = await page.goto(gatewayUrl)
    expect(again?.url()).toBe(successUrl)
    await page.close()
  }, 120_000)

  it('a payment without redirect URLs that runs out of time shows the expired view, live', async () => {
    const shortLived = await startPaySandbox({ checkoutUrl: `https://${checkoutHost}`, paymentTtlMs: 4_000 })
    try {
      const { gatewayUrl } = await createCheckout(shortLived)
      const { page, cspViolations } = await phoneTab()
      await page.goto(gatewayUrl, { waitUntil: 'domcontentloaded' })
      expect(await page.$('svg')).not.toBeNull()
      await page.evaluate('window.sameDocument = true')
      await page.waitForFunction(
        `document.getElementById('result-heading')?.textContent === 'Payment expired'`,
        { timeout: 30_000 },
      )
      expect(await page.evaluate('window.sameDocument')).toBe(true)
      // Nothing left to submit: no QR code, no wallet link.
      expect(await page.$('svg')).toBeNull()
      expect(await page.$('a[href^="wc:"]')).toBeNull()
      expect(page.url()).toBe(gatewayUrl)
      await screenshot(page, 'expired')
      expect(cspViolations).toEqual([])
      await page.close()
    } finally {
      await shortLived.stop()
    }
  }, 60_000)

  it('hostile merchant name and referenceId stay inert text', async () => {
    const name = `Evil"><img src=x onerror=alert('name')><script>alert('name2')</script>`
    const referenceId = `ref-<img src=y onerror=alert('ref')>`
    const hostile = await startPaySandbox({
      merchantName: name,
      merchantIconUrl: 'javascript:alert(1)//https://x',
    })
    try {
      const { gatewayUrl } = await createCheckout(hostile, { referenceId })
      const { page, dialogs, cspViolations } = await phoneTab()
      await page.goto(gatewayUrl, { waitUntil: 'networkidle2' })
      expect(await page.$eval('h1', (node) => node.textContent)).toBe(name)
      expect(await page.$eval('.reference', (node) => node.textContent)).toBe(referenceId)
      expect(await page.$$eval('img', (nodes) => nodes.length)).toBe(0)
      expect(await page.$$eval('script', (nodes) => nodes.length)).toBe(1)
      expect(await page.title()).toContain(name)
      await screenshot(page, 'xss-inert')
      expect(dialogs).toEqual([])
      expect(cspViolations).toEqual([])
      await page.close()
    } finally {
      await hostile.stop()
    }
  }, 60_000)

  it('without JavaScript the page reads fine and a plain reload brings the new status', async () => {
    const { paymentId, gatewayUrl } = await createCheckout(sandbox)
    const { page } = await phoneTab()
    await page.setJavaScriptEnabled(false)
    await page.goto(gatewayUrl, { waitUntil: 'domcontentloaded' })
    expect(await page.$eval('h1', (node) => node.textContent)).toBe('Corner Coffee')
    expect(await page.$('svg[role="img"]')).not.toBeNull()
    sandbox.control.fail(paymentId)
    // The <noscript> refresh reloads the page (5 s); the server renders the terminal view.
    const reloaded = await page.waitForNavigation({ timeout: 20_000 })
    expect(reloaded?.status()).toBe(200)
    expect(await page.$eval('#result-heading', (node) => node.textContent)).toBe('Payment failed')
    await screenshot(page, 'noscript-failed')
    await page.close()
  }, 60_000)

  it('an unknown payment id gets the 404 page', async () => {
    const { page } = await phoneTab()
    const response = await page.goto(`${sandbox.url}/pay_unknown0000000000000000`)
    expect(response?.status()).toBe(404)
    expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8')
    expect(await page.$eval('h1', (node) => node.textContent)).toBe('Payment not found')
    await screenshot(page, 'not-found')
    await page.close()
  }, 30_000)
})
