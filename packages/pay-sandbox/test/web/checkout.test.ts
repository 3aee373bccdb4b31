import { createHash } from 'node:crypto'
import fc from 'fast-check'
import jsQRModule from 'jsqr'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parsePaymentLink } from 'wallet-rpc/pay'
import { formatFiat } from '../../src/currencies.js'
import { type PaySandbox, startPaySandbox } from '../../src/index.js'
import { maxWaitersPerPayment } from '../../src/state.js'

/**
 * The checkout portal over plain HTTP (no browser): headers, escaping, the QR code (rasterised from the page's
 * SVG and read back by an independent decoder, jsQR), the spec's redirect rule, the long-poll status and 404s.
 * test/pay/sandbox/web/checkoutBrowser.test.ts drives the same page in Chromium.
 */

// jsqr is CommonJS with `export default` types: the default import is the function at run time.
const jsQR = jsQRModule as unknown as typeof import('jsqr')['default']
const hostileName = `Evil <img src=x onerror="alert('name')"> & Co`
const hostileReference = `ord-<script>alert('ref')</script>`
let sandbox: PaySandbox

beforeAll(async () => {
  sandbox = await startPaySandbox({
    merchantName: hostileName,
    merchantIconUrl: 'https://shop.example/icon.png',
    processingMs: null,
    settlementMs: null,
  })
})

afterAll(async () => {
  await sandbox?.stop()
})

async function createCheckout(
  options: { checkout?: Record<string, unknown>; merchantId?: string; value?: string; unit?: string } = {},
) {
  const response = await fetch(`${sandbox.url}/v1/merchant/payment`, {
    method: 'POST',
    headers: {
      'Api-Key': sandbox.apiKey,
      'Merchant-Id': options.merchantId ?? sandbox.merchantId,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({
      referenceId: hostileReference,
      amount: { unit: options.unit ?? 'iso4217/USD', value: options.value ?? '1250' },
      ...(options.checkout === undefined ? {} : { checkout: options.checkout }),
    }),
  })
  expect(response.status).toBe(201)
  return (await response.json()) as { paymentId: string; gatewayUrl: string }
}

const open = (url: string) => fetch(url, { redirect: 'manual' })

/** Every inline script's and style's sha256 must be in the CSP, and nothing looser may be. */
function expectStrictCsp(csp: string, page: string) {
  expect(csp).toContain("default-src 'none'")
  expect(csp).toContain("frame-ancestors 'none'")
  expect(csp).not.toContain('unsafe-inline')
  expect(csp).not.toContain('unsafe-eval')
  for (const [, tag, body] of page.matchAll(/<(script|style)>([\s\S]*?)<\/\1>/g)) {
    const hash = createHash('sha256').update(body!, 'utf8').digest('base64')
    expect(csp).toContain(`${tag}-src`)
    expect(csp).toContain(`'sha256-${hash}'`)
  }
}

/**
 * Draws the page's QR SVG (qrcode's output: one stroked path of `M x y`, `m dx dy`, `h n` runs, each 1 module
 * high) into RGBA pixels, 8 per module, and reads it back with jsQR.
 */
function decodeQrSvg(page: string): string {
  const svg = /<svg[^>]*viewBox="0 0 (\d+) \1"[\s\S]*?<\/svg>/.exec(page)
  expect(svg).not.toBeNull()
  const modules = Number(svg![1])
  const path = /<path stroke="#000000" d="([^"]+)"/.exec(svg![0])![1]!
  const scale = 8
  const size = modules * scale
  const pixels = new Uint8ClampedArray(size * size * 4).fill(255)
  let x = 0
  let y = 0
  for (const [, command, args] of path.matchAll(/([Mmh])([-0-9. ]+)/g)) {
    const numbers = args!.trim().split(/[ ]+/).map(Number)
    if (command === 'M') [x, y] = [numbers[0]!, numbers[1]!]
    else if (command === 'm') [x, y] = [x + numbers[0]!, y + numbers[1]!]
    else {
      const row = Math.floor(y)
      for (let column = x; column < x + numbers[0]!; column++)
        for (let dy = 0; dy < scale; dy++)
          for (let dx = 0; dx < scale; dx++) {
            const offset = ((row * scale + dy) * size + column * scale + dx) * 4
            pixels.fill(0, offset, offset + 3)
          }
      x += numbers[0]!
    }
  }
  const code = jsQR(pixels, size, size)
  expect(code).not.toBeNull()
  return code!.data
}

