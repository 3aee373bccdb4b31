import { describe, expect, it } from 'vitest'
import { PayHttpError } from '../src/errors.js'
import { paymentIdInPath } from '../src/routes/paymentLink.js'

/**
 * The gateway's `{id}` path segment (as the router hands it over: percent-decoded once), under the seed's link rule
 * (rule 8): the checkout host and its subdomains only, checked on the parsed URL before the id is taken.
 */

const checkout = 'https://pay.sandbox.test'
const id = 'pay_7jjHzFYXUkfusvJVvAA0C1cJ'
const refusal = (segment: string, checkoutUrl = checkout) => {
  try {
    paymentIdInPath(segment, checkoutUrl)
  } catch (error) {
    return error instanceof PayHttpError ? { status: error.status, code: error.code } : error
  }
  return undefined
}

describe('paymentIdInPath', () => {
  it('reads a bare id, and a link sent once or twice encoded, in each of the seed’s forms', () => {
    const forms = [
      `${checkout}/${id}`,
      `${checkout}/?pid=${id}`,
      `https://staging.pay.sandbox.test/${id}`,
      `wc:abc@2?relay-protocol=irn&pay=${encodeURIComponent(`${checkout}/${id}`)}`,
    ]
    expect(paymentIdInPath(id, checkout)).toBe(id)
    for (const link of forms) {
      expect(paymentIdInPath(link, checkout), link).toBe(id) // sent once encoded
      expect(paymentIdInPath(encodeURIComponent(link), checkout), link).toBe(id) // sent twice encoded
    }
  })

  it('follows a checkout URL with a path and a port (a tunnel, --checkout-url)', () => {
    const tunnel = 'http://127.0.0.1:8443/checkout'
    expect(paymentIdInPath(`${tunnel}/${id}`, tunnel)).toBe(id)
    expect(paymentIdInPath(`http://127.0.0.1:8443/checkout/?pid=${id}`, tunnel)).toBe(id)
    expect(refusal(`http://127.0.0.1:9000/checkout/${id}`, tunnel)).toEqual({
      status: 400,
      code: 'invalid_params',
    })
    expect(refusal(`http://127.0.0.1:8443/${id}`, tunnel)).toEqual({ status: 400, code: 'invalid_params' })
  })

  it('refuses other hosts, lookalikes, credentials, another scheme, extra path, two ids, bad encoding: 400 invalid_params', () => {
    for (const segment of [
      `https://evil.test/${id}`,
      `https://pay.sandbox.test.evil.test/${id}`,
      `https://evilpay.sandbox.test/${id}`,
      `https://pay.sandbox.test@evil.test/${id}`,
      `https://user:pw@pay.sandbox.test/${id}`,
      `http://pay.sandbox.test/${id}`,
      `https://pay.sandbox.test:8443/${id}`,
      `https://pay.sandbox.test/a/${id}`,
      `https://pay.sandbox.test/${id}?pid=${id}`,
      `https://pay.sandbox.test/?pid=${id}&pid=${id}`,
      `https://pay.sandbox.test/not-an-id`,
      `wc:abc@2?pay=${encodeURIComponent(`https://evil.test/${id}`)}`,
      `wc:abc@2?pay=a&pay=b`,
      'javascript:alert(1)',
      '%E0%A4%A',
    ]) {
      expect(refusal(segment), segment).toEqual({ status: 400, code: 'invalid_params' })
    }
  })

  it('leaves anything else to the lookup (404 payment_not_found there)', () => {
    expect(paymentIdInPath('pay_unknown', checkout)).toBe('pay_unknown')
    expect(paymentIdInPath('%25ZZ', checkout)).toBe('%ZZ')
  })
})
