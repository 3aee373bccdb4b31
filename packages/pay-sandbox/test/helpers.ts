import { type ChildProcess, spawn } from 'node:child_process'
import { expect } from 'vitest'
import type { PaySandbox } from '../src/index.js'

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON reply bodies field by field
export type ApiReply = { status: number; body: any; headers: Headers }

/** A bare HTTP caller for the sandbox: the tests speak the wire protocol, not a client library. */
export function api(sandbox: Pick<PaySandbox, 'url' | 'apiKey'>, defaults: Record<string, string> = {}) {
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

/** A refusal: the HTTP status and the exact `code` of the spec's error body, checked together. */
export function expectError(reply: ApiReply, status: number, code: string, label?: string): void {
  expect({ status: reply.status, code: reply.body?.code }, label).toEqual({ status, code })
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

import type { LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** anvil's first two dev keys (the well-known `test test … junk` mnemonic). */
export const buyer = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
export const stranger = privateKeyToAccount(
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
)

/** Signs eth_signTypedData_v4 params the way a wallet would: the JSON typed data, EIP712Domain dropped for viem. */
export async function signTypedDataParams(account: LocalAccount, params: unknown[]): Promise<`0x${string}`> {
  const [, json] = params as [string, string]
  const typed = JSON.parse(json)
  const { EIP712Domain: _domain, ...types } = typed.types
  return account.signTypedData({
    domain: typed.domain,
    types,
    primaryType: typed.primaryType,
    message: typed.message,
  })
}

/**
 * The wallet side by hand: options for `account` on `chainId`, fetch the build, sign, confirm with a made-up
 * approval hash (no chain reader configured). Returns the confirm reply.
 */
export async function payByHand(
  sandbox: PaySandbox,
  paymentId: string,
  options: { account?: LocalAccount; signer?: LocalAccount; chainId?: number; maxPollMs?: number } = {},
): Promise<ApiReply> {
  const account = options.account ?? buyer
  const call = api(sandbox)
  const offered = await call('POST', `/v1/gateway/payment/${paymentId}/options`, {
    body: { accounts: [`eip155:${options.chainId ?? 31337}:${account.address}`] },
  })
  if (offered.status !== 200) return offered
  const option = offered.body.options[0]
  const build = option.actions.find((action: { type: string }) => action.type === 'build')
  const fetched = await call('POST', `/v1/gateway/payment/${paymentId}/fetch`, {
    body: { optionId: option.id, data: build.data.data },
  })
  const walletActions = [
    ...option.actions.filter((action: { type: string }) => action.type === 'walletRpc'),
    ...fetched.body.actions,
  ]
  const results = []
  for (const action of walletActions) {
    const result =
      action.data.method === 'eth_signTypedData_v4'
        ? await signTypedDataParams(options.signer ?? account, action.data.params)
        : `0x${'ab'.repeat(32)}`
    results.push({ type: 'walletRpc', data: [result] })
  }
  const query = options.maxPollMs === undefined ? '' : `?maxPollMs=${options.maxPollMs}`
  return call('POST', `/v1/gateway/payment/${paymentId}/confirm${query}`, {
    body: { optionId: option.id, results },
  })
}

/**
 * A merchant's webhook endpoint on 127.0.0.1 (port 0): the raw body bytes and headers go to `handle`, whose
 * status and body are answered. Returns its URL and `close` (register it with the test's cleanup).
 */
export async function serveWebhooks(
  handle: (
    headers: Record<string, string | string[] | undefined>,
    rawBody: Buffer,
  ) => Promise<{ status: number; body?: string }>,
): Promise<{ url: string; close: () => Promise<void> }> {
  const { createServer } = await import('node:http')
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const { status, body } = await handle(req.headers, Buffer.concat(chunks))
    res.writeHead(status).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/**
 * Runs the real CLI (`wallet-rpc pay-sandbox ARGS`) in its own process, through tsx, and resolves once its banner
 * is out (rejects if it exits first). `output()` is everything it wrote so far, stdout and stderr.
 */
export async function spawnPaySandboxCli(
  args: string[],
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'packages/wallet-rpc/src/cli/main.ts', 'pay-sandbox', ...args],
    {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8')
  }
  child.stdout!.on('data', append)
  child.stderr!.on('data', append)
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (output.includes('Ctrl-C')) {
        clearInterval(check)
        resolve()
      } else if (child.exitCode !== null) {
        clearInterval(check)
        reject(new Error(`the sandbox exited: ${output}`))
      }
    }, 20)
  })
  return { child, output: () => output }
}
