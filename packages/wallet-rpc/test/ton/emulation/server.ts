// A toncenter (API v2 and emulation API) and tonapi stand-in on 127.0.0.1: the real providers reach it with the
// real fetch, so timeouts, status codes and bodies are what they would be over the network. It answers the
// emulators from recorded answers (or what a test sets) and records every request.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Seen = { path: string; headers: IncomingMessage['headers']; body: unknown }

/** What an emulator endpoint does: answer JSON (or text) with a status, or never answer. */
export type EmulatorReply =
  | { status: number; json: unknown }
  | { status: number; text: string }
  | { hang: true }
  | { status: number; bytes: number }

export type FakeChainServer = {
  url: string
  seen: Seen[]
  /** Broadcast BoCs (base64). */
  sent: string[]
  /** The wallet account `getAddressInformation` reports. */
  account: { state: string; balance: string; seqno: number }
  /** Per emulator endpoint (`emulateTonConnect`, `emulateTrace`, `wallet/emulate`). */
  reply: Map<string, (body: unknown) => EmulatorReply>
  close(): Promise<void>
}

export async function startFakeChainServer(): Promise<FakeChainServer> {
  const seen: Seen[] = []
  const sent: string[] = []
  const reply = new Map<string, (body: unknown) => EmulatorReply>()
  const account = { state: 'active', balance: '10000000000', seqno: 5 }
  const hanging: ServerResponse[] = []

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const text = Buffer.concat(chunks).toString('utf8')
    const body = text === '' ? undefined : JSON.parse(text)
    seen.push({ path: url.pathname, headers: request.headers, body })
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' })
      response.end(JSON.stringify(value))
    }
    const endpoint = url.pathname.split('/').slice(-2).join('/')
    const emulator = reply.get(endpoint) ?? reply.get(endpoint.split('/')[1]!)
    if (url.pathname.endsWith('/getAddressInformation')) {
      return json(200, { ok: true, result: { state: account.state, balance: account.balance } })
    }
    if (url.pathname.endsWith('/runGetMethod')) {
      return json(200, {
        ok: true,
        result: { exit_code: 0, stack: [['num', `0x${account.seqno.toString(16)}`]] },
      })
    }
    if (url.pathname.endsWith('/sendBocReturnHash')) {
      sent.push(String((body as { boc?: unknown }).boc))
      return json(200, { ok: true, result: {} })
    }
    if (emulator === undefined) return json(404, { error: 'not found' })
    const answer = emulator(body)
    if ('hang' in answer) {
      hanging.push(response)
      return
    }
    if ('bytes' in answer) {
      response.writeHead(answer.status, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      for (let written = 0; written < answer.bytes; written += chunk.length) {
        if (!response.write(chunk)) await new Promise((resolve) => response.once('drain', resolve))
        if (response.destroyed) return
      }
      return response.end()
    }
    if ('text' in answer) {
      response.writeHead(answer.status, { 'content-type': 'text/html' })
      return response.end(answer.text)
    }
    return json(answer.status, answer.json)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    sent,
    account,
    reply,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
