import * as v from 'valibot'
import { describe, expect, it, vi } from 'vitest'
import { fixedClock } from '../../src/core/clock.js'
import { UserRejectedError, WalletRpcError } from '../../src/core/errors.js'
import { defineMethod, type Namespace } from '../../src/core/namespace.js'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { createFakeNamespace, FAKE_ACCOUNT, FAKE_SECRET } from './fakeNamespace.js'

function setup(
  options: { approve?: (review: Review) => boolean | Promise<boolean>; allowDangerous?: string[] } = {},
) {
  const { namespace, signer } = createFakeNamespace()
  const onError = vi.fn()
  const approve = vi.fn(options.approve ?? (() => true))
  const wallet = createWalletRpc({
    namespaces: [namespace],
    approve,
    onError,
    clock: fixedClock(1_700_000_000),
    ...(options.allowDangerous ? { policy: { allowDangerous: options.allowDangerous } } : {}),
  })
  return { wallet, signer, approve, onError }
}

const request = (method: string, params: unknown, id: string | number = 7) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
})
const sign = (id: string | number = 7) => ({
  chainId: 'fake:1',
  request: request('fake_sign', { account: FAKE_ACCOUNT, message: 'abcd' }, id),
  origin: 'https://app.example.com',
})

describe('handle: dispatch and answers', () => {
  it('answers a read without asking for approval and echoes a numeric id', async () => {
    const { wallet, approve } = setup()
    const response = await wallet.handle({ chainId: 'fake:2', request: request('fake_getAccount', {}, 42) })
    expect(response).toEqual({ jsonrpc: '2.0', id: 42, result: FAKE_ACCOUNT })
    expect(approve).not.toHaveBeenCalled()
  })

  it('signs after approval, echoes a string id and makes bigints JSON-safe', async () => {
    const { wallet, signer, approve } = setup()
    const response = await wallet.handle(sign('req-1'))
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 'req-1',
      result: { signature: 'sig(abcd)', big: '1180591620717411303424' },
    })
    expect(signer.calls).toEqual(['req-1'])
    expect(approve).toHaveBeenCalledOnce()
  })

  it('gives approve a review with the namespace, chain, method, origin and account', async () => {
    const { wallet, approve } = setup()
    await wallet.handle({ ...sign(), context: { payment: 'pay_1' } })
    expect(approve.mock.calls[0]?.[0]).toEqual({
      namespace: 'fake',
      chainId: 'fake:1',
      method: 'fake_sign',
      origin: 'https://app.example.com',
      originValidation: undefined,
      context: { payment: 'pay_1' },
      account: FAKE_ACCOUNT,
      title: 'Sign',
      items: [{ label: 'Message', value: 'abcd' }],
      warnings: [],
    })
  })

  it('accepts the WalletKit session_request event shape, taking the origin from verifyContext', async () => {
    const { wallet, approve } = setup()
    const response = await wallet.handle({
      id: 1700000000123,
      topic: 'a'.repeat(64),
      params: {
        request: {
          method: 'fake_sign',
          params: { account: FAKE_ACCOUNT, message: '00' },
          expiryTimestamp: 1_700_000_300,
        },
        chainId: 'fake:1',
      },
      verifyContext: {
        verified: { origin: 'https://dapp.example', validation: 'VALID', verifyUrl: '', isScam: false },
      },
    })
    expect(response).toEqual({
      jsonrpc: '2.0',
      id: 1700000000123,
      result: { signature: 'sig(00)', big: '1180591620717411303424' },
    })
    expect(approve.mock.calls[0]?.[0]).toMatchObject({
      origin: 'https://dapp.example',
      originValidation: 'VALID',
    })
  })

  it('answers 8000 to a WalletKit request whose expiry has passed, without asking', async () => {
    const { wallet, approve, signer } = setup()
    const response = await wallet.handle({
      id: 5,
      topic: 't',
      params: {
        request: { method: 'fake_sign', params: {}, expiryTimestamp: 1_699_999_999 },
        chainId: 'fake:1',
      },
    })
    expect(response).toEqual({ jsonrpc: '2.0', id: 5, error: { code: 8000, message: 'Request expired.' } })
    expect(approve).not.toHaveBeenCalled()
    expect(signer.calls).toEqual([])
  })

  it('does not sign when the request expired while the user was deciding', async () => {
    let now = 1_700_000_000_000
    const { namespace, signer } = createFakeNamespace()
    const wallet = createWalletRpc({
      namespaces: [namespace],
      clock: () => now,
      approve: () => {
        now += 600_000
        return true
      },
    })
    const response = await wallet.handle({
      id: 9,
      topic: 't',
      params: {
        request: {
          method: 'fake_sign',
          params: { account: FAKE_ACCOUNT, message: '' },
          expiryTimestamp: 1_700_000_300,
        },
        chainId: 'fake:1',
      },
    })
    expect(response).toMatchObject({ id: 9, error: { code: 8000 } })
    expect(signer.calls).toEqual([])
  })
})

