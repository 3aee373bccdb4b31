import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { html, page, pageReply, safeUrl, trustedHtml } from '../../src/web/html.js'

describe('sandbox page HTML', () => {
  it('escapes every interpolated string: no merchant text becomes markup', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const rendered = html`${text}`.text
        expect(rendered).not.toMatch(/[<>"'`]/)
        const decoded = rendered.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
        expect(decoded).toBe(text)
      }),
    )
    const name = '<img src=x onerror=alert(1)>'
    expect(html`<h1>${name}</h1>`.text).toBe('<h1>&#60;img src&#61;x onerror&#61;alert(1)&#62;</h1>')
    expect(html`<ul>${['a<', 'b'].map((item) => html`<li>${item}</li>`)}</ul>`.text).toBe(
      '<ul><li>a&#60;</li><li>b</li></ul>',
    )
    expect(html`${trustedHtml('<hr>')}${undefined}${false}${0}`.text).toBe('<hr>0')
  })

  it('keeps only http(s) links and same-site paths', () => {
    expect(safeUrl('javascript:alert(1)')).toBeUndefined()
    expect(safeUrl('data:text/html,x')).toBeUndefined()
    expect(safeUrl('//evil.example/x')).toBeUndefined()
    expect(safeUrl('/pay/abc')).toBe('/pay/abc')
    expect(safeUrl('http://shop.example/icon.png', { httpsOnly: true })).toBeUndefined()
    expect(safeUrl('https://shop.example/icon.png', { httpsOnly: true })).toBe(
      'https://shop.example/icon.png',
    )
  })

  it('hashes each inline script into the CSP and allows nothing else inline', () => {
    const script = 'document.title = "x"'
    const { html: document, csp } = page({ title: 'T<', body: html`<p>hi</p>`, scripts: [script] })
    const hash = createHash('sha256').update(script).digest('base64')
    expect(csp).toContain(`script-src 'sha256-${hash}'`)
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toContain('unsafe-inline')
    expect(document).toContain('<title>T&#60;</title>')
    expect(page({ title: 't', body: html`` }).csp).toContain("script-src 'none'")
    const reply = pageReply(200, { title: 't', body: html`` })
    expect(reply.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY' })
    expect(reply.html).toBe(true)
  })
})
