import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaySandbox, startPaySandbox } from '../../src/index.js'
import { dashboardRoutes } from '../../src/web/dashboard/index.js'
import { api, buyer, createPayment, payByHand, stranger, usd } from '../helpers.js'
import { dashboardClient, unescapeHtml } from './dashboardClient.js'

/** The dashboard over plain HTTP (no browser): sessions, cookie flags, CSRF and Origin, headers, pages. */
let sandbox: PaySandbox
let now = Date.UTC(2026, 1, 18, 12)

beforeAll(async () => {
  sandbox = await startPaySandbox({ clock: () => now, processingMs: null, settlementMs: null })
})
afterAll(() => sandbox.stop())

describe('dashboard sign-in and session', () => {
  it('pages need a session: without one the browser is sent to sign-in', async () => {
    const client = dashboardClient(sandbox)
    for (const path of ['/dashboard/payments', '/dashboard/payments/pay_x', '/dashboard']) {
      const reply = await client.get(path)
      expect(reply.status, path).toBe(303)
    }
    expect((await client.get('/dashboard/payments')).location).toBe('/dashboard/sign-in')
  })

  it('signs in through a form POST; the session cookie is HttpOnly, SameSite=Strict, Path=/dashboard', async () => {
    const client = dashboardClient(sandbox)
    const form = await client.get('/dashboard/sign-in')
    expect(form.status).toBe(200)
    expect(form.text).toContain('type="password"')
    expect(form.text).toContain('method="post"')
    const reply = await client.post('/dashboard/sign-in', {
      csrf: client.csrfOf(form),
      apiKey: sandbox.apiKey,
    })
    expect(reply.status).toBe(303)
    expect(reply.location).toBe('/dashboard/payments')
    const session = reply.headers.getSetCookie().find((line) => line.startsWith('wrpc_dashboard='))!
    expect(session).toMatch(/; HttpOnly/)
    expect(session).toMatch(/; SameSite=Strict/)
    expect(session).toMatch(/; Path=\/dashboard/)
    expect(session).not.toContain(sandbox.apiKey)
    // A 43-character random id (32 bytes), not derived from the key.
    expect(session).toMatch(/^wrpc_dashboard=[A-Za-z0-9_-]{43};/)
    expect(reply.location).not.toContain(sandbox.apiKey)
    const page = await client.get('/dashboard/payments')
    expect(page.status).toBe(200)
    expect(page.text).toContain('TEST MODE')
    expect(page.text).not.toContain(sandbox.apiKey)
  })

  it('a wrong key is refused with the API’s reason and no session', async () => {
    const client = dashboardClient(sandbox)
    const reply = await client.submitSignIn('svc_test_wrong')
    expect(reply.status).toBe(401)
    expect(reply.text).toContain('unknown test API key')
    expect(client.jar.has('wrpc_dashboard')).toBe(false)
    expect((await client.get('/dashboard/payments')).status).toBe(303)
  })

  it('sign-in itself needs its form token and a same-origin Origin (no login CSRF)', async () => {
    const client = dashboardClient(sandbox)
    const form = await client.get('/dashboard/sign-in')
    const csrf = client.csrfOf(form)
    const crossSite = await client.post(
      '/dashboard/sign-in',
      { csrf, apiKey: sandbox.apiKey },
      { origin: 'http://evil.example' },
    )
    expect(crossSite.status).toBe(403)
    const noToken = await client.post('/dashboard/sign-in', { apiKey: sandbox.apiKey })
    expect(noToken.status).toBe(403)
    // No sign-in cookie and an empty token, without Origin (as a non-browser client posts): still no session.
    const fresh = dashboardClient(sandbox)
    const emptyToken = await fresh.post(
      '/dashboard/sign-in',
      { csrf: '', apiKey: sandbox.apiKey },
      { origin: undefined },
    )
    expect(emptyToken.status).toBe(403)
    expect(fresh.jar.has('wrpc_dashboard')).toBe(false)
    expect(client.jar.has('wrpc_dashboard')).toBe(false)
  })

  it('sign-out ends the session server-side: the old cookie no longer opens a page', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const stolen = client.jar.get('wrpc_dashboard')!
    const reply = await client.post('/dashboard/sign-out', { csrf })
    expect(reply.status).toBe(303)
    expect(reply.location).toBe('/dashboard/sign-in')
    expect(client.jar.has('wrpc_dashboard')).toBe(false)
    const replayed = await client.get('/dashboard/payments', { cookie: `wrpc_dashboard=${stolen}` })
    expect(replayed.status).toBe(303)
  })

  it('an idle session expires: the next page goes to sign-in, which says so', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    now += 31 * 60 * 1000
    const reply = await client.get('/dashboard/payments')
    expect(reply.status).toBe(303)
    expect(reply.location).toBe('/dashboard/sign-in?expired=1')
    expect((await client.get(reply.location!)).text).toContain('session expired')
    // A POST with the expired session's token changes nothing either.
    const id = await createPayment(sandbox, 'expired-session')
    const post = await client.post(`/dashboard/payments/${id}/cancel`, { csrf })
    expect(post.status).toBe(303)
    expect(post.location).toMatch(/^\/dashboard\/sign-in/)
    expect(sandbox.control.payment(id).status).toBe('requires_action')
  })
})