describe('handle: refusals carry the right code', () => {
  const cases: Array<[string, unknown, number, unknown?]> = [
    ['a non-object', 'hello', -32600],
    [
      'a request without id',
      { chainId: 'fake:1', request: { jsonrpc: '2.0', method: 'fake_getAccount' } },
      -32600,
    ],
    [
      'jsonrpc 1.0',
      { chainId: 'fake:1', request: { jsonrpc: '1.0', id: 1, method: 'fake_getAccount' } },
      -32600,
    ],
    ['a malformed chain id', { chainId: 'not a chain', request: request('fake_getAccount', {}) }, -32600],
    ['an unconfigured chain', { chainId: 'fake:3', request: request('fake_getAccount', {}) }, 5100],
    [
      'an unknown namespace',
      { chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', request: request('x', {}) },
      5100,
    ],
    ['an unknown method', { chainId: 'fake:1', request: request('fake_nope', {}) }, -32601],
    [
      'a method named after a prototype member',
      { chainId: 'fake:1', request: request('toString', {}) },
      -32601,
    ],
    ['a method named __proto__', { chainId: 'fake:1', request: request('__proto__', {}) }, -32601],
    [
      'params failing the schema',
      { chainId: 'fake:1', request: request('fake_sign', { account: FAKE_ACCOUNT, message: 'xyz' }) },
      -32602,
      { path: 'message' },
    ],
    [
      'a key not owned',
      { chainId: 'fake:1', request: request('fake_sign', { account: 'someone', message: '' }) },
      4100,
    ],
    [
      'a policy refusal',
      { chainId: 'fake:1', request: request('fake_refuse', null) },
      -32602,
      { rule: 'fee_cap', reason: 'fee above cap' },
    ],
    [
      'a __proto__ key in params',
      { chainId: 'fake:1', request: request('fake_sign', JSON.parse('{"__proto__":{"x":1}}')) },
      -32602,
      { path: '__proto__' },
    ],
    [
      'a nested constructor key',
      { chainId: 'fake:1', request: request('fake_refuse', { a: [{ constructor: 1 }] }) },
      -32602,
      { path: 'a.0.constructor' },
    ],
    ['a prototype key', { chainId: 'fake:1', request: request('fake_refuse', { prototype: 1 }) }, -32602],
    [
      'oversized params',
      { chainId: 'fake:1', request: request('fake_refuse', 'x'.repeat(4 * 1024 * 1024 + 1)) },
      -32602,
    ],
  ]
  it.each(cases)('%s', async (_name, input, code, data) => {
    const { wallet, signer } = setup()
    const response = await wallet.handle(input)
    expect(response).toMatchObject({ jsonrpc: '2.0', error: { code } })
    if (data !== undefined) expect(response).toMatchObject({ error: { data } })
    expect(signer.calls).toEqual([])
  })

  it('refuses params nested deeper than the limit without overflowing the stack', async () => {
    let deep: unknown = 'leaf'
    for (let i = 0; i < 100_000; i++) deep = [deep]
    const { wallet } = setup()
    const response = await wallet.handle({ chainId: 'fake:1', request: request('fake_refuse', deep) })
    expect(response).toMatchObject({
      error: { code: -32602, data: { reason: 'params nest deeper than 64 levels' } },
    })
  })

  it('answers 5000 "User rejected." when approve says no, and signs nothing', async () => {
    const { wallet, signer } = setup({ approve: () => false })
    expect(await wallet.handle(sign())).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: 5000, message: 'User rejected.' },
    })
    expect(signer.calls).toEqual([])
  })

  it('treats a truthy answer that is not `true` as a rejection', async () => {
    const { wallet, signer } = setup({ approve: () => 'yes' as unknown as boolean })
    expect(await wallet.handle(sign())).toMatchObject({ error: { code: 5000 } })
    expect(signer.calls).toEqual([])
  })

  it('answers -32603 when the approval UI fails, and reports it', async () => {
    const failure = new Error('UI crashed')
    const { wallet, signer, onError } = setup({ approve: () => Promise.reject(failure) })
    expect(await wallet.handle(sign())).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: 'Internal error.' },
    })
    expect(onError).toHaveBeenCalledWith(failure)
    expect(signer.calls).toEqual([])
  })

  it('refuses a danger warning without asking unless the policy allows its code', async () => {
    const blind = { chainId: 'fake:1', request: request('fake_blindSign', [FAKE_ACCOUNT, 'ff']) }
    const refused = setup()
    expect(await refused.wallet.handle(blind)).toMatchObject({
      error: { code: -32602, data: { rule: 'fake.blind', reason: 'Signs an opaque hash.' } },
    })
    expect(refused.approve).not.toHaveBeenCalled()
    expect(refused.signer.calls).toEqual([])

    const allowed = setup({ allowDangerous: ['fake.blind'] })
    expect(await allowed.wallet.handle(blind)).toEqual({ jsonrpc: '2.0', id: 7, result: 'sig(ff)' })
    expect(allowed.approve).toHaveBeenCalledOnce()
  })

  it("adds the caller's warnings to the method's review: a danger is refused unless allowed, a same-code warning replaced", async () => {
    const connectDanger = { code: 'fake.origin', severity: 'danger' as const, message: 'Unverified origin.' }
    const refused = setup()
    expect(await refused.wallet.handle({ ...sign(), warnings: [connectDanger] })).toMatchObject({
      error: { code: -32602, data: { rule: 'fake.origin', reason: 'Unverified origin.' } },
    })
    expect(refused.approve).not.toHaveBeenCalled()
    expect(refused.signer.calls).toEqual([])

    const allowed = setup({ allowDangerous: ['fake.origin'] })
    expect(await allowed.wallet.handle({ ...sign(), warnings: [connectDanger] })).toMatchObject({ id: 7 })
    expect(allowed.approve.mock.calls[0]?.[0].warnings).toEqual([connectDanger])
    // The caller's caution takes the place of the method's danger of the same code: no refusal by policy.
    const blind = {
      chainId: 'fake:1',
      request: request('fake_blindSign', [FAKE_ACCOUNT, 'ff']),
      warnings: [{ code: 'fake.blind', severity: 'caution', message: 'Known hash.' }],
    }
    const replaced = setup()
    expect(await replaced.wallet.handle(blind)).toEqual({ jsonrpc: '2.0', id: 7, result: 'sig(ff)' })
    expect(replaced.approve.mock.calls[0]?.[0].warnings).toEqual([blind.warnings[0]])
  })

  it.each([
    ['not a list', 'warnings'],
    [[{ code: 'x', severity: 'fatal', message: 'm' }], 'warnings.0'],
    [[{ code: 'x', severity: 'danger' }], 'warnings.0'],
    [Array.from({ length: 65 }, () => ({ code: 'x', severity: 'info', message: 'm' })), 'warnings'],
  ])('refuses malformed caller warnings %j with -32602 at %s', async (warnings, path) => {
    const { wallet, approve } = setup()
    expect(await wallet.handle({ ...sign(), warnings })).toMatchObject({
      error: { code: -32602, data: { path } },
    })
    expect(approve).not.toHaveBeenCalled()
  })

  it('tells the method its plan will not run when rejected, refused or failed, and never after execute', async () => {
    const abandoned: string[] = []
    const executed: string[] = []
    const { namespace } = createFakeNamespace()
    const tracked = {
      ...namespace,
      methods: {
        track: defineMethod({
          params: v.object({ warning: v.picklist(['none', 'danger']) }),
          plan: (_context, params) => ({
            review: {
              account: FAKE_ACCOUNT,
              title: 'Track',
              items: [],
              warnings:
                params.warning === 'danger'
                  ? [{ code: 'x.danger', severity: 'danger' as const, message: 'no' }]
                  : [],
            },
            plan: String(_context.id),
          }),
          execute: (_context, plan) => executed.push(plan),
          abandon: (_context, plan) => {
            abandoned.push(plan)
          },
        }),
      },
    }
    const answers = [true, false]
    const wallet = createWalletRpc({
      namespaces: [tracked],
      approve: () => {
        const answer = answers.shift()
        if (answer === undefined) throw new Error('UI gone')
        return answer
      },
    })
    const call = (id: number, warning: string) =>
      wallet.handle({ chainId: 'fake:1', request: request('track', { warning }, id) })
    expect(await call(1, 'none')).toMatchObject({ result: 1 })
    expect(await call(2, 'none')).toMatchObject({ error: { code: 5000 } })
    expect(await call(3, 'danger')).toMatchObject({ error: { code: -32602 } })
    expect(await call(4, 'none')).toMatchObject({ error: { code: -32603 } })
    expect(executed).toEqual(['1'])
    expect(abandoned).toEqual(['2', '3', '4'])
  })

  it("answers a declined approval with the method's own rejection when it has one, still abandoning the plan", async () => {
    const abandoned: string[] = []
    const { namespace } = createFakeNamespace()
    const wallet = createWalletRpc({
      namespaces: [
        {
          ...namespace,
          methods: {
            upgrade: defineMethod({
              params: v.object({ upgrade: v.boolean() }),
              plan: (context, params) => ({
                review: { account: FAKE_ACCOUNT, title: 'Upgrade', items: [], warnings: [] },
                plan: { id: String(context.id), upgrade: params.upgrade },
              }),
              execute: () => 'sent',
              abandon: (_context, plan) => {
                abandoned.push(plan.id)
              },
              rejection: (_context, plan) =>
                plan.upgrade ? new WalletRpcError(5750, 'Rejected upgrade.') : new UserRejectedError(),
            }),
          },
        },
      ],
      approve: () => false,
    })
    const call = (id: number, upgrade: boolean) =>
      wallet.handle({ chainId: 'fake:1', request: request('upgrade', { upgrade }, id) })
    expect(await call(1, true)).toMatchObject({ error: { code: 5750, message: 'Rejected upgrade.' } })
    expect(await call(2, false)).toMatchObject({ error: { code: 5000, message: 'User rejected.' } })
    expect(abandoned).toEqual(['1', '2'])
  })

  it('hides an unexpected error behind a generic -32603 and hands the original to onError', async () => {
    const { wallet, onError } = setup()
    const response = await wallet.handle({ chainId: 'fake:1', request: request('fake_crash', {}) })
    expect(response).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: 'Internal error.' } })
    expect(JSON.stringify(response)).not.toContain('abandon')
    expect(onError.mock.calls[0]?.[0]).toBeInstanceOf(Error)
    expect(String(onError.mock.calls[0]?.[0])).toContain(FAKE_SECRET)
  })

  it('lets the chain’s namespace reword its error answers, and falls back when that fails', async () => {
    const { namespace } = createFakeNamespace()
    const onError = vi.fn()
    const reworded = createWalletRpc({
      namespaces: [
        { ...namespace, describeError: (error) => ({ ...error, message: `Fake: ${error.message}` }) },
      ],
      approve: () => true,
    })
    expect(await reworded.handle({ chainId: 'fake:1', request: request('fake_refuse', null) })).toMatchObject(
      {
        error: { code: -32602, message: 'Fake: Refused by wallet policy.', data: { rule: 'fee_cap' } },
      },
    )
    const broken = createWalletRpc({
      namespaces: [
        {
          ...namespace,
          describeError: () => {
            throw new Error('bug')
          },
        },
      ],
      approve: () => true,
      onError,
    })
    expect(await broken.handle({ chainId: 'fake:1', request: request('fake_refuse', null) })).toMatchObject({
      error: { code: -32602, message: 'Refused by wallet policy.' },
    })
    expect(onError).toHaveBeenCalledOnce()
  })

  it('still answers when onError itself throws', async () => {
    const { namespace } = createFakeNamespace()
    const wallet = createWalletRpc({
      namespaces: [namespace],
      approve: () => true,
      onError: () => {
        throw new Error('logger down')
      },
    })
    expect(await wallet.handle({ chainId: 'fake:1', request: request('fake_crash', {}) })).toMatchObject({
      error: { code: -32603 },
    })
  })
})

