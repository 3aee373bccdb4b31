// A toncenter v2 HTTP face (the three calls `toncenter()` makes) over the @ton/sandbox chain, so a wallet
// under test reaches the emulator through a URL, exactly as it would reach toncenter.com.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TonChainProvider } from 'wallet-rpc/ton'
import { readBody } from './http.js'

export type ToncenterFacade = { url: string; close(): Promise<void> }

const stateNames: Record<string, string> = { uninit: 'uninitialized' }

export async function serveToncenter(provider: TonChainProvider): Promise<ToncenterFacade> {
  const server = createServer((request, response) => {
    answer(provider, request, response).catch((error: unknown) => {
      send(response, 500, { ok: false, error: error instanceof Error ? error.message : 'failed' })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

async function answer(
  provider: TonChainProvider,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1')
  const body = request.method === 'POST' ? JSON.parse(await readBody(request)) : {}
  if (url.pathname.endsWith('/getAddressInformation')) {
    const account = await provider.getAccount(url.searchParams.get('address') ?? '')
    const state = stateNames[account.state] ?? account.state
    return send(response, 200, { ok: true, result: { state, balance: account.balance.toString() } })
  }
  if (url.pathname.endsWith('/runGetMethod')) {
    const seqno = await provider.getSeqno(String(body.address))
    return send(response, 200, {
      ok: true,
      result: { exit_code: 0, stack: [['num', `0x${seqno.toString(16)}`]] },
    })
  }
  if (url.pathname.endsWith('/sendBocReturnHash')) {
    try {
      const { hash } = await provider.sendBoc(Buffer.from(String(body.boc), 'base64'))
      return send(response, 200, { ok: true, result: hash === undefined ? {} : { hash_norm: hash } })
    } catch (error) {
      return send(response, 500, {
        ok: false,
        error: error instanceof Error ? error.message : 'rejected',
        code: 500,
      })
    }
  }
  send(response, 404, { ok: false, error: 'unknown method' })
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}
