import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { createFakeNamespace, createSpySigner, FAKE_ACCOUNT } from './fakeNamespace.js'

/**
 * Random and malformed requests thrown at `handle()`: it never throws, always answers a well-formed
 * JSON-RPC 2.0 response with the request's id, and the spy signer is only ever called for a request whose
 * review was approved. 4 properties × 25,000 runs = 100,000 generated requests.
 */
const RUNS = 25_000

function harness() {
  const { namespace } = createFakeNamespace()
  let coin = 0
  const wallet = createWalletRpc({
    namespaces: [namespace],
    // Approves every other review so both paths are exercised.
    approve: () => ++coin % 2 === 0,
    onError: () => {},
    policy: { allowDangerous: ['fake.blind'] },
  })
  return { wallet }
}

const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF') })

const chainIds = fc.oneof(
  fc.constantFrom(
    'fake:1',
    'fake:2',
    'fake:3',
    'eip155:1',
    'bip122:000000000019d6689c085ae165831e93',
    'ton:-239',
  ),
  fc.string(),
)
const methods = fc.oneof(
  fc.constantFrom('fake_getAccount', 'fake_sign', 'fake_blindSign', 'fake_refuse', 'fake_crash', 'fake_emit'),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', ''),
  fc.string(),
)
const ids = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 20 }),
  fc.constant(null),
  fc.double(),
  fc.anything(),
)
const deep = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, fc.jsonValue(), fc.array(tie('node'), { maxLength: 3 })),
})).node
const junkParams = fc.oneof(
  fc.jsonValue(),
  fc.anything(),
  deep,
  fc.string({ minLength: 1000, maxLength: 5000 }),
  fc.record({
    account: fc.oneof(fc.constant(FAKE_ACCOUNT), fc.string()),
    message: fc.oneof(hex, fc.string()),
  }),
  fc.tuple(fc.oneof(fc.constant(FAKE_ACCOUNT), fc.string()), hex),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}}')),
  fc.dictionary(fc.constantFrom('constructor', 'prototype', '__proto__', 'a'), fc.jsonValue()),
)

function expectWellFormed(response: unknown, expectedId: unknown): void {
  expect(() => JSON.parse(JSON.stringify(response))).not.toThrow()
  const answer = response as Record<string, unknown>
  expect(answer.jsonrpc).toBe('2.0')
  expect(answer.id).toEqual(expectedId)
  expect('result' in answer !== 'error' in answer).toBe(true)
  if ('error' in answer) {
    const error = answer.error as Record<string, unknown>
    expect(Number.isInteger(error.code)).toBe(true)
    expect(typeof error.message).toBe('string')
    expect(JSON.stringify(error)).not.toMatch(/abandon|\bat .*\.ts:\d+/)
  }
}

const validId = (id: unknown) =>
  typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null

describe('handle() under random input', () => {
  it('answers any value at all (fc.anything) with a well-formed response', async () => {
    const { wallet } = harness()
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (input) => {
        const response = await wallet.handle(input)
        expect(response.jsonrpc).toBe('2.0')
        expect('error' in response).toBe(true)
      }),
      { numRuns: RUNS },
    )
  })

  // The two input shapes handle() accepts, built from the same junk plus one shape-specific value: the
  // plain shape's `jsonrpc` flag, or WalletKit's `verifyContext`.
  const shapes = [
    [
      'plain-shape requests',
      fc.boolean(),
      (chainId: string, method: string, id: unknown, params: unknown, v2: unknown) => ({
        chainId,
        request: { jsonrpc: v2 ? '2.0' : '1.0', id, method, params },
        origin: 'https://x.test',
      }),
    ],
    [
      'WalletKit-shaped events',
      fc.anything(),
      (chainId: string, method: string, id: unknown, params: unknown, verifyContext: unknown) => ({
        id,
        topic: 'topic',
        params: { request: { method, params }, chainId },
        verifyContext,
      }),
    ],
  ] as const

  it.each(shapes)('answers %s with junk everywhere, echoing usable ids', async (_name, extra, build) => {
    const { wallet } = harness()
    await fc.assert(
      fc.asyncProperty(
        chainIds,
        methods,
        ids,
        junkParams,
        extra,
        async (chainId, method, id, params, more) => {
          expectWellFormed(await wallet.handle(build(chainId, method, id, params, more)), validId(id))
        },
      ),
      { numRuns: RUNS },
    )
  })

  it('never calls the signer for a request whose review was not approved', async () => {
    const signer = createSpySigner()
    const { namespace } = createFakeNamespace(signer)
    const approved: Array<string | number> = []
    let pendingId: string | number = -1
    const decisions = fc.sample(fc.boolean(), { numRuns: RUNS, seed: 42 })
    let turn = 0
    const wallet = createWalletRpc({
      namespaces: [namespace],
      approve: () => {
        const yes = decisions[turn++ % decisions.length] === true
        if (yes) approved.push(pendingId)
        return yes
      },
      onError: () => {},
      policy: { allowDangerous: ['fake.blind'] },
    })
    let counter = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('fake_sign', 'fake_blindSign', 'fake_getAccount', 'fake_refuse'),
        junkParams,
        async (method, params) => {
          const id = ++counter
          pendingId = id
          const response = await wallet.handle({
            chainId: 'fake:1',
            request: { jsonrpc: '2.0', id, method, params },
          })
          expectWellFormed(response, id)
          if ('result' in response && method !== 'fake_getAccount') expect(approved).toContain(id)
        },
      ),
      { numRuns: RUNS },
    )
    // Every signing call belongs to an approved request, and each approved request signed at most once.
    expect(signer.calls.every((id) => approved.includes(id))).toBe(true)
    expect(new Set(signer.calls).size).toBe(signer.calls.length)
    expect(signer.calls.length).toBeGreaterThan(0)
  })
})
