import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { defaultCheckoutHost, isPaymentLink, parsePaymentLink } from '../../src/pay/index.js'

// Link forms from the spec (Gateway API rule 8) and the WalletConnect Pay docs listed in
// ../shared/research/walletconnect.md §4: https://pay.walletconnect.com/pay_123, …/?pid=pay_123,
// wc:abc@2?pay=<urlencoded pay URL>, bare pay_123.

describe('parsePaymentLink: the four forms on the default (production) host', () => {
  it('defaults to the production checkout host', () => {
    expect(defaultCheckoutHost).toBe('pay.walletconnect.com')
  })

  it.each([
    ['https://pay.walletconnect.com/pay_123', 'pay_123'],
    ['https://pay.walletconnect.com/pay_123/', 'pay_123'],
    ['https://pay.walletconnect.com/?pid=pay_123', 'pay_123'],
    ['https://pay.walletconnect.com?pid=pay_123', 'pay_123'],
    ['https://pay.walletconnect.com/pay_01JZ8Q-x_y', 'pay_01JZ8Q-x_y'],
    ['https://staging.pay.walletconnect.com/pay_123', 'pay_123'],
    ['https://dev.pay.walletconnect.com/?pid=pay_9', 'pay_9'],
    ['HTTPS://PAY.WALLETCONNECT.COM/pay_123', 'pay_123'],
    ['  https://pay.walletconnect.com/pay_123\n', 'pay_123'],
    ['pay_123', 'pay_123'],
    ['wc:abc@2?relay-protocol=irn&symKey=00&pay=https%3A%2F%2Fpay.walletconnect.com%2Fpay_123', 'pay_123'],
    ['wc:abc@2?pay=https%3A%2F%2Fpay.walletconnect.com%2F%3Fpid%3Dpay_77', 'pay_77'],
  ])('%s → %s', (input, id) => {
    expect(parsePaymentLink(input)).toBe(id)
    expect(isPaymentLink(input)).toBe(true)
  })
})