describe('dashboard session lifetime', () => {
  it('a session ends 12 hours after sign-in, however active it stays', async () => {
    const client = dashboardClient(sandbox)
    await client.signIn()
    // A page every 20 minutes keeps it from idling out, up to the 12-hour limit.
    for (let step = 1; step < 36; step++) {
      now += 20 * 60_000
      expect((await client.get('/dashboard/payments')).status, `after ${step * 20} minutes`).toBe(200)
    }
    now += 20 * 60_000
    const reply = await client.get('/dashboard/payments')
    expect(reply.status).toBe(303)
    expect(reply.location).toBe('/dashboard/sign-in?expired=1')
  })
})

describe('dashboard pages', () => {
  it('every page carries a strict CSP and the security headers', async () => {
    const client = dashboardClient(sandbox)
    const signInForm = await dashboardClient(sandbox).get('/dashboard/sign-in')
    await client.signIn()
    const id = await createPayment(sandbox, 'headers')
    for (const [path, reply] of [
      ['sign-in', signInForm],
      ['payments', await client.get('/dashboard/payments')],
      ['payment', await client.get(`/dashboard/payments/${id}`)],
      ['unknown payment', await client.get('/dashboard/payments/pay_unknown')],
    ] as const) {
      const csp = reply.headers.get('content-security-policy')!
      expect(csp, path).toContain("default-src 'none'")
      expect(csp, path).toContain("script-src 'none'")
      expect(csp, path).toContain("frame-ancestors 'none'")
      expect(csp, path).toContain("form-action 'self'")
      expect(csp, path).not.toContain('unsafe-inline')
      expect(reply.headers.get('x-content-type-options'), path).toBe('nosniff')
      expect(reply.headers.get('x-frame-options'), path).toBe('DENY')
      // Same-origin, not no-referrer: with no-referrer Chromium posts the dashboard's own forms with Origin: null.
      expect(reply.headers.get('referrer-policy'), path).toBe('same-origin')
      expect(reply.headers.get('cache-control'), path).toBe('no-store')
      expect(reply.headers.get('content-type'), path).toBe('text/html; charset=utf-8')
    }
  })

  it('lists payments with the endpoint’s filters, sorting, cursor paging and statistics', async () => {
    const client = dashboardClient(sandbox)
    await client.signIn()
    const ids = []
    for (const [index, value] of ['700', '300', '500'].entries()) {
      now += 1000
      ids.push(await createPayment(sandbox, `list-order-${index}`, usd(value)))
    }
    sandbox.control.succeed(ids[1]!)
    const filtered = await client.get('/dashboard/payments?referenceId=list-order&sortBy=amount&sortDir=asc')
    expect(filtered.status).toBe(200)
    const order = [...filtered.text.matchAll(/class="reference">([^<]+)</g)].map((match) => match[1])
    expect(order).toEqual(['list-order-1', 'list-order-2', 'list-order-0'])
    expect(filtered.text).toContain('3.00 USD')
    expect(filtered.text).toMatch(/Revenue \(succeeded\): <strong>3 USD<\/strong>/)
    expect(filtered.text).toContain('<strong id="stat-transactions">3</strong>')
    const succeeded = await client.get('/dashboard/payments?referenceId=list-order&status=succeeded')
    expect([...succeeded.text.matchAll(/class="reference">([^<]+)</g)].map((match) => match[1])).toEqual([
      'list-order-1',
    ])
    // Cursor paging, two per page: the "Next page" link carries the filters and the cursor.
    const first = await client.get('/dashboard/payments?referenceId=list-order&sortBy=amount&limit=2')
    const next = unescapeHtml(/rel="next" href="([^"]+)"/.exec(first.text)![1]!)
    expect(next).toContain('cursor=')
    const second = await client.get(next)
    expect([...second.text.matchAll(/class="reference">([^<]+)</g)].map((match) => match[1])).toEqual([
      'list-order-1',
    ])
    expect(second.text).not.toContain('rel="next"')
    const firstPage = unescapeHtml(/href="([^"]+)">First page</.exec(second.text)![1]!)
    expect(firstPage).not.toContain('cursor=')
    expect((await client.get(firstPage)).text).toContain('rel="next"')
  })

  it('every other filter of the form reaches the endpoint: merchant, token, networks, created window, date order', async () => {
    const client = dashboardClient(sandbox)
    await client.signIn()
    const call = api(sandbox)
    const other = (
      await call('POST', '/v1/merchants', {
        body: { merchantName: 'Other shop', merchantEmail: 'other@shop.example' },
        headers: { 'idempotency-key': 'filters-other-merchant' },
      })
    ).body.merchant.id as string
    // Three payments a minute apart: unpaid; paid in USDC on Base by one buyer; on Ethereum by another, for the
    // other merchant.
    now = Math.ceil(now / 60_000) * 60_000 + 60_000
    const start = now
    const ids: string[] = []
    ids.push(await createPayment(sandbox, 'flt-a', usd('1000')))
    now += 60_000
    ids.push(await createPayment(sandbox, 'flt-b', usd('3000')))
    await payByHand(sandbox, ids[1]!, { account: buyer, chainId: 8453 })
    sandbox.control.succeed(ids[1]!)
    now += 60_000
    const created = await api(sandbox, { 'merchant-id': other })('POST', '/v1/payments', {
      body: { referenceId: 'flt-c', amount: usd('2000') },
    })
    ids.push(created.body.id)
    await payByHand(sandbox, ids[2]!, { account: stranger, chainId: 1 })
    sandbox.control.succeed(ids[2]!)
    now += 60_000
    const references = async (query: string) => {
      const page = await client.get(`/dashboard/payments?referenceId=flt-&${query}`)
      expect(page.status, query).toBe(200)
      return [...page.text.matchAll(/class="reference">([^<]+)</g)].map((match) => match[1])
    }
    const minute = (ms: number) => new Date(ms).toISOString().slice(0, 16)
    expect(await references(`merchantId=${other}`)).toEqual(['flt-c'])
    expect(await references(`merchantId=${sandbox.merchantId}`)).toEqual(['flt-b', 'flt-a'])
    expect(await references('token_symbol=USDC')).toEqual(['flt-c', 'flt-b'])
    expect(await references('network=eip155:8453')).toEqual(['flt-b'])
    expect(await references('network=eip155:1,eip155:8453')).toEqual(['flt-c', 'flt-b'])
    expect(await references(`from=${minute(start + 60_000)}&to=${minute(start + 120_000)}`)).toEqual([
      'flt-b',
    ])
    expect(await references(`from=${minute(start + 60_000)}`)).toEqual(['flt-c', 'flt-b'])
    expect(await references('sortBy=date&sortDir=asc')).toEqual(['flt-a', 'flt-b', 'flt-c'])
    expect(await references('sortBy=date&sortDir=desc')).toEqual(['flt-c', 'flt-b', 'flt-a'])
    expect(await references('status=requires_action')).toEqual(['flt-a'])
    // The statistics cover the filtered payments: two succeeded (30 + 20 USD), three transactions, two buyers.
    const all = await client.get('/dashboard/payments?referenceId=flt-')
    expect(all.text).toMatch(/Revenue \(succeeded\): <strong>50 USD<\/strong>/)
    expect(all.text).toContain('<strong id="stat-transactions">3</strong>')
    expect(all.text).toMatch(/Customers: <strong>2<\/strong>/)
    expect(all.text).toContain('30.000000 USDC')
    // The form shows the filters it was sent with.
    const shown = await client.get(`/dashboard/payments?merchantId=${other}&sortDir=asc&status=succeeded`)
    expect(shown.text).toContain(`<option value="${other}" selected>`)
    expect(shown.text).toContain('<option value="asc" selected>')
    expect(shown.text).toContain('value="succeeded" checked')
  })

  it('shows the endpoint’s refusal of a bad filter, field by field', async () => {
    const client = dashboardClient(sandbox)
    await client.signIn()
    const reply = await client.get('/dashboard/payments?limit=500&network=nope')
    expect(reply.status).toBe(400)
    expect(reply.text).toContain('invalid_params')
    expect(reply.text).toContain('<code>limit</code>: must be an integer from 1 to 200')
    expect(reply.text).toContain('<code>network</code>')
  })
})