describe('session properties, accounts and events', () => {
  it('merges the namespaces’ properties, keeping only strings and reporting failures', async () => {
    const { namespace } = createFakeNamespace()
    const broken: Namespace = {
      name: 'broken',
      chains: ['broken:1'],
      methods: {},
      sessionProperties: () => Promise.reject(new Error('provider down')),
    }
    const odd: Namespace = {
      name: 'odd',
      chains: ['odd:1'],
      methods: {},
      sessionProperties: async () => ({ odd_number: 1 as unknown as string, odd_text: 'x' }),
    }
    const onError = vi.fn()
    const wallet = createWalletRpc({ namespaces: [namespace, broken, odd], approve: () => true, onError })
    expect(await wallet.sessionProperties()).toEqual({ fake_account: FAKE_ACCOUNT, odd_text: 'x' })
    expect(onError).toHaveBeenCalledOnce()
  })

  it('with chain ids, asks only namespaces with an approved chain, each for its own approved chains', async () => {
    const asked: Array<readonly string[] | undefined> = []
    const other: Namespace = {
      name: 'other',
      chains: ['other:1'],
      methods: {},
      sessionProperties: async (chainIds) => {
        asked.push(chainIds)
        return { other_key: 'v' }
      },
    }
    const { namespace } = createFakeNamespace()
    const wallet = createWalletRpc({
      namespaces: [
        { ...namespace, sessionProperties: async (chainIds) => ({ fake_chains: String(chainIds) }) },
        other,
      ],
      approve: () => true,
    })
    expect(await wallet.sessionProperties(['fake:2', 'eip155:1'])).toEqual({ fake_chains: 'fake:2' })
    expect(asked).toEqual([])
    expect(await wallet.sessionProperties()).toEqual({ fake_chains: 'fake:1,fake:2', other_key: 'v' })
    expect(asked).toEqual([['other:1']])
  })

  it('lists what each namespace supports and its accounts', async () => {
    const { wallet } = setup()
    expect(wallet.supported()).toEqual([
      {
        name: 'fake',
        chains: ['fake:1', 'fake:2'],
        methods: ['fake_getAccount', 'fake_sign', 'fake_blindSign', 'fake_refuse', 'fake_crash', 'fake_emit'],
        events: ['fake_changed'],
      },
    ])
    expect(await wallet.accounts('fake:2')).toEqual([FAKE_ACCOUNT])
    await expect(wallet.accounts('fake:9')).rejects.toMatchObject({ code: 5100 })
  })

  it('delivers namespace events to listeners until they unsubscribe, and survives a throwing listener', async () => {
    const { wallet, onError } = setup()
    const seen: unknown[] = []
    wallet.on('event', () => {
      throw new Error('listener bug')
    })
    const off = wallet.on('event', (event) => seen.push(event))
    await wallet.announceSession(['fake:1', 'fake:2'])
    await wallet.handle({ chainId: 'fake:1', request: request('fake_emit', null) })
    off()
    await wallet.handle({ chainId: 'fake:1', request: request('fake_emit', null) })
    expect(seen).toEqual([
      { name: 'fake_changed', chainId: 'fake:1', data: [FAKE_ACCOUNT] },
      { name: 'fake_changed', chainId: 'fake:2', data: [FAKE_ACCOUNT] },
      { name: 'fake_changed', chainId: 'fake:1', data: [FAKE_ACCOUNT] },
    ])
    // The throwing listener stays subscribed: it fails on all four events.
    expect(onError).toHaveBeenCalledTimes(4)
  })

  it('refuses two namespaces with the same name', () => {
    const { namespace } = createFakeNamespace()
    expect(() => createWalletRpc({ namespaces: [namespace, namespace], approve: () => true })).toThrow(
      /twice/,
    )
  })
})
