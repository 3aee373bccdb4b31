import { Address } from '@ton/core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { maxEmulatorAnswerBytes } from '../../../src/ton/emulation/post.js'
import {
  type TonChainProvider,
  type TonEmulationRequest,
  tonapi,
  toncenter,
  walletContract,
} from '../../../src/ton/index.js'
import { bounceableDestination, fixturePublicKeyHex, plainDestination } from '../fixtures.js'
import { readdressed, recorded } from './answers.js'
import { type FakeChainServer, startFakeChainServer } from './server.js'

const contract = walletContract(Buffer.from(fixturePublicKeyHex, 'hex'), { version: 'v5r1' })
const ours = contract.rawAddress

/** What ton_sendMessage hands an emulator (here built by hand; review.test.ts goes through the method). */
function emulationRequest(overrides: Partial<TonEmulationRequest> = {}): TonEmulationRequest {
  return {
    chainId: 'ton:-239',
    wallet: {
      rawAddress: ours,
      address: contract.account('ton:-239'),
      publicKey: contract.publicKey,
      version: 'v5r1',
      stateInit: undefined,
    },
    seqno: 5,
    validUntil: 1_700_000_300,
    messages: [{ address: plainDestination, amount: '100000000', payload: 'te6cckEBAQEAAgAAAEysuc0=' }],
    unsignedBoc: new Uint8Array([0xb5, 0xee, 0x9c, 0x72]),
    signal: new AbortController().signal,
    ...overrides,
  }
}

const tonSent = () => ({ status: 200, json: readdressed(recorded('toncenter-ton-sent'), ours) })

let server: FakeChainServer
let other: FakeChainServer

beforeAll(async () => {
  ;[server, other] = await Promise.all([startFakeChainServer(), startFakeChainServer()])
})
afterAll(async () => {
  await Promise.all([server.close(), other.close()])
})
beforeEach(() => {
  for (const fake of [server, other]) {
    fake.seen.length = 0
    fake.reply.clear()
  }
})

const emulateWith = (provider: TonChainProvider, request = emulationRequest()) => {
  if (provider.emulate === undefined) throw new Error('no emulate')
  return provider.emulate(request)
}