describe('payment detail and the simulation console', () => {
  it('shows the payment and its events by payment_state_version; buttons drive the API’s transitions', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const id = await createPayment(sandbox, 'console-1')
    const before = await client.get(`/dashboard/payments/${id}`)
    expect(before.status).toBe(200)
    expect(before.text).toContain('<strong id="payment-status">requires_action</strong>')
    const processed = await client.post(`/dashboard/payments/${id}/process`, { csrf })
    expect(processed.status).toBe(303)
    expect(processed.location).toBe(`/dashboard/payments/${id}#console`)
    expect(sandbox.control.payment(id).status).toBe('processing')
    const succeeded = await client.post(`/dashboard/payments/${id}/succeed`, { csrf })
    expect(succeeded.status).toBe(303)
    const after = await client.get(`/dashboard/payments/${id}`)
    expect(after.text).toContain('succeed: status now succeeded (payment_state_version 2).')
    const versions = [...after.text.matchAll(/<tr>\s*<td>(\d+)<\/td><td>(payment\.[a-z]+)<\/td>/g)].map(
      (match) => `${match[1]} ${match[2]}`,
    )
    expect(versions).toEqual(['0 payment.created', '1 payment.processing', '2 payment.succeeded'])
    // The message shows once (POST-redirect-GET), not on the next load.
    expect((await client.get(`/dashboard/payments/${id}`)).text).not.toContain('succeed: status now')
  })

  it('a transition the rules forbid shows the API’s error and changes nothing', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const id = await createPayment(sandbox, 'console-2')
    sandbox.control.succeed(id)
    const version = sandbox.control.payment(id).payment_state_version
    const reply = await client.post(`/dashboard/payments/${id}/fail`, { csrf, reason: 'too late' })
    expect(reply.status).toBe(303)
    const page = await client.get(reply.location!)
    expect(page.text).toContain('Refused (409 invalid_transition): a succeeded payment cannot become failed')
    expect(sandbox.control.payment(id)).toMatchObject({ status: 'succeeded', payment_state_version: version })
  })

  it('expire, settle and the option-route switches run from their buttons under the control’s rules', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const events = async (id: string) =>
      [
        ...(await client.get(`/dashboard/payments/${id}`)).text.matchAll(
          /<tr>\s*<td>(\d+)<\/td><td>(payment\.[a-z]+)<\/td>/g,
        ),
      ].map((match) => `${match[1]} ${match[2]}`)
    const expiring = await createPayment(sandbox, 'console-expire')
    expect((await client.post(`/dashboard/payments/${expiring}/expire`, { csrf })).status).toBe(303)
    expect(sandbox.control.payment(expiring).status).toBe('expired')
    expect(await events(expiring)).toEqual(['0 payment.created', '1 payment.expired'])
    const settling = await createPayment(sandbox, 'console-settle')
    // Settle before success is refused by the rules; after it, the payment settles once.
    await client.post(`/dashboard/payments/${settling}/settle`, { csrf })
    expect((await client.get(`/dashboard/payments/${settling}`)).text).toContain(
      'Refused (409 invalid_transition)',
    )
    for (const action of ['process', 'succeed', 'settle'])
      expect((await client.post(`/dashboard/payments/${settling}/${action}`, { csrf })).status, action).toBe(
        303,
      )
    expect(sandbox.control.payment(settling)).toMatchObject({
      status: 'succeeded',
      settlement: { settled: true },
    })
    const settled = await events(settling)
    expect(settled.slice(0, 3)).toEqual(['0 payment.created', '1 payment.processing', '2 payment.succeeded'])
    expect(settled.at(-1)).toMatch(/^\d+ payment\.settled$/)
    expect((await client.get(`/dashboard/payments/${settling}`)).text).not.toContain('not settled')
    // Require data collection: the payment's options now carry collectData.
    const collecting = await createPayment(sandbox, 'console-collect')
    await client.post(`/dashboard/payments/${collecting}/require-collect-data`, { csrf })
    expect(sandbox.control.payment(collecting).collect_data).toBe(true)
    expect((await client.get(`/dashboard/payments/${collecting}`)).text).toMatch(
      /Data collection<\/th><td>required</,
    )
    // Expire option routes: an option the wallet holds is refused at fetch (409 quote_expired).
    const call = api(sandbox)
    const offered = await call('POST', `/v1/gateway/payment/${collecting}/options`, {
      body: { accounts: [`eip155:8453:${buyer.address}`] },
    })
    const option = offered.body.options[0]
    const build = option.actions.find((action: { type: string }) => action.type === 'build')
    await client.post(`/dashboard/payments/${collecting}/expire-routes`, { csrf })
    const fetched = await call('POST', `/v1/gateway/payment/${collecting}/fetch`, {
      body: { optionId: option.id, data: build.data.data },
    })
    expect(fetched.status).toBe(409)
    expect(fetched.body.code).toBe('quote_expired')
  })

  it('fail and cancel pass the typed reason to the control', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const id = await createPayment(sandbox, 'console-3')
    await client.post(`/dashboard/payments/${id}/cancel`, { csrf, reason: 'buyer <left>' })
    expect(sandbox.control.payment(id)).toMatchObject({
      status: 'cancelled',
      cancellation_reason: 'buyer <left>',
    })
    expect((await client.get(`/dashboard/payments/${id}`)).text).toContain('buyer &#60;left&#62;')
  })

  it('an unknown payment or action is a 404 HTML page, not JSON and not a stack', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const unknown = await client.get('/dashboard/payments/pay_doesnotexist')
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(unknown.text).toContain('<h1>Not found</h1>')
    expect(unknown.text).not.toMatch(/at .*\.ts:\d+/)
    const posted = await client.post('/dashboard/payments/pay_doesnotexist/succeed', { csrf })
    expect(posted.status).toBe(404)
    const id = await createPayment(sandbox, 'console-4')
    const action = await client.post(`/dashboard/payments/${id}/delete`, { csrf })
    expect(action.status).toBe(404)
    expect(sandbox.control.payment(id).status).toBe('requires_action')
  })
})