describe('parsePaymentLink refuses lookalikes, other schemes and bad ids', () => {
  const trustedHosts = ['pay.example.com']

  it.each([
    // Lookalike hosts: suffix, prefix, credentials, ports, trailing garbage.
    'https://pay.example.com.evil.io/pay_1',
    'https://evilpay.example.com/pay_1',
    'https://pay.example.com@evil.io/pay_1',
    'https://user:pass@pay.example.com/pay_1',
    'https://evil.io/pay.example.com/pay_1',
    'https://evil.io/?pid=pay_1&host=pay.example.com',
    'https://pay.example.com:8443/pay_1',
    'https://pay.example.com./pay_1',
    'https://pay.example.co/pay_1',
    'https://xn--py-8ja.example.com/pay_1',
    'https://pаy.example.com/pay_1', // Cyrillic а
    // Schemes other than https.
    'http://pay.example.com/pay_1',
    'javascript:alert(1)//pay.example.com/pay_1',
    'data:text/html,https://pay.example.com/pay_1',
    'ftp://pay.example.com/pay_1',
    'wss://pay.example.com/pay_1',
    // Paths and queries that are not one of the forms.
    'https://pay.example.com/',
    'https://pay.example.com/checkout/pay_1',
    'https://pay.example.com/pay_1?pid=pay_2',
    'https://pay.example.com/?pid=pay_1&pid=pay_2',
    'https://pay.example.com/?id=pay_1',
    // Ids outside the alphabet.
    'pay_',
    'pay_1 2',
    'pay_1/../x',
    'pay_<script>',
    'pay_%2F',
    'PAY_1',
    'pay_1.2',
    `pay_${'a'.repeat(129)}`,
    'https://pay.example.com/pay_%3Cx%3E',
    'https://pay.example.com/?pid=pay_1%2F..',
    'https://pay.example.com/pay_1;x',
    // wc: URIs: no pay parameter, two of them, a bare id, an untrusted or plain-http link inside.
    'wc:abc@2?relay-protocol=irn&symKey=00',
    'wc:abc@2?pay=https%3A%2F%2Fpay.example.com%2Fpay_1&pay=https%3A%2F%2Fpay.example.com%2Fpay_2',
    'wc:abc@2?pay=pay_1',
    'wc:abc@2?pay=https%3A%2F%2Fpay.example.com.evil.io%2Fpay_1',
    'wc:abc@2?pay=http%3A%2F%2Fpay.example.com%2Fpay_1',
    'wc:abc@2?pay=wc%3Axyz%402%3Fpay%3Dhttps%253A%252F%252Fpay.example.com%252Fpay_1',
    // Not strings or empty.
    '',
    'not a link',
  ])('%s → null', (input) => {
    expect(parsePaymentLink(input, { trustedHosts })).toBeNull()
    expect(isPaymentLink(input, { trustedHosts })).toBe(false)
  })

  it('accepts the same forms on the configured host and its subdomains', () => {
    expect(parsePaymentLink('https://pay.example.com/pay_1', { trustedHosts })).toBe('pay_1')
    expect(parsePaymentLink('https://eu.pay.example.com/?pid=pay_1', { trustedHosts })).toBe('pay_1')
    // A configured host replaces the default one.
    expect(parsePaymentLink('https://pay.walletconnect.com/pay_1', { trustedHosts })).toBeNull()
  })

  it('refuses non-string input and oversized input without throwing', () => {
    expect(parsePaymentLink(undefined)).toBeNull()
    expect(parsePaymentLink(42)).toBeNull()
    expect(parsePaymentLink({ href: 'https://pay.walletconnect.com/pay_1' })).toBeNull()
    expect(parsePaymentLink(`https://pay.walletconnect.com/pay_1?x=${'a'.repeat(5000)}`)).toBeNull()
  })

  it('rejects a trustedHosts entry that is not a bare hostname', () => {
    expect(() => parsePaymentLink('pay_1', { trustedHosts: ['https://pay.example.com'] })).toThrow(TypeError)
    expect(() => parsePaymentLink('pay_1', { trustedHosts: ['*.example.com'] })).toThrow(TypeError)
  })

  it('tells a payment link from a pairing URI', () => {
    const pairing =
      'wc:7f6e@2?relay-protocol=irn&symKey=587d5484ce2a2a6ee3ba1962fdd7e8588e06200c46823bd18fbd67def96ad303'
    expect(isPaymentLink(pairing)).toBe(false)
    expect(isPaymentLink(`${pairing}&pay=${encodeURIComponent('https://pay.walletconnect.com/pay_5')}`)).toBe(
      true,
    )
  })
})

describe('parsePaymentLink properties (fast-check)', () => {
  const trustedHosts = ['pay.example.com']
  const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/)
  const id = fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/).map((rest) => `pay_${rest}`)

  it('never throws, and anything it returns is a well-formed id', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.webUrl({ withQueryParameters: true, withFragments: true })),
        (input) => {
          const result = parsePaymentLink(input, { trustedHosts })
          expect(result === null || /^pay_[A-Za-z0-9_-]{1,128}$/.test(result)).toBe(true)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('accepts every form on the trusted host and any subdomain of it', () => {
    fc.assert(
      fc.property(
        fc.array(label, { maxLength: 3 }),
        id,
        fc.constantFrom(0, 1, 2),
        (subdomains, payId, form) => {
          const host = [...subdomains, 'pay.example.com'].join('.')
          const link = form === 0 ? `https://${host}/${payId}` : `https://${host}/?pid=${payId}`
          const input = form === 2 ? `wc:t@2?relay-protocol=irn&pay=${encodeURIComponent(link)}` : link
          expect(parsePaymentLink(input, { trustedHosts })).toBe(payId)
        },
      ),
    )
  })

  it('refuses every host that is neither the trusted host nor a subdomain of it', () => {
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), id, (labels, payId) => {
        const host = labels.join('.')
        fc.pre(host !== 'pay.example.com' && !host.endsWith('.pay.example.com'))
        for (const input of [
          `https://${host}/${payId}`,
          `https://${host}.pay.example.com.evil/${payId}`,
          `https://pay.example.com.${host}/${payId}`,
          `https://pay.example.com@${host}/${payId}`,
          `https://${host}pay.example.com/${payId}`,
        ]) {
          expect(parsePaymentLink(input, { trustedHosts })).toBeNull()
        }
      }),
    )
  })
})