describe('toncenter(url, options).emulate', () => {
  it('derives …/api/emulate/v1 from …/api/v2 (or /api/v2/jsonRPC) and posts the unsigned TON Connect payload only', async () => {
    server.reply.set('emulateTonConnect', tonSent)
    for (const path of ['/api/v2', '/api/v2/', '/api/v2/jsonRPC']) {
      server.seen.length = 0
      const result = await emulateWith(toncenter(`${server.url}${path}`))
      expect(result.ton).toBe(-1_002_329_608n)
      expect(result.emulator).toBe(`toncenter (${new URL(server.url).host})`)
      expect(server.seen.map((request) => request.path)).toEqual(['/api/emulate/v1/emulateTonConnect'])
      // Exactly these keys: no boc, no signature.
      expect(server.seen[0]!.body).toStrictEqual({
        from: contract.account('ton:-239'),
        valid_until: 1_700_000_300,
        messages: [{ address: plainDestination, amount: '100000000', payload: 'te6cckEBAQEAAgAAAEysuc0=' }],
        with_actions: true,
        include_metadata: true,
        include_address_book: true,
      })
    }
  })

  it('has no emulator for a URL without /api/v2, unless emulatorUrl names one; emulator: false turns it off', async () => {
    expect(toncenter(server.url).emulate).toBeUndefined()
    expect(toncenter(`${server.url}/api/v2`, { emulator: false }).emulate).toBeUndefined()
    server.reply.set('emulateTonConnect', tonSent)
    await emulateWith(toncenter(server.url, { emulatorUrl: `${server.url}/emulator/v1` }))
    expect(server.seen.map((request) => request.path)).toEqual(['/emulator/v1/emulateTonConnect'])
  })

  it('sends the API key and URL credentials to its own origin only', async () => {
    server.reply.set('emulateTonConnect', tonSent)
    other.reply.set('emulateTonConnect', tonSent)
    const withCredentials = new URL(`${server.url}/api/v2`)
    withCredentials.username = 'bob'
    withCredentials.password = 'hunter2'
    await emulateWith(toncenter(withCredentials.href, { apiKey: 'k3y' }))
    expect(server.seen[0]!.headers['x-api-key']).toBe('k3y')
    expect(server.seen[0]!.headers.authorization).toBe(`Basic ${btoa('bob:hunter2')}`)

    await emulateWith(
      toncenter(withCredentials.href, { apiKey: 'k3y', emulatorUrl: `${other.url}/api/emulate/v1` }),
    )
    expect(other.seen[0]!.path).toBe('/api/emulate/v1/emulateTonConnect')
    expect(other.seen[0]!.headers['x-api-key']).toBeUndefined()
    expect(other.seen[0]!.headers.authorization).toBeUndefined()
    expect(JSON.stringify(other.seen)).not.toContain('hunter2')
    expect(JSON.stringify(other.seen)).not.toContain('k3y')
  })

  it('more than 4 messages, or an undeployed wallet: emulateTrace with the unsigned BoC and ignore_chksig', async () => {
    server.reply.set('emulateTrace', tonSent)
    const boc = new Uint8Array([1, 2, 3])
    const many = Array.from({ length: 5 }, () => ({ address: bounceableDestination, amount: '1' }))
    await emulateWith(
      toncenter(`${server.url}/api/v2`),
      emulationRequest({ messages: many, unsignedBoc: boc }),
    )
    await emulateWith(
      toncenter(`${server.url}/api/v2`),
      emulationRequest({
        unsignedBoc: boc,
        wallet: { ...emulationRequest().wallet, stateInit: Buffer.from(contract.stateInitBoc, 'base64') },
      }),
    )
    expect(server.seen.map((request) => request.path)).toEqual([
      '/api/emulate/v1/emulateTrace',
      '/api/emulate/v1/emulateTrace',
    ])
    for (const { body } of server.seen) {
      expect(body).toStrictEqual({
        boc: 'AQID',
        ignore_chksig: true,
        with_actions: true,
        include_metadata: true,
        include_address_book: true,
      })
    }
  })

  it('"Account not found in accounts_dict" (a wallet toncenter does not know deployed): falls back to emulateTrace', async () => {
    server.reply.set('emulateTonConnect', () => ({
      status: 500,
      json: { error: 'Failed to fetch account state: Account not found in accounts_dict' },
    }))
    server.reply.set('emulateTrace', tonSent)
    expect((await emulateWith(toncenter(`${server.url}/api/v2`))).ton).toBe(-1_002_329_608n)
    expect(server.seen.map((request) => request.path)).toEqual([
      '/api/emulate/v1/emulateTonConnect',
      '/api/emulate/v1/emulateTrace',
    ])
  })

  it('rejects with the status and the service’s error on a 400 or 500, and on an answer that is not JSON', async () => {
    const provider = toncenter(`${server.url}/api/v2`, { apiKey: 'k3y' })
    const cases = [
      [
        {
          status: 400,
          json: { error: 'invalid request: messages array cannot contain more than 4 messages' },
        },
        'toncenter emulateTonConnect: HTTP 400, invalid request: messages array cannot contain more than 4 messages',
      ],
      [
        { status: 500, json: { error: 'failed to push task to emulator queue' } },
        'toncenter emulateTonConnect: HTTP 500, failed to push task to emulator queue',
      ],
      [
        { status: 502, text: '<html>Bad Gateway</html>' },
        'toncenter emulateTonConnect: HTTP 502, the answer is not JSON',
      ],
      [{ status: 200, text: 'not json' }, 'toncenter emulateTonConnect: HTTP 200, the answer is not JSON'],
      [
        { status: 200, json: { transactions: {} } },
        'toncenter emulateTonConnect: the trace has no transaction of the wallet',
      ],
    ] as const
    for (const [reply, message] of cases) {
      server.reply.set('emulateTonConnect', () => reply)
      const error = await emulateWith(provider).catch((thrown: unknown) => thrown)
      expect((error as Error).message).toBe(message)
      expect((error as Error).message).not.toContain('k3y')
    }
  })

  it('gives up after emulateTimeoutMs (default 5 s), and when the request’s signal aborts', async () => {
    server.reply.set('emulateTonConnect', () => ({ hang: true }))
    const slow = toncenter(`${server.url}/api/v2`, { emulateTimeoutMs: 200 })
    await expect(emulateWith(slow)).rejects.toThrow('toncenter emulateTonConnect: no answer within 200 ms')
    const controller = new AbortController()
    const pending = emulateWith(
      toncenter(`${server.url}/api/v2`),
      emulationRequest({ signal: controller.signal }),
    )
    controller.abort(new DOMException('stopped', 'AbortError'))
    await expect(pending).rejects.toThrow('toncenter emulateTonConnect:')
  })

  it(`refuses an answer larger than ${maxEmulatorAnswerBytes / 1024 / 1024} MiB without holding it`, async () => {
    server.reply.set('emulateTonConnect', () => ({ status: 200, bytes: maxEmulatorAnswerBytes + 128 * 1024 }))
    await expect(emulateWith(toncenter(`${server.url}/api/v2`))).rejects.toThrow(
      'toncenter emulateTonConnect: the answer is larger than 4 MiB',
    )
  })

  it('emulator: tonapi(url) replaces toncenter’s', async () => {
    server.reply.set('wallet/emulate', () => ({
      status: 200,
      json: readdressed(recorded('tonapi-ton-sent'), ours),
    }))
    const provider = toncenter(`${other.url}/api/v2`, { emulator: tonapi(server.url) })
    expect((await emulateWith(provider)).ton).toBe(-1_002_329_608n)
    expect(other.seen).toEqual([])
    expect(server.seen.map((request) => request.path)).toEqual(['/v2/wallet/emulate'])
  })
})