describe('any input', () => {
  it('any id, action or filter: an HTML page (a 404 page for ids it does not know), never a 500 or a stack', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const known = await createPayment(sandbox, 'fuzz-known')
    const filterNames = [
      'status',
      'referenceId',
      'merchantId',
      'token_symbol',
      'network',
      'from',
      'to',
      'sortBy',
      'sortDir',
      'limit',
      'cursor',
    ]
    const isPage = (reply: { status: number; text: string; headers: Headers }, label: string) => {
      expect(reply.status, label).toBeLessThan(500)
      if (reply.status !== 303)
        expect(reply.headers.get('content-type'), label).toBe('text/html; charset=utf-8')
      expect(reply.text, label).not.toMatch(/at .*\.ts:\d+|Error:|"code":/)
    }
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.string().map((text) => `pay_${text}`),
          fc.constant(known),
        ),
        fc.string(),
        fc.dictionary(fc.constantFrom(...filterNames), fc.string(), { maxKeys: 4 }),
        async (id, action, filters) => {
          const segment = encodeURIComponent(id)
          const detail = await client.get(`/dashboard/payments/${segment}`)
          isPage(detail, `GET ${segment}`)
          if (id !== known && segment !== '') expect(detail.status, segment).toBe(404)
          isPage(await client.get(`/dashboard/merchants/${segment}`), `merchant ${segment}`)
          const posted = await client.post(`/dashboard/payments/${segment}/${encodeURIComponent(action)}`, {
            csrf,
          })
          isPage(posted, `POST ${segment}/${action}`)
          isPage(
            await client.get(`/dashboard/payments?${new URLSearchParams(filters)}`),
            JSON.stringify(filters),
          )
        },
      ),
      { numRuns: 60 },
    )
  })
})

