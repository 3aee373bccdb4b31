import type { PaySandbox } from '../../../src/pay/sandbox/index.js'

export type ApiReply = { status: number; body: any; headers: Headers }

/** A bare HTTP caller for the sandbox: the tests speak the wire protocol, not a client library. */
export function api(sandbox: PaySandbox, defaults: Record<string, string> = {}) {
  return async (
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string | undefined>; raw?: string } = {},
  ): Promise<ApiReply> => {
    const headers: Record<string, string> = { 'api-key': sandbox.apiKey, ...defaults }
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value === undefined) delete headers[name]
      else headers[name] = value
    }
    const hasBody = options.body !== undefined || options.raw !== undefined
    if (hasBody && headers['content-type'] === undefined) headers['content-type'] = 'application/json'
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers,
      ...(hasBody ? { body: options.raw ?? JSON.stringify(options.body) } : {}),
    })
    const text = await response.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {}
    return { status: response.status, body, headers: response.headers }
  }
}

export const usd = (value: string) => ({ unit: 'iso4217/USD', value })

/** Creates a payment through the general API and returns its id. */
export async function createPayment(
  sandbox: PaySandbox,
  referenceId = 'order-1',
  amount = usd('1250'),
): Promise<string> {
  const call = api(sandbox, { 'merchant-id': sandbox.merchantId })
  const reply = await call('POST', '/v1/payments', { body: { referenceId, amount } })
  if (reply.status !== 201) throw new Error(`create payment answered ${reply.status}`)
  return reply.body.id as string
}