describe('tonapi(url, options)', () => {
  it('posts { boc } (the unsigned message) to /v2/wallet/emulate with the API key as a Bearer token', async () => {
    server.reply.set('wallet/emulate', () => ({
      status: 200,
      json: readdressed(recorded('tonapi-usdt-sent'), ours),
    }))
    const result = await tonapi(`${server.url}/`, { apiKey: 'k3y' }).emulate(
      emulationRequest({ unsignedBoc: new Uint8Array([1, 2, 3]) }),
    )
    expect(result.emulator).toBe(`tonapi (${new URL(server.url).host})`)
    expect(result.jettons).toEqual([
      {
        master: Address.parse('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs').toRawString(),
        amount: -9_000_000n,
        symbol: 'USD₮',
        decimals: 6,
      },
    ])
    expect(server.seen[0]!.path).toBe('/v2/wallet/emulate')
    expect(server.seen[0]!.body).toStrictEqual({ boc: 'AQID' })
    expect(server.seen[0]!.headers.authorization).toBe('Bearer k3y')
  })

  it('rejects on a 400, a 500, an answer that is not JSON, and after timeoutMs', async () => {
    const emulator = tonapi(server.url, { timeoutMs: 200 })
    const cases = [
      [
        { status: 400, json: { error: "code not found and message doesn't have init" } },
        "tonapi wallet/emulate: HTTP 400, code not found and message doesn't have init",
      ],
      [
        { status: 500, json: { error: 'emulation failed' } },
        'tonapi wallet/emulate: HTTP 500, emulation failed',
      ],
      [{ status: 200, text: 'oops' }, 'tonapi wallet/emulate: HTTP 200, the answer is not JSON'],
      [{ hang: true }, 'tonapi wallet/emulate: no answer within 200 ms'],
    ] as const
    for (const [reply, message] of cases) {
      server.reply.set('wallet/emulate', () => reply)
      await expect(emulator.emulate(emulationRequest())).rejects.toThrow(message)
    }
  })

  it('takes an API key or URL credentials, not both', () => {
    expect(() => tonapi('https://u:p@tonapi.io', { apiKey: 'k' })).toThrow('not both')
  })
})