describe('refusals before a page runs', () => {
  it('no such page, a wrong method, a body in another encoding: an HTML page, and nothing changes', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const id = await createPayment(sandbox, 'refused-early')
    const attempts = [
      ['trailing slash', await client.get('/dashboard/payments/'), 404],
      ['too deep', await client.get(`/dashboard/payments/${id}/succeed/now`), 404],
      ['bad escape', await client.get('/dashboard/payments/%E0%A4%A'), 404],
      ['GET on a form action', await client.get(`/dashboard/payments/${id}/succeed`), 405],
      ['POST on a page', await client.post('/dashboard/payments', { csrf }), 405],
      [
        'text/plain form (another site can send one)',
        await client.post(`/dashboard/payments/${id}/succeed`, { csrf }, { 'content-type': 'text/plain' }),
        415,
      ],
      [
        'malformed Pay-Version',
        await client.post(`/dashboard/payments/${id}/succeed`, { csrf }, { 'pay-version': 'soon' }),
        400,
      ],
    ] as const
    for (const [label, reply, status] of attempts) {
      expect(reply.status, label).toBe(status)
      expect(reply.headers.get('content-type'), label).toBe('text/html; charset=utf-8')
      expect(reply.headers.get('content-security-policy'), label).toContain("default-src 'none'")
      expect(reply.text, label).toContain('<h1>')
    }
    expect(sandbox.control.payment(id)).toMatchObject({ status: 'requires_action', payment_state_version: 0 })
    // The API itself still answers in JSON.
    const json = await fetch(`${sandbox.url}/v1/nothing`)
    expect(json.headers.get('content-type')).toContain('application/json')
  })
})

