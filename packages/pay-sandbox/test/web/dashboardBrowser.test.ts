import { mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type PaySandbox, startPaySandbox } from '../../src/index.js'
import { serveWebhooks, usd } from '../helpers.js'
import { findChromium, launchChromium } from './chromium.js'

/**
 * The merchant dashboard in headless Debian Chromium, as a merchant uses it: sign in with the key, find a payment
 * with the filters, drive a transition with the console, register a local receiver and resend a failed delivery
 * until it arrives; markup in a merchant name and a referenceId stays text; a form on another site (and on
 * another port of the same host, which SameSite alone would let through) cannot change anything; an expired
 * session goes back to sign-in. Screenshots go to artifacts/dashboard/ (gitignored).
 */
const chromium = findChromium('dashboard')

const artifacts = join(process.cwd(), 'artifacts', 'dashboard')
const xssName = '<img src=x onerror="window.__xss=1">Evil & Co'
const xssReference = '<script>window.__xss=2</script>'

describe.skipIf(!chromium)('merchant dashboard (headless Chromium)', () => {
  let sandbox: PaySandbox
  let browser: Browser
  let page: Page
  /** Added to the sandbox clock: moves session expiry forward without waiting. */
  let clockOffset = 0
  let receiver: Awaited<ReturnType<typeof serveWebhooks>> | undefined
  let receiverAnswer = 500
  const received: Array<{ type: string; data: { payment_id?: string } }> = []
  let attacker: Server
  let attackerPort = 0
  const dialogs: string[] = []
  const ids: Record<string, string> = {}

  const listen = (server: Server) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    )

  beforeAll(async () => {
    mkdirSync(artifacts, { recursive: true })
    receiver = await serveWebhooks(async (_headers, body) => {
      received.push(JSON.parse(body.toString('utf8')))
      return { status: receiverAnswer }
    })
    sandbox = await startPaySandbox({
      clock: () => Date.now() + clockOffset,
      processingMs: null,
      settlementMs: null,
      timeScale: 0.000001,
      merchantName: 'Corner Coffee',
    })
    const headers = { 'api-key': sandbox.apiKey, 'content-type': 'application/json' }
    const evil = (await fetch(`${sandbox.url}/v1/merchants`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'browser-xss' },
      body: JSON.stringify({ merchantName: xssName, merchantEmail: 'evil@example.com' }),
    }).then((reply) => reply.json())) as { merchant: { id: string } }
    const create = async (merchantId: string, referenceId: string, value: string) =>
      (
        (await fetch(`${sandbox.url}/v1/payments`, {
          method: 'POST',
          headers: { ...headers, 'merchant-id': merchantId },
          body: JSON.stringify({ referenceId, amount: usd(value) }),
        }).then((reply) => reply.json())) as { id: string }
      ).id
    for (let index = 0; index < 5; index++)
      await create(sandbox.merchantId, `latte-${index}`, `${350 + index}`)
    ids.target = await create(sandbox.merchantId, 'order-4711', '1250')
    ids.evil = await create(evil.merchant.id, xssReference, '999')
    ids.csrf = await create(sandbox.merchantId, 'order-csrf', '500')
    // The attacker's pages: a form that posts to the dashboard without the token (no script needed).
    attacker = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' })
      response.end(`<!doctype html><title>win a prize</title>
<form method="post" action="${sandbox.url}/dashboard/payments/${ids.csrf}/cancel">
<input type="hidden" name="reason" value="csrf"><button id="go" type="submit">Claim</button></form>`)
    })
    attackerPort = await listen(attacker)
    browser = await launchChromium(chromium!)
    page = await browser.newPage()
    await page.setViewport({ width: 1280, height: 900 })
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
  })

  afterAll(async () => {
    await browser?.close()
    await sandbox?.stop()
    await receiver?.close()
    await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()))
  })

  const shot = (name: string) => page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true })
  const submit = async (selector: string) => {
    await Promise.all([page.waitForNavigation(), page.click(selector)])
  }
  const text = (selector: string) => page.$eval(selector, (element) => element.textContent ?? '')

  it('signs in with the API key through the form and lands on the payments list', async () => {
    const first = await page.goto(`${sandbox.url}/dashboard`)
    expect(first?.status()).toBe(200)
    expect(page.url()).toBe(`${sandbox.url}/dashboard/sign-in`)
    await page.type('#api-key', sandbox.apiKey)
    await shot('sign-in')
    await submit('button[type=submit]')
    expect(page.url()).toBe(`${sandbox.url}/dashboard/payments`)
    expect(page.url()).not.toContain(sandbox.apiKey)
    expect(await text('.mode')).toBe('TEST MODE')
    // The cookie is invisible to script.
    expect(
      await page.evaluate(() => (globalThis as unknown as { document: { cookie: string } }).document.cookie),
    ).toBe('')
    const cookie = (await browser.cookies()).find((entry) => entry.name === 'wrpc_dashboard')!
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' })
    expect(await text('#stat-transactions')).toBe('8')
    await shot('payments')
  })

  it('finds a payment with the filters and drives a transition from the console', async () => {
    await page.type('input[name=referenceId]', '4711')
    await submit('form[aria-label="Filter payments"] button[type=submit]')
    expect(await page.$$eval('#payments tbody tr', (rows) => rows.length)).toBe(1)
    expect(await text('#payments .reference')).toBe('order-4711')
    await submit(`#payments a[href="/dashboard/payments/${ids.target}"]`)
    expect(await text('#payment-status')).toBe('requires_action')
    // A transition the rules forbid: settle before success shows the API's refusal.
    await submit('button[value=settle]')
    expect(await text('.flash.error')).toContain('409 invalid_transition')
    expect(await text('#payment-status')).toBe('requires_action')
    await submit('button[value=process]')
    await submit('button[value=succeed]')
    expect(await text('#payment-status')).toBe('succeeded')
    expect(await text('#state-version')).toBe('2')
    const timeline = await page.$$eval('#timeline tbody tr', (rows) =>
      rows.map((row) =>
        [...row.querySelectorAll('td')]
          .slice(0, 2)
          .map((cell) => cell.textContent)
          .join(' '),
      ),
    )
    expect(timeline).toEqual(['0 payment.created', '1 payment.processing', '2 payment.succeeded'])
    expect(sandbox.control.payment(ids.target!).status).toBe('succeeded')
    await shot('payment')
    // The README's picture (docs/dashboard.png is a copy): the top of this page.
    await page.setViewport({ width: 1000, height: 1180 })
    await page.evaluate(() =>
      (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0),
    )
    await page.screenshot({ path: join(artifacts, 'readme-payment.png') })
    await page.setViewport({ width: 1280, height: 900 })
  })

  it('registers a local receiver, sees a delivery fail, resends it and sees it arrive', async () => {
    await page.goto(`${sandbox.url}/dashboard/webhooks`)
    await page.type('input[name=url]', receiver!.url)
    await submit('form[action="/dashboard/webhooks/endpoint"] button[type=submit]')
    expect(await text('#endpoint-state')).toContain(receiver!.url)
    // The receiver refuses: every retry of the next event fails (the schedule runs a million times faster).
    await page.goto(`${sandbox.url}/dashboard/payments/${ids.target}`)
    await submit('button[value=settle]')
    await sandbox.webhooks.idle()
    const failed = sandbox.webhooks.deliveries().find((delivery) => delivery.eventType === 'payment.settled')!
    expect(failed.state).toBe('failed')
    await page.goto(`${sandbox.url}/dashboard/webhooks`)
    const row = `#delivery-${failed.id}`
    expect(await text(`${row} .delivery-state`)).toBe('failed')
    expect(await text(row)).toContain('HTTP 500')
    receiverAnswer = 200
    const before = received.length
    await submit(`${row} button[type=submit]`)
    await sandbox.webhooks.idle()
    expect(received.length).toBe(before + 1)
    expect(received.at(-1)).toMatchObject({ type: 'payment.settled', data: { payment_id: ids.target } })
    await page.reload()
    expect(await text(`${row} .delivery-state`)).toBe('delivered')
    expect(await text(row)).toContain('HTTP 200')
    await submit('form[action="/dashboard/webhooks/secret/rotate"] button')
    expect(await text('.flash.ok')).toMatch(/keeps signing until .* \(24 hours\)/)
    expect(await text('#revealed-secret')).toBe(sandbox.webhooks.secret())
    await shot('webhooks')
  })

  it('shows markup in a merchant name and a referenceId as inert text', async () => {
    await page.goto(`${sandbox.url}/dashboard/payments?referenceId=script`)
    expect(await text('#payments .reference')).toBe(xssReference)
    expect(await text('#payments .merchant')).toBe(xssName)
    await page.goto(`${sandbox.url}/dashboard/payments/${ids.evil}`)
    expect(await text('#facts .reference')).toBe(xssReference)
    expect(await text('#facts .merchant')).toBe(xssName)
    await page.goto(`${sandbox.url}/dashboard/merchants`)
    expect(
      await page.$$eval('#merchants .merchant', (links) => links.map((link) => link.textContent)),
    ).toContain(xssName)
    expect(await page.$$('main img')).toHaveLength(0)
    expect(await page.$$('main script')).toHaveLength(0)
    expect(await page.evaluate(() => (globalThis as { __xss?: number }).__xss)).toBeUndefined()
    expect(dialogs).toEqual([])
    await shot('merchants')
  })

  it('refuses a form posted from another site, or from another port of this host, without the token', async () => {
    // localhost is another site than 127.0.0.1: the Strict cookie stays home. 127.0.0.1:<other port> is the same
    // site, so the browser does send the cookie there; the Origin check refuses it.
    for (const origin of [`http://localhost:${attackerPort}`, `http://127.0.0.1:${attackerPort}`]) {
      await page.goto(`${origin}/`)
      const [response] = await Promise.all([page.waitForNavigation(), page.click('#go')])
      expect(response?.status(), origin).toBe(403)
      expect(await text('h1')).toBe('Request refused')
    }
    await shot('cross-site-refused')
    expect(sandbox.control.payment(ids.csrf!)).toMatchObject({
      status: 'requires_action',
      payment_state_version: 0,
    })
  })

  it('an expired session goes back to sign-in', async () => {
    await page.goto(`${sandbox.url}/dashboard/payments`)
    expect(page.url()).toBe(`${sandbox.url}/dashboard/payments`)
    clockOffset += 31 * 60 * 1000
    await page.goto(`${sandbox.url}/dashboard/payments/${ids.target}`)
    expect(page.url()).toBe(`${sandbox.url}/dashboard/sign-in?expired=1`)
    expect(await text('.flash')).toContain('session expired')
    await shot('expired')
  })
})
