import { Address, Cell } from '@ton/core'
import { startTonSandbox, type TonSandbox } from '@wallet-rpc/devchains/tonSandbox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonRpcSuccess } from '../../src/core/jsonrpc.js'
import type { RequestContext } from '../../src/core/namespace.js'
import { plainDestination, request, tonWallet } from './fixtures.js'

// The opt-in AppKit compatibility switch (`sendMessageResultAsObject`): off by default (the spec's plain
// base64 string), `{ boc }` only for the requests the wallet's predicate picks; the BoC is the same either way.

const appKitDapp = 'https://appkit-dapp.example'
let sandbox: TonSandbox
const asked: RequestContext[] = []
const wallet = () =>
  tonWallet({
    chains: ['ton:-239'],
    providers: { 'ton:-239': sandbox.provider },
    clock: () => Date.now(),
    sendMessageResultAsObject: (context) => {
      asked.push(context)
      return context.origin === appKitDapp
    },
  })

beforeAll(async () => {
  sandbox = await startTonSandbox()
  const properties = await wallet().rpc.sessionProperties()
  await sandbox.fund(new Address(0, Cell.fromBase64(properties.ton_getStateInit!).hash()), 5_000_000_000n)
})
afterAll(() => sandbox?.stop())

const send = (rpc: ReturnType<typeof tonWallet>['rpc'], origin: string, id: number) =>
  rpc.handle({
    chainId: 'ton:-239',
    request: request('ton_sendMessage', [{ messages: [{ address: plainDestination, amount: '1000' }] }], id),
    origin,
  }) as Promise<JsonRpcSuccess>

describe('ton_sendMessage result shape', () => {
  it('is the spec plain string without the option', async () => {
    const { rpc } = tonWallet({
      chains: ['ton:-239'],
      providers: { 'ton:-239': sandbox.provider },
      clock: () => Date.now(),
    })
    const response = await send(rpc, appKitDapp, 1)
    expect(typeof response.result).toBe('string')
    expect(Cell.fromBase64(response.result as string).hash().length).toBe(32)
  })

  it('is { boc } for the dapp the predicate picks and the plain string for any other, asked per request', async () => {
    const { rpc } = wallet()
    asked.length = 0
    const appKit = await send(rpc, appKitDapp, 2)
    const other = await send(rpc, 'https://other.example', 3)
    expect(appKit.result).toEqual({ boc: expect.any(String) })
    expect(typeof other.result).toBe('string')
    expect(asked.map((context) => [context.origin, context.method])).toEqual([
      [appKitDapp, 'ton_sendMessage'],
      ['https://other.example', 'ton_sendMessage'],
    ])
    // Both landed: the object form changes the answer's shape only.
    const ran = sandbox.sent.slice(-2).map((sent) => sent.transactions[0]!.description)
    expect(ran.map((description) => description.type === 'generic' && !description.aborted)).toEqual([
      true,
      true,
    ])
  })
})