describe('cross-site requests', () => {
  it('a POST without the CSRF token, or from another origin, is refused with 403 and changes nothing', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const id = await createPayment(sandbox, 'csrf-1')
    const attempts = [
      ['no token', {}, {}],
      ['wrong token', { csrf: `${csrf.slice(0, -1)}x` }, {}],
      ['other origin', { csrf }, { origin: 'http://evil.example' }],
      ['other port', { csrf }, { origin: sandbox.url.replace(/:\d+$/, ':1') }],
      ['opaque origin', { csrf }, { origin: 'null' }],
      ['no origin, cross-site fetch', { csrf }, { origin: undefined, 'sec-fetch-site': 'cross-site' }],
    ] as const
    for (const [label, form, headers] of attempts) {
      const reply = await client.post(`/dashboard/payments/${id}/succeed`, form, headers)
      expect(reply.status, label).toBe(403)
      expect(reply.text, label).toContain('Nothing was changed')
    }
    expect(sandbox.control.payment(id)).toMatchObject({ status: 'requires_action', payment_state_version: 0 })
    // Another session's token is no token for this one.
    const other = dashboardClient(sandbox)
    const otherCsrf = await other.signIn()
    expect((await client.post(`/dashboard/payments/${id}/succeed`, { csrf: otherCsrf })).status).toBe(403)
    expect((await client.post(`/dashboard/payments/${id}/succeed`, { csrf })).status).toBe(303)
    expect(sandbox.control.payment(id).status).toBe('succeeded')
  })
})