describe('checkout portal over HTTP', () => {
  it('gatewayUrl opens the page: merchant, amount in standard units, strict headers, escaped text', async () => {
    const { paymentId, gatewayUrl } = await createCheckout()
    expect(gatewayUrl).toBe(`${sandbox.url}/${paymentId}`)
    const response = await open(gatewayUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    expect(response.headers.get('x-frame-options')).toBe('DENY')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const page = await response.text()
    expectStrictCsp(response.headers.get('content-security-policy')!, page)
    expect(page).toContain('12.50 USD')
    expect(page).toContain('<img class="icon" src="https://shop.example/icon.png"')
    // Hostile text arrives only as text: no tag, no attribute made of it.
    expect(page).not.toContain('<img src=x')
    expect(page).not.toContain("<script>alert('ref')")
    expect(page).toContain(
      'Evil &#60;img src&#61;x onerror&#61;&#34;alert(&#39;name&#39;)&#34;&#62; &#38; Co',
    )
    expect(page).toContain('ord-&#60;script&#62;alert(&#39;ref&#39;)&#60;/script&#62;')
    // Not final: live status by script, a plain reload without it; one script, the hashed one.
    expect(page).toContain('<noscript><meta http-equiv="refresh" content="5"></noscript>')
    expect(page.match(/<script>/g)).toHaveLength(1)
    expect(page).toContain('id="countdown"')
  })

  it('the QR code decodes to a payment link that parsePaymentLink accepts, naming this payment; the wc: form too', async () => {
    const { paymentId, gatewayUrl } = await createCheckout()
    const page = await (await open(gatewayUrl)).text()
    const scanned = decodeQrSvg(page)
    const trustedHosts = [new URL(sandbox.checkoutUrl).hostname]
    expect(scanned).toBe(`${sandbox.checkoutUrl}/${paymentId}`)
    expect(parsePaymentLink(scanned, { trustedHosts })).toBe(paymentId)
    const wc = /href="(wc:[^"]+)"/
      .exec(page)![1]!
      .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    expect(new URLSearchParams(wc.slice(wc.indexOf('?') + 1)).get('pay')).toBe(scanned)
    expect(parsePaymentLink(wc, { trustedHosts })).toBe(paymentId)
  })

  it('amounts in the standard unit of each currency, exactly', async () => {
    expect(formatFiat({ unit: 'iso4217/USD', value: '1250' })).toBe('12.50 USD')
    expect(formatFiat({ unit: 'iso4217/USD', value: '5' })).toBe('0.05 USD')
    expect(formatFiat({ unit: 'iso4217/JPY', value: '1250' })).toBe('1250 JPY')
    expect(formatFiat({ unit: 'iso4217/KWD', value: '1250' })).toBe('1.250 KWD')
    expect(formatFiat({ unit: 'iso4217/EUR', value: '123456789012345678901' })).toBe(
      '1234567890123456789.01 EUR',
    )
    const { gatewayUrl } = await createCheckout({ unit: 'iso4217/JPY', value: '980' })
    expect(await (await open(gatewayUrl)).text()).toContain('980 JPY')
  })

  it('an icon that is not https is not loaded', async () => {
    const merchantWithIcon = async (merchantName: string, merchantIconUrl: string) => {
      const created = await fetch(`${sandbox.url}/v1/merchants`, {
        method: 'POST',
        headers: {
          'Api-Key': sandbox.apiKey,
          'Content-Type': 'application/json',
          'Idempotency-Key': `icon-${merchantName.replace(/\W/g, '-')}`,
        },
        body: JSON.stringify({ merchantName, merchantEmail: 'icon@shop.example', merchantIconUrl }),
      })
      expect(created.status).toBe(201)
      return ((await created.json()) as { merchant: { id: string } }).merchant.id
    }
    const plain = await merchantWithIcon('Plain shop', 'http://shop.example/icon.png')
    const { gatewayUrl } = await createCheckout({ merchantId: plain })
    const page = await (await open(gatewayUrl)).text()
    expect(page).toContain('Plain shop')
    expect(page).not.toContain('<img')
    expect(page).not.toContain('http://shop.example')
    // An https icon URL is loaded, its characters escaped: it cannot close the attribute.
    const quoted = await merchantWithIcon(
      'Quoted shop',
      'https://shop.example/i.png?a="><script>alert(1)</script>',
    )
    const quotedPage = await (await open((await createCheckout({ merchantId: quoted })).gatewayUrl)).text()
    expect(quotedPage).toContain('<img class="icon" src="https://shop.example/i.png?a&#61;%22%3E%3Cscript%3E')
    expect(quotedPage).not.toContain('"><script>')
  })

  it('terminal with both redirect URLs valid HTTPS: 303 to successUrl on success, errorUrl otherwise', async () => {
    const checkout = { successUrl: 'https://shop.example/thanks?o=1', errorUrl: 'https://shop.example/sorry' }
    const outcomes: [(id: string) => void, string][] = [
      [(id) => sandbox.control.succeed(id), checkout.successUrl],
      [(id) => sandbox.control.fail(id), checkout.errorUrl],
      [(id) => sandbox.control.expire(id), checkout.errorUrl],
      [(id) => sandbox.control.cancel(id), checkout.errorUrl],
    ]
    for (const [finish, target] of outcomes) {
      const { paymentId, gatewayUrl } = await createCheckout({ checkout })
      expect((await open(gatewayUrl)).status).toBe(200)
      finish(paymentId)
      const response = await open(gatewayUrl)
      expect(response.status).toBe(303)
      expect(response.headers.get('location')).toBe(target)
      const status = await fetch(`${gatewayUrl}/status`)
      expect(await status.json()).toMatchObject({ final: true, redirectUrl: target })
    }
  })

  it('redirects disabled (a URL missing or not HTTPS): the generic terminal views, no script, no refresh', async () => {
    const cases: [Record<string, unknown> | undefined, (id: string) => void, string][] = [
      [undefined, (id) => sandbox.control.succeed(id), 'Payment succeeded'],
      [{ successUrl: 'https://shop.example/ok' }, (id) => sandbox.control.fail(id), 'Payment failed'],
      [
        { successUrl: 'https://shop.example/ok', errorUrl: 'http://shop.example/err' },
        (id) => sandbox.control.expire(id),
        'Payment expired',
      ],
      [
        { successUrl: 'javascript:alert(1)', errorUrl: 'https://shop.example/err' },
        (id) => sandbox.control.cancel(id),
        'Payment cancelled',
      ],
    ]
    for (const [checkout, finish, heading] of cases) {
      const { paymentId, gatewayUrl } = await createCheckout(checkout === undefined ? {} : { checkout })
      finish(paymentId)
      const response = await open(gatewayUrl)
      expect(response.status).toBe(200)
      const page = await response.text()
      expect(page).toContain(`<h2 id="result-heading" tabindex="-1">${heading}</h2>`)
      expect(page).not.toContain('<script>')
      expect(page).not.toContain('http-equiv="refresh"')
      expect(page).not.toContain('<svg')
      expectStrictCsp(response.headers.get('content-security-policy')!, page)
    }
  })

  it('the status long poll answers when the payment changes', async () => {
    const { paymentId, gatewayUrl } = await createCheckout()
    const first = (await (await fetch(`${gatewayUrl}/status`)).json()) as { version: number }
    expect(first).toMatchObject({ status: 'requires_action', final: false, redirectUrl: null })
    const waiting = fetch(`${gatewayUrl}/status?version=${first.version}`)
    sandbox.control.process(paymentId)
    const changed = (await (await waiting).json()) as { version: number; status: string }
    expect(changed.status).toBe('processing')
    expect(changed.version).toBeGreaterThan(first.version)
    const page = await (await open(gatewayUrl)).text()
    expect(page).toContain('Payment submitted, confirming')
    expect(page).not.toContain('<svg') // nothing to scan once submitted
  })

  it('long polls held per payment are bounded: past the cap a poll answers at once', async () => {
    const { paymentId, gatewayUrl } = await createCheckout()
    const { version } = (await (await fetch(`${gatewayUrl}/status`)).json()) as { version: number }
    let answered = 0
    const held = Array.from({ length: maxWaitersPerPayment }, () =>
      fetch(`${gatewayUrl}/status?version=${version}`).then(async (response) => {
        answered++
        return (await response.json()) as { version: number }
      }),
    )
    // Once the held ones are waiting, one more is answered at once with the same version. (A try that reached
    // the server before they all did is held too; it only fills the cap sooner.)
    let extra: { version: number } | undefined
    for (let attempt = 0; extra === undefined && attempt < 10; attempt++) {
      const response = await fetch(`${gatewayUrl}/status?version=${version}`, {
        signal: AbortSignal.timeout(2000),
      }).catch(() => undefined)
      extra = (await response?.json()) as { version: number } | undefined
    }
    expect(extra?.version).toBe(version)
    expect(answered).toBe(0)
    sandbox.control.process(paymentId)
    for (const poll of await Promise.all(held)) expect(poll.version).toBeGreaterThan(version)
  })

  it('unknown payment ids get a 404 page; other paths keep the API 404', async () => {
    const response = await open(`${sandbox.url}/pay_doesNotExist123`)
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    const page = await response.text()
    expect(page).toContain('<h1>Payment not found</h1>')
    expect(page).not.toContain('pay_doesNotExist123')
    expectStrictCsp(response.headers.get('content-security-policy')!, page)
    const status = await fetch(`${sandbox.url}/pay_doesNotExist123/status`)
    expect(status.status).toBe(404)
    expect(((await status.json()) as { code: string }).code).toBe('payment_not_found')
    const other = await fetch(`${sandbox.url}/favicon.ico`)
    expect(other.status).toBe(404)
    expect(((await other.json()) as { code: string }).code).toBe('not_found')
  })

  it("a page and its status carry only their own payment's data", async () => {
    const first = await createCheckout({
      value: '111',
      checkout: { successUrl: 'https://a.example/ok', errorUrl: 'https://a.example/no' },
    })
    const second = await createCheckout({ value: '222' })
    const page = await (await open(second.gatewayUrl)).text()
    expect(page).toContain(second.paymentId)
    expect(page).toContain('2.22 USD')
    expect(page).not.toContain(first.paymentId)
    expect(page).not.toContain('1.11 USD')
    expect(page).not.toContain('a.example')
    const status = await (await fetch(`${second.gatewayUrl}/status`)).text()
    expect(status).not.toContain(first.paymentId)
    expect(Object.keys(JSON.parse(status)).sort()).toEqual([
      'final',
      'label',
      'redirectUrl',
      'status',
      'version',
    ])
  })

  it('any path segment or version: a page, a 404 page or a JSON error, never a 500 or a stack', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.string().map((text) => `pay_${text}`),
        ),
        fc.oneof(fc.constant(undefined), fc.string(), fc.integer().map(String)),
        async (segment, version) => {
          const path = `/${encodeURIComponent(segment)}`
          const query = version === undefined ? '' : `?version=${encodeURIComponent(version)}`
          for (const target of [path, `${path}/status${query}`]) {
            const response = await fetch(`${sandbox.url}${target}`, { redirect: 'manual' })
            expect(response.status, target).toBeLessThan(500)
            const text = await response.text()
            expect(text).not.toMatch(/at .*\.ts:\d+|Error:/)
          }
        },
      ),
      { numRuns: 60 },
    )
  })

  it('behind TLS or a tunnel, gatewayUrl uses the public base', async () => {
    const tunnelled = await startPaySandbox({
      checkoutUrl: 'https://abc.tunnel.example',
      portalUrl: 'https://abc.tunnel.example/',
    })
    try {
      const response = await fetch(`${tunnelled.url}/v1/merchant/payment`, {
        method: 'POST',
        headers: {
          'Api-Key': tunnelled.apiKey,
          'Merchant-Id': tunnelled.merchantId,
          'Content-Type': 'application/json',
        },
        body: JSON.stringify({ referenceId: 'o-1', amount: { unit: 'iso4217/USD', value: '100' } }),
      })
      const body = (await response.json()) as { paymentId: string; gatewayUrl: string }
      expect(body.gatewayUrl).toBe(`https://abc.tunnel.example/${body.paymentId}`)
      // There the page and the payment link are one URL, and a wallet trusting the host accepts it.
      expect(parsePaymentLink(body.gatewayUrl, { trustedHosts: ['abc.tunnel.example'] })).toBe(body.paymentId)
    } finally {
      await tunnelled.stop()
    }
  })
})
