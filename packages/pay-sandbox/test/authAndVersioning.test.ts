import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type PaySandbox, startPaySandbox } from '../src/index.js'
import { api, expectError } from './helpers.js'

let sandbox: PaySandbox
let call: ReturnType<typeof api>

beforeAll(async () => {
  sandbox = await startPaySandbox({
    versions: ['2025-10-01', '2026-02-18', '2026-02-18.preview'],
    pinnedVersion: '2026-02-18',
  })
  call = api(sandbox)
})
afterAll(() => sandbox.stop())

describe('Api-Key', () => {
  it('a missing key is 401 missing_api_key with the error body shape', async () => {
    const reply = await call('GET', '/v1/merchants', { headers: { 'api-key': undefined } })
    expectError(reply, 401, 'missing_api_key')
    expect(reply.body).toEqual({ message: expect.any(String), code: 'missing_api_key' })
  })

  it('another svc_test_ key and a non-svc key are 401 invalid_api_key', async () => {
    for (const key of ['svc_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'sk_live_123', 'svctest_x']) {
      const reply = await call('GET', '/v1/merchants', { headers: { 'api-key': key } })
      expectError(reply, 401, 'invalid_api_key')
    }
  })

  it('a live-form svc_ key the sandbox never issued is 401 invalid_api_key (the spec keeps 403 for valid keys)', async () => {
    for (const key of ['svc_live0123456789', 'svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      const reply = await call('GET', '/v1/merchants', { headers: { 'api-key': key } })
      expectError(reply, 401, 'invalid_api_key')
    }
  })

  it('wallet routes accept App-Id with Client-Id; App-Id alone is 401; merchant routes refuse App-Id', async () => {
    const app = { 'api-key': undefined, 'app-id': sandbox.appId }
    const listed = await call('GET', '/v1/payments', { headers: { ...app, 'client-id': 'wallet-1' } })
    expect(listed.status).toBe(200)
    const noClient = await call('GET', '/v1/payments', { headers: app })
    expectError(noClient, 401, 'missing_api_key')
    const wrongApp = await call('GET', '/v1/payments', {
      headers: { ...app, 'app-id': 'app_other', 'client-id': 'c' },
    })
    expectError(wrongApp, 401, 'invalid_api_key')
    const merchants = await call('GET', '/v1/merchants', { headers: { ...app, 'client-id': 'wallet-1' } })
    expectError(merchants, 401, 'missing_api_key')
  })
})

describe('Pay-Version', () => {
  it('absent: the pin is used and echoed on success', async () => {
    const reply = await call('GET', '/v1/merchants')
    expect(reply.status).toBe(200)
    expect(reply.headers.get('pay-version')).toBe('2026-02-18')
  })

  it('a newer known version (preview) is resolved and echoed', async () => {
    const reply = await call('GET', '/v1/merchants', { headers: { 'pay-version': '2026-02-18.preview' } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('pay-version')).toBe('2026-02-18.preview')
  })

  it('malformed or impossible dates are 400 invalid_api_version', async () => {
    for (const version of ['latest', '2026-2-18', '2026-02-30', '2026-02-18.beta', '2026-13-01']) {
      const reply = await call('GET', '/v1/merchants', { headers: { 'pay-version': version } })
      expectError(reply, 400, 'invalid_api_version')
    }
  })

  it('a well-formed unknown version is 400 unknown_api_version', async () => {
    const reply = await call('GET', '/v1/merchants', { headers: { 'pay-version': '2027-01-01' } })
    expectError(reply, 400, 'unknown_api_version')
    expect(reply.body.details.supported).toContain('2026-02-18')
  })

  it('a known version older than the pin is 400 api_version_downgrade', async () => {
    const reply = await call('GET', '/v1/merchants', { headers: { 'pay-version': '2025-10-01' } })
    expectError(reply, 400, 'api_version_downgrade')
  })
})

describe('WCP-Version and Api-Version (the official wallet client’s headers) beside Pay-Version', () => {
  it('each is understood alone, and the resolved version is echoed under it and under Pay-Version', async () => {
    for (const name of ['wcp-version', 'api-version']) {
      const reply = await call('GET', '/v1/merchants', { headers: { [name]: '2026-02-18.preview' } })
      expect(reply.status, name).toBe(200)
      expect(reply.headers.get(name)).toBe('2026-02-18.preview')
      expect(reply.headers.get('pay-version')).toBe('2026-02-18.preview')
      expectError(
        await call('GET', '/v1/merchants', { headers: { [name]: '2025-10-01' } }),
        400,
        'api_version_downgrade',
      )
      expectError(
        await call('GET', '/v1/merchants', { headers: { [name]: 'latest' } }),
        400,
        'invalid_api_version',
      )
    }
    const plain = await call('GET', '/v1/merchants', { headers: { 'pay-version': '2026-02-18' } })
    expect(plain.headers.get('wcp-version')).toBeNull()
  })

  it('all three agreeing is fine; any two disagreeing is 400 invalid_api_version', async () => {
    const same = { 'pay-version': '2026-02-18', 'wcp-version': '2026-02-18', 'api-version': '2026-02-18' }
    expect((await call('GET', '/v1/merchants', { headers: same })).status).toBe(200)
    const split = await call('GET', '/v1/merchants', {
      headers: { 'pay-version': '2026-02-18', 'wcp-version': '2026-02-18.preview' },
    })
    expectError(split, 400, 'invalid_api_version')
  })

  it('by default the sandbox knows 2026-02-18 (pinned) and the official client’s 2026-02-19.preview', async () => {
    const defaults = await startPaySandbox()
    try {
      const reply = await api(defaults)('GET', '/v1/merchants', {
        headers: { 'wcp-version': '2026-02-19.preview' },
      })
      expect(reply.headers.get('wcp-version')).toBe('2026-02-19.preview')
      expect((await api(defaults)('GET', '/v1/merchants')).headers.get('pay-version')).toBe('2026-02-18')
    } finally {
      await defaults.stop()
    }
  })
})

describe('gateway paths answer only with the official client’s codes', () => {
  it('no route, wrong method, a body too large or not JSON keep their status with invalid_params / params_validation', async () => {
    const gateway = '/v1/gateway/payment/pay_x'
    const cases = [
      [await call('POST', `${gateway}/nothing`, { body: {} }), 404, 'invalid_params', 'not_found'],
      [await call('GET', `${gateway}/options`), 405, 'invalid_params', 'method_not_allowed'],
      [
        await call('POST', `${gateway}/options`, { raw: 'x'.repeat(1_100_000) }),
        413,
        'params_validation',
        'payload_too_large',
      ],
      [
        await call('POST', `${gateway}/options`, { raw: 'hi', headers: { 'content-type': 'text/plain' } }),
        415,
        'params_validation',
        'unsupported_media_type',
      ],
    ] as const
    for (const [reply, status, code, reason] of cases) {
      expectError(reply, status, code, reason)
      expect(reply.body.details.reason).toBe(reason)
    }
  })
})

describe('routing and bodies', () => {
  it('unknown route 404 not_found, wrong method 405', async () => {
    expect((await call('GET', '/v1/nothing')).body.code).toBe('not_found')
    const wrong = await call('DELETE', '/v1/merchants')
    expectError(wrong, 405, 'method_not_allowed')
  })

  it('invalid JSON is 400 params_validation; a non-JSON content type is 415', async () => {
    const headers = { 'idempotency-key': 'k-json' }
    const bad = await call('POST', '/v1/merchants', { raw: '{"merchantName":', headers })
    expectError(bad, 400, 'params_validation')
    const text = await call('POST', '/v1/merchants', {
      raw: 'hi',
      headers: { ...headers, 'content-type': 'text/plain' },
    })
    expectError(text, 415, 'unsupported_media_type')
  })

  it('a body over 1 MiB is 413', async () => {
    const reply = await call('POST', '/v1/merchants', {
      raw: JSON.stringify({ merchantName: 'x'.repeat(1_100_000) }),
      headers: { 'idempotency-key': 'k-big' },
    })
    expectError(reply, 413, 'payload_too_large')
  })
})