describe('every state-changing POST', () => {
  it('is refused with 403 without the session’s token or from another origin, before it runs', async () => {
    const client = dashboardClient(sandbox)
    const csrf = await client.signIn()
    const id = await createPayment(sandbox, 'csrf-every-route')
    const posts = dashboardRoutes(sandbox.control).filter(
      (route) => route.method === 'POST' && route.path !== '/dashboard/sign-in',
    )
    // Sign-out, the console, the webhook page's nine, the merchant page's three (sign-in has its own test).
    expect(posts.length).toBeGreaterThanOrEqual(13)
    const books = async () => {
      const call = api(sandbox)
      const merchants = (await call('GET', '/v1/merchants')).body.data
      const settlements = (await call('GET', `/v1/merchants/${sandbox.merchantId}/settlements/crypto`)).body
        .data
      return { merchants, settlements }
    }
    const before = await books()
    for (const route of posts) {
      const path = route.path
        .replace(':id', id)
        .replace(':action', 'succeed')
        .replace(':merchantId', sandbox.merchantId)
      const form = {
        merchantName: 'CSRF shop',
        merchantEmail: 'csrf@shop.example',
        url: 'https://x.example',
        events: 'payment.created',
        type: 'payment.created',
        since: '2026-01-01T00:00',
        confirm: 'yes',
        asset: 'eip155:8453/erc20:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        destination: 'eip155:8453:0x1111111111111111111111111111111111111111',
      }
      const withoutToken = await client.post(path, form)
      expect(withoutToken.status, `${path} without token`).toBe(403)
      const crossSite = await client.post(path, { ...form, csrf }, { origin: 'http://evil.example' })
      expect(crossSite.status, `${path} cross-site`).toBe(403)
    }
    expect(sandbox.control.payment(id)).toMatchObject({ status: 'requires_action', payment_state_version: 0 })
    expect(sandbox.webhooks.endpoint()).toBeNull()
    expect(await books()).toEqual(before)
    // The session survived every refused sign-out.
    expect((await client.get('/dashboard/payments')).status).toBe(200)
  })
})

describe('another account', () => {
  it('another sandbox’s session opens nothing here, and its payments are 404 pages', async () => {
    const other = await startPaySandbox({ processingMs: null, settlementMs: null })
    try {
      const theirs = await createPayment(other, 'other-account')
      const client = dashboardClient(sandbox)
      await client.signIn()
      const foreign = await client.get(`/dashboard/payments/${theirs}`)
      expect(foreign.status).toBe(404)
      expect(foreign.text).toContain('<h1>Not found</h1>')
      expect(foreign.text).not.toContain('other-account')
      expect((await client.get('/dashboard/payments?referenceId=other-account')).text).toContain(
        'No payments match.',
      )
      // This server's session cookie, sent to the other server, is no session there.
      const reply = await fetch(`${other.url}/dashboard/payments`, {
        headers: { cookie: `wrpc_dashboard=${client.jar.get('wrpc_dashboard')}` },
        redirect: 'manual',
      })
      expect(reply.status).toBe(303)
      expect(reply.headers.get('location')).toBe('/dashboard/sign-in')
      // And this server's key does not sign in there.
      const there = dashboardClient(other)
      await expect(there.signIn(sandbox.apiKey)).rejects.toThrow('sign-in answered 401')
    } finally {
      await other.stop()
    }
  })
})

describe('merchant-supplied strings', () => {
  it('a merchant name and a referenceId with markup are shown as text', async () => {
    const client = dashboardClient(sandbox)
    await client.signIn()
    const name = '<img src=x onerror=alert(1)>"\'&'
    const created = await fetch(`${sandbox.url}/v1/merchants`, {
      method: 'POST',
      headers: {
        'api-key': sandbox.apiKey,
        'content-type': 'application/json',
        'idempotency-key': 'xss-merchant',
      },
      body: JSON.stringify({ merchantName: name, merchantEmail: 'xss@example.com' }),
    }).then((reply) => reply.json() as Promise<{ merchant: { id: string } }>)
    const reference = '<script>alert(1)</script>'
    const payment = await fetch(`${sandbox.url}/v1/payments`, {
      method: 'POST',
      headers: {
        'api-key': sandbox.apiKey,
        'content-type': 'application/json',
        'merchant-id': created.merchant.id,
      },
      body: JSON.stringify({ referenceId: reference, amount: usd('100') }),
    }).then((reply) => reply.json() as Promise<{ id: string }>)
    for (const path of ['/dashboard/payments', `/dashboard/payments/${payment.id}`]) {
      const page = await client.get(path)
      expect(page.text, path).not.toContain('<img src=x')
      expect(page.text, path).not.toContain('<script>')
      expect(page.text, path).toContain('&#60;img src&#61;x onerror&#61;alert(1)&#62;&#34;&#39;&#38;')
      expect(page.text, path).toContain('&#60;script&#62;alert(1)&#60;/script&#62;')
    }
  })
})
