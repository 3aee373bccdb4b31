import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaySandbox, startPaySandbox } from '../../src/index.js'
import { usd } from '../helpers.js'
import { dashboardClient } from './dashboardClient.js'

/**
 * Live mode in the dashboard: the key signed in with picks the book, the page says LIVE MODE, and a session of one
 * mode never sees the other mode's payments, merchants or webhooks. No chain is needed: nothing here is paid.
 */
let sandbox: PaySandbox
const ids = { test: '', live: '' }

async function create(apiKey: string, merchantId: string, referenceId: string): Promise<string> {
  const reply = await fetch(`${sandbox.url}/v1/payments`, {
    method: 'POST',
    headers: { 'api-key': apiKey, 'merchant-id': merchantId, 'content-type': 'application/json' },
    body: JSON.stringify({ referenceId, amount: usd('2500') }),
  })
  return ((await reply.json()) as { id: string }).id
}

beforeAll(async () => {
  sandbox = await startPaySandbox({ merchantName: 'Test Shop', live: { log: () => {} } })
  ids.test = await create(sandbox.apiKey, sandbox.merchantId, 'test-order')
  ids.live = await create(sandbox.live!.apiKey, sandbox.live!.merchantId, 'live-order')
})
afterAll(() => sandbox.stop())

describe('dashboard in live mode', () => {
  it('a live key opens the live book, clearly marked; a test key the test book', async () => {
    const live = dashboardClient(sandbox)
    await live.signIn(sandbox.live!.apiKey)
    const livePage = await live.get('/dashboard/payments')
    expect(livePage.text).toContain('<span class="mode live"')
    expect(livePage.text).toContain('LIVE MODE')
    expect(livePage.text).toContain('live-order')
    expect(livePage.text).not.toContain('test-order')
    const test = dashboardClient(sandbox)
    await test.signIn()
    const testPage = await test.get('/dashboard/payments')
    expect(testPage.text).toContain('TEST MODE')
    expect(testPage.text).toContain('test-order')
    expect(testPage.text).not.toContain('live-order')
  })

  it('a payment of the other mode is a 404 page, whichever way it is asked for', async () => {
    const live = dashboardClient(sandbox)
    const liveCsrf = await live.signIn(sandbox.live!.apiKey)
    const test = dashboardClient(sandbox)
    const testCsrf = await test.signIn()
    expect((await live.get(`/dashboard/payments/${ids.test}`)).status).toBe(404)
    expect((await test.get(`/dashboard/payments/${ids.live}`)).status).toBe(404)
    expect((await test.post(`/dashboard/payments/${ids.live}/cancel`, { csrf: testCsrf })).status).toBe(404)
    expect((await live.post(`/dashboard/payments/${ids.test}/cancel`, { csrf: liveCsrf })).status).toBe(404)
    expect(sandbox.control.payment(ids.test).status).toBe('requires_action')
    expect(sandbox.live!.control.payment(ids.live).status).toBe('requires_action')
    // Merchants too: each mode has its own start merchant.
    expect((await test.get(`/dashboard/merchants/${sandbox.live!.merchantId}`)).status).toBe(404)
    expect((await live.get(`/dashboard/merchants/${sandbox.live!.merchantId}`)).status).toBe(200)
  })

  it('in live mode the chain decides success: the console shows the API’s refusal', async () => {
    const live = dashboardClient(sandbox)
    const csrf = await live.signIn(sandbox.live!.apiKey)
    await live.post(`/dashboard/payments/${ids.live}/succeed`, { csrf })
    const page = await live.get(`/dashboard/payments/${ids.live}`)
    expect(page.text).toContain('Refused (409')
    expect(page.text).toContain('<strong id="payment-status">requires_action</strong>')
    // What the rules allow in live mode still works from the page.
    await live.post(`/dashboard/payments/${ids.live}/cancel`, { csrf })
    expect(sandbox.live!.control.payment(ids.live).status).toBe('cancelled')
  })

  it('webhook settings are per mode', async () => {
    const live = dashboardClient(sandbox)
    const csrf = await live.signIn(sandbox.live!.apiKey)
    await live.post('/dashboard/webhooks/endpoint', {
      csrf,
      url: 'https://merchant.example/live-hooks',
      events: ['payment.succeeded'],
    })
    expect(sandbox.live!.webhooks.endpoint()?.url).toBe('https://merchant.example/live-hooks')
    expect(sandbox.webhooks.endpoint()).toBeNull()
    const test = dashboardClient(sandbox)
    await test.signIn()
    expect((await test.get('/dashboard/webhooks')).text).not.toContain('live-hooks')
  })

  it('an unknown live-form key is refused at sign-in', async () => {
    const client = dashboardClient(sandbox)
    const reply = await client.submitSignIn('svc_notissued123')
    expect(reply.status).toBe(401)
    expect(reply.text).toContain('unknown live API key')
  })
})
