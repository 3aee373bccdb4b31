import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaySandbox, startPaySandbox } from '../../src/index.js'
import { createPayment } from '../helpers.js'

/**
 * The data collection page (a payment's `collectData.url`) as a web page: the strict headers of the sandbox's
 * pages (framable, since a wallet shows it in its web view), its form accepted only from itself, refusals as pages.
 */
let sandbox: PaySandbox

beforeAll(async () => {
  sandbox = await startPaySandbox({ processingMs: null, settlementMs: null })
})
afterAll(() => sandbox.stop())

const formPost = (id: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${sandbox.url}/collect/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: sandbox.url, ...headers },
    body: new URLSearchParams(fields).toString(),
  })

const grace = { fullName: 'Grace Hopper', dateOfBirth: '1906-12-09', country: 'US' }

async function collecting(reference: string): Promise<string> {
  const id = await createPayment(sandbox, reference)
  sandbox.control.requireCollectData(id)
  return id
}

describe('data collection page', () => {
  it('is a page with a strict CSP and no script, that a wallet may frame', async () => {
    const id = await collecting('collect-headers')
    const reply = await fetch(`${sandbox.url}/collect/${id}`)
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = reply.headers.get('content-security-policy')!
    expect(csp).toContain("default-src 'none'")
    expect(csp).toContain("script-src 'none'")
    expect(csp).toContain("form-action 'self'")
    expect(csp).toContain('frame-ancestors *')
    expect(reply.headers.get('x-frame-options')).toBeNull()
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff')
    expect(reply.headers.get('referrer-policy')).toBe('same-origin')
    const page = await reply.text()
    expect(page).toContain(`<form method="post" action="/collect/${id}">`)
    for (const field of ['fullName', 'dateOfBirth', 'country'])
      expect(page).toContain(`<label for="${field}">`)
    expect(page).not.toContain('<script')
  })

  it('an unknown payment is a 404 page', async () => {
    for (const method of ['GET', 'POST'] as const) {
      const reply =
        method === 'GET' ? await fetch(`${sandbox.url}/collect/pay_nope`) : await formPost('pay_nope', grace)
      expect(reply.status, method).toBe(404)
      expect(reply.headers.get('content-type'), method).toBe('text/html; charset=utf-8')
      expect(await reply.text(), method).toContain('<h1>Payment not found</h1>')
    }
  })

  it('refuses the form from another site or port (403 page), storing nothing', async () => {
    const id = await collecting('collect-cross-site')
    for (const headers of [
      { origin: 'https://evil.example' },
      { origin: sandbox.url.replace(/:\d+$/, ':1') },
      { origin: 'null' },
    ]) {
      const reply = await formPost(id, grace, headers)
      expect(reply.status, headers.origin).toBe(403)
      expect(await reply.text(), headers.origin).toContain('Nothing was stored')
    }
    const noOrigin = await fetch(`${sandbox.url}/collect/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      body: new URLSearchParams(grace).toString(),
    })
    expect(noOrigin.status).toBe(403)
    expect(sandbox.control.payment(id).collected_data).toBeNull()
  })

  it('its own form: a refusal is a page naming the field; accepted, the hashed script tells the wallet', async () => {
    const id = await collecting('collect-own')
    const bad = await formPost(id, { fullName: 'Grace', dateOfBirth: '<b>9 Dec</b>' })
    expect(bad.status).toBe(400)
    const refusal = await bad.text()
    expect(refusal).toContain('invalid dateOfBirth')
    expect(refusal).toContain(`<a href="/collect/${id}">Back to the form</a>`)
    expect(refusal).not.toContain('<b>9 Dec')
    expect(sandbox.control.payment(id).collected_data).toBeNull()
    const done = await formPost(id, grace)
    expect(done.status).toBe(200)
    const page = await done.text()
    const script = /<script>([\s\S]*?)<\/script>/.exec(page)![1]!
    expect(script).toContain("type: 'IC_COMPLETE', success: true")
    const hash = createHash('sha256').update(script, 'utf8').digest('base64')
    expect(done.headers.get('content-security-policy')).toContain(`script-src 'sha256-${hash}'`)
    expect(sandbox.control.payment(id).collected_data).toEqual([
      { id: 'fullName', value: 'Grace Hopper' },
      { id: 'dateOfBirth', value: '1906-12-09' },
      { id: 'country', value: 'US' },
    ])
    const nothingToCollect = await formPost(await createPayment(sandbox, 'collect-none'), grace)
    expect(nothingToCollect.status).toBe(409)
    expect(await nothingToCollect.text()).toContain('this payment collects no data')
  })
})
