import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createWalletRpc } from '../../../src/createWalletRpc.js'
import { createFakeNamespace, createSpySigner, FAKE_ACCOUNT } from '../../core/fakeNamespace.js'

/**
 * Input that explodes when read: a Proxy whose every trap throws, getters that throw, at every level of both
 * input shapes. `handle()` must still answer (-32600, or -32603 with the cause handed to `onError`), never
 * reject, never sign.
 */
const boom = () => {
  throw new Error('boom: hostile getter')
}
const explodingProxy = () =>
  new Proxy(
    {},
    {
      get: boom,
      has: boom,
      ownKeys: boom,
      getOwnPropertyDescriptor: boom,
      getPrototypeOf: boom,
      apply: boom,
    },
  )
const withThrowingGetter = <T extends object>(value: T, key: string): T =>
  Object.defineProperty({ ...value }, key, { get: boom, enumerable: true })

function harness() {
  const signer = createSpySigner()
  const { namespace } = createFakeNamespace(signer)
  const errors: unknown[] = []
  const wallet = createWalletRpc({
    namespaces: [namespace],
    approve: () => true,
    onError: (error) => errors.push(error),
  })
  return { wallet, signer, errors }
}

const plain = {
  chainId: 'fake:1',
  origin: 'https://dapp.test',
  request: { jsonrpc: '2.0', id: 7, method: 'fake_sign', params: { account: FAKE_ACCOUNT, message: 'abcd' } },
}
const event = {
  id: 7,
  topic: 't',
  params: {
    chainId: 'fake:1',
    request: { method: 'fake_sign', params: { account: FAKE_ACCOUNT, message: 'abcd' } },
  },
  verifyContext: { verified: { origin: 'https://dapp.test', validation: 'VALID' } },
}

/** Every way to plant a throwing read in the two shapes: at the top, and at each nested object's keys. */
const hostileInputs: Array<[string, unknown]> = [
  ['a Proxy whose traps all throw', explodingProxy()],
  ...Object.keys(plain).map(
    (key) => [`plain shape, throwing ${key}`, withThrowingGetter(plain, key)] as [string, unknown],
  ),
  ...Object.keys(plain.request).map(
    (key) =>
      [
        `plain shape, throwing request.${key}`,
        { ...plain, request: withThrowingGetter(plain.request, key) },
      ] as [string, unknown],
  ),
  ['plain shape, request is an exploding Proxy', { ...plain, request: explodingProxy() }],
  [
    'plain shape, params is an exploding Proxy',
    { ...plain, request: { ...plain.request, params: explodingProxy() } },
  ],
  [
    'plain shape, params.message throws',
    { ...plain, request: { ...plain.request, params: withThrowingGetter(plain.request.params, 'message') } },
  ],
  ...Object.keys(event).map(
    (key) => [`event, throwing ${key}`, withThrowingGetter(event, key)] as [string, unknown],
  ),
  ['event, params is an exploding Proxy', { ...event, params: explodingProxy() }],
  ['event, verifyContext is an exploding Proxy', { ...event, verifyContext: explodingProxy() }],
  [
    'event, request.params is an exploding Proxy',
    { ...event, params: { ...event.params, request: { ...event.params.request, params: explodingProxy() } } },
  ],
]

describe('handle() on input that throws when read', () => {
  it.each(hostileInputs)(
    '%s: answered, never a rejection; signed only if answered with success',
    async (_name, input) => {
      const { wallet, signer } = harness()
      const response = await wallet.handle(input)
      expect(response.jsonrpc).toBe('2.0')
      if ('error' in response) {
        expect([-32600, -32602, -32603]).toContain(response.error.code)
        expect(signer.calls).toEqual([])
      } else {
        // Only a field the router never reads (the event's topic) may throw without consequence.
        expect(_name).toBe('event, throwing topic')
      }
    },
  )

  it('a throwing read planted at a random place of either shape: always answered, never signed on an error', async () => {
    const { wallet, signer } = harness()
    const places: Array<[object, string[]]> = [
      [plain, []],
      [plain, ['request']],
      [plain, ['request', 'params']],
      [event, []],
      [event, ['params']],
      [event, ['params', 'request']],
      [event, ['params', 'request', 'params']],
      [event, ['verifyContext']],
    ]
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...places),
        fc.boolean(),
        fc.nat(),
        async ([shape, path], proxy, pick) => {
          const before = signer.calls.length
          const response = await wallet.handle(plant(shape, path, proxy, pick))
          expect(response.jsonrpc).toBe('2.0')
          // A throwing field the router never reads (the event's topic) changes nothing; any other is refused.
          if ('error' in response) expect(signer.calls.length).toBe(before)
        },
      ),
      { numRuns: 300 },
    )
  })
})

/** A copy of `shape` whose object at `path` is an exploding Proxy, or has one of its keys throw. */
function plant(shape: object, path: string[], proxy: boolean, pick: number): unknown {
  const explode = (value: Record<string, unknown>) => {
    const keys = Object.keys(value)
    return proxy || keys.length === 0
      ? explodingProxy()
      : withThrowingGetter(value, keys[pick % keys.length]!)
  }
  const input = structuredClone(shape) as Record<string, unknown>
  if (path.length === 0) return explode(input)
  let node = input
  for (const step of path.slice(0, -1)) node = node[step] as Record<string, unknown>
  const last = path.at(-1)!
  node[last] = explode(node[last] as Record<string, unknown>)
  return input
}
