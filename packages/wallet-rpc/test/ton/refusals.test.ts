import { Address, beginCell, Cell, loadMessage, storeStateInit } from '@ton/core'
import { describe, expect, it } from 'vitest'
import type { JsonRpcFailure, JsonRpcResponse, JsonRpcSuccess } from '../../src/core/jsonrpc.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { type TonChainProvider, type TonSigner, ton } from '../../src/ton/index.js'
import {
  bounceableDestination,
  fixtureSigner,
  memoryProvider,
  plainDestination,
  request,
  spiedSigner,
  testnetDestination,
  tonWallet,
  vectors,
} from './fixtures.js'

const now = 1_700_000_000
const ours = '0:d22ce1556a6359cddcb82ee95c95c08110591145e67b5ac70108b030dcf839de'
const someoneElse = '0:e69f10cc84877abf539f83f879291e5ca169451ba7bce91a37a5ced3ab8080d3'
const one = (extra: Record<string, unknown> = {}) => ({ address: plainDestination, amount: '1', ...extra })
// Two BoCs back to back: not one single-root BoC.
const twoRoots = Buffer.concat([
  beginCell().storeUint(1, 8).endCell().toBoc(),
  beginCell().storeUint(2, 8).endCell().toBoc(),
]).toString('base64')
// A JSON number amount is accepted only as a safe, non-negative integer; the refusal says what to send.
const numberReason =
  'a number must be a whole, non-negative number of nanotons no larger than 9007199254740991; send a decimal string'
type Case = {
  name: string
  params: unknown
  chainId?: string
  code: number
  data?: Record<string, unknown>
}

const sendMessageCases: Case[] = [
  { name: 'params a string', params: 'x', code: -32602 },
  { name: 'params an array of two', params: [{ messages: [one()] }, { messages: [one()] }], code: -32602 },
  { name: 'messages missing', params: {}, code: -32602, data: { path: 'messages' } },
  { name: 'messages empty', params: { messages: [] }, code: -32602, data: { path: 'messages' } },
  {
    name: 'raw destination',
    params: { messages: [one({ address: someoneElse })] },
    code: -32602,
    data: { path: 'messages.0.address' },
  },
  {
    name: 'bad checksum',
    params: { messages: [one({ address: 'EQDmnxDMhId6v1Ofg_h5KR5coWlFG6e86Ro3pc7Tq4CA0-Jm' })] },
    code: -32602,
    data: { path: 'messages.0.address', reason: 'address has a bad checksum or tag' },
  },
  {
    name: 'testnet-only address on mainnet',
    params: { messages: [one({ address: testnetDestination })] },
    code: -32602,
    data: { rule: 'ton.testnet_address_on_mainnet' },
  },
  {
    name: 'amount 0',
    params: { messages: [one({ amount: '0' })] },
    code: -32602,
    data: { path: 'messages.0.amount' },
  },
  { name: 'amount fractional string', params: { messages: [one({ amount: '1.5' })] }, code: -32602 },
  {
    name: 'amount fractional number',
    params: { messages: [one({ amount: 1.5 })] },
    code: -32602,
    data: { path: 'messages.0.amount', reason: numberReason },
  },
  {
    name: 'amount unsafe number',
    params: { messages: [one({ amount: 2 ** 60 })] },
    code: -32602,
    data: { path: 'messages.0.amount', reason: numberReason },
  },
  {
    name: 'amount number 2^53',
    params: { messages: [one({ amount: 2 ** 53 })] },
    code: -32602,
    data: { path: 'messages.0.amount', reason: numberReason },
  },
  {
    name: 'amount negative number',
    params: { messages: [one({ amount: -5 })] },
    code: -32602,
    data: { path: 'messages.0.amount', reason: numberReason },
  },
  {
    name: 'amount number 0',
    params: { messages: [one({ amount: 0 })] },
    code: -32602,
    data: { path: 'messages.0.amount' },
  },
  {
    name: 'amount beyond 120 bits',
    params: { messages: [one({ amount: (1n << 120n).toString() })] },
    code: -32602,
    data: { path: 'messages.0.amount' },
  },
  {
    name: 'destination on workchain 1',
    params: { messages: [one({ address: new Address(1, Buffer.alloc(32, 7)).toString() })] },
    code: -32602,
    data: { path: 'messages.0.address', reason: 'address workchain must be 0 or -1' },
  },
  { name: 'payload not base64', params: { messages: [one({ payload: '***' })] }, code: -32602 },
  {
    name: 'payload of two concatenated BoCs',
    params: { messages: [one({ payload: twoRoots })] },
    code: -32602,
    data: { path: 'messages.0.payload', reason: 'must be a BoC with exactly one root cell' },
  },
  {
    name: 'stateInit that is not a StateInit',
    params: {
      messages: [one({ stateInit: beginCell().storeUint(0xffff, 16).endCell().toBoc().toString('base64') })],
    },
    code: -32602,
    data: { path: 'messages.0.stateInit', reason: 'not a StateInit cell' },
  },
  {
    name: 'extra currency',
    params: { messages: [one({ extra_currency: { '100': '5' } })] },
    code: -32602,
    data: { rule: 'ton.extra_currency_unsupported' },
  },
  { name: 'unknown message key', params: { messages: [one({ mode: 1 })] }, code: -32602 },
  {
    name: 'valid_until in the past',
    params: { valid_until: now - 1, messages: [one()] },
    code: -32602,
    data: { rule: 'ton.valid_until_expired' },
  },
  {
    name: 'valid_until equal to now (the contract needs valid_until > now)',
    params: { valid_until: now, messages: [one()] },
    code: -32602,
    data: { rule: 'ton.valid_until_expired' },
  },
  {
    name: 'valid_until in the past, in milliseconds',
    params: { valid_until: (now - 1) * 1000, messages: [one()] },
    code: -32602,
    data: { rule: 'ton.valid_until_expired' },
  },
  {
    name: 'valid_until and validUntil disagree',
    params: { valid_until: now + 5, validUntil: now + 6, messages: [one()] },
    code: -32602,
  },
  {
    name: 'network of the other chain',
    params: { network: '-3', messages: [one()] },
    code: -32602,
    data: { rule: 'ton.network_mismatch' },
  },
  { name: 'from another wallet', params: { from: someoneElse, messages: [one()] }, code: 4100 },
  {
    name: 'from not an address',
    params: { from: 'nope', messages: [one()] },
    code: -32602,
    data: { path: 'from' },
  },
  {
    name: '256 messages on v5r1',
    params: { messages: Array.from({ length: 256 }, () => one()) },
    code: -32602,
    data: { path: 'messages' },
  },
  { name: 'chain not configured', params: { messages: [one()] }, chainId: 'ton:-3', code: 5100 },
  { name: 'chain not known', params: { messages: [one()] }, chainId: 'ton:0', code: 5100 },
]

const signDataCases: Case[] = [
  { name: 'unknown type', params: { type: 'json', json: {} }, code: -32602, data: { path: 'type' } },
  { name: 'text not a string', params: { type: 'text', text: 5 }, code: -32602, data: { path: 'text' } },
  {
    name: 'binary not base64',
    params: { type: 'binary', bytes: 'a-b_' },
    code: -32602,
    data: { path: 'bytes' },
  },
  {
    name: 'cell not a BoC',
    params: { type: 'cell', schema: 'x#1 = X;', cell: 'AAAA' },
    code: -32602,
    data: { path: 'cell' },
  },
  {
    name: 'cell without schema',
    params: { type: 'cell', schema: '', cell: 'AAAA' },
    code: -32602,
    data: { path: 'schema' },
  },
  { name: 'from another wallet', params: { type: 'text', text: 'x', from: someoneElse }, code: 4100 },
  {
    name: 'network of the other chain',
    params: { type: 'text', text: 'x', network: '-3' },
    code: -32602,
    data: { rule: 'ton.network_mismatch' },
  },
]

function wallet(
  options: { provider?: TonChainProvider; signer?: TonSigner | Promise<TonSigner>; approve?: boolean } = {},
) {
  const approvals: string[] = []
  const errors: unknown[] = []
  const rpc = createWalletRpc({
    namespaces: [
      ton({
        keys: options.signer ?? fixtureSigner(),
        chains: ['ton:-239'],
        providers: { 'ton:-239': options.provider ?? memoryProvider().provider },
      }),
    ],
    approve: (review) => {
      approvals.push(review.method)
      return options.approve ?? true
    },
    onError: (error) => errors.push(error),
    clock: () => now * 1000,
  })
  return { rpc, approvals, errors }
}

function expectFailure(response: JsonRpcResponse, code: number, data?: Record<string, unknown>) {
  expect('error' in response, JSON.stringify(response)).toBe(true)
  const { error } = response as JsonRpcFailure
  expect(error.code).toBe(code)
  if (data) expect(error.data).toMatchObject(data)
}

describe('ton_sendMessage refusals (exact codes, nothing signed or sent)', () => {
  for (const { name, params, chainId, code, data } of sendMessageCases) {
    it(name, async () => {
      const chain = memoryProvider()
      const calls: Uint8Array[] = []
      const signer = spiedSigner((message) => calls.push(message))
      const { rpc, approvals } = wallet({ provider: chain.provider, signer })
      const response = await rpc.handle({
        chainId: chainId ?? 'ton:-239',
        request: request('ton_sendMessage', params, 7),
      })
      expect(response.id).toBe(7)
      expectFailure(response, code, data)
      expect(approvals).toEqual([])
      expect(calls).toEqual([])
      expect(chain.sent).toEqual([])
    })
  }

  it('answers 5101 when the chain has no provider', async () => {
    const rpc = createWalletRpc({
      namespaces: [ton({ keys: fixtureSigner() })],
      approve: () => true,
      clock: () => now * 1000,
    })
    expectFailure(
      await rpc.handle({ chainId: 'ton:-3', request: request('ton_sendMessage', { messages: [one()] }) }),
      5101,
      {
        method: 'ton_sendMessage',
      },
    )
  })

  it('refuses a frozen wallet', async () => {
    const { rpc } = wallet({ provider: memoryProvider({ walletState: 'frozen' }).provider })
    expectFailure(
      await rpc.handle({ chainId: 'ton:-239', request: request('ton_sendMessage', { messages: [one()] }) }),
      -32602,
      {
        rule: 'ton.wallet_frozen',
      },
    )
  })

  it('reports a failing chain read as -32603 with the reason, before approval', async () => {
    const failing: TonChainProvider = {
      ...memoryProvider().provider,
      getAccount: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:1')
      },
    }
    const { rpc, approvals } = wallet({ provider: failing })
    const response = await rpc.handle({
      chainId: 'ton:-239',
      request: request('ton_sendMessage', { messages: [one()] }),
    })
    expectFailure(response, -32603, {
      reason: 'reading the wallet account: connect ECONNREFUSED 127.0.0.1:1',
    })
    expect(approvals).toEqual([])
  })

  it('refuses a seqno the chain reports out of range, before approval', async () => {
    const { rpc, approvals } = wallet({
      provider: { ...memoryProvider({ walletState: 'active' }).provider, getSeqno: async () => -1 },
    })
    const response = await rpc.handle({
      chainId: 'ton:-239',
      request: request('ton_sendMessage', { messages: [one()] }),
    })
    expectFailure(response, -32603, { reason: 'the chain reported an invalid seqno -1' })
    expect(approvals).toEqual([])
  })

  it('broadcasts once and reports a hash the chain disagrees on', async () => {
    const sent: Uint8Array[] = []
    const lying: TonChainProvider = {
      ...memoryProvider().provider,
      sendBoc: async (boc) => {
        sent.push(boc)
        return { hash: '00'.repeat(32) }
      },
    }
    const { rpc } = wallet({ provider: lying })
    const response = await rpc.handle({
      chainId: 'ton:-239',
      request: request('ton_sendMessage', { messages: [one()] }),
    })
    expectFailure(response, -32603)
    expect((response as JsonRpcFailure).error.data).toMatchObject({
      reason: expect.stringContaining('reported message hash'),
    })
    expect(sent).toHaveLength(1)
  })

  it('refuses five messages on v4r2', async () => {
    const rpc = createWalletRpc({
      namespaces: [
        ton({ keys: fixtureSigner(), wallet: 'v4r2', providers: { 'ton:-239': memoryProvider().provider } }),
      ],
      approve: () => true,
      clock: () => now * 1000,
    })
    const params = { messages: Array.from({ length: 5 }, () => one()) }
    expectFailure(
      await rpc.handle({ chainId: 'ton:-239', request: request('ton_sendMessage', params) }),
      -32602,
      {
        path: 'messages',
        reason: 'a v4r2 wallet sends at most 4 messages',
      },
    )
  })
})

describe('ton_signData refusals', () => {
  for (const { name, params, code, data } of signDataCases) {
    it(name, async () => {
      const { rpc, approvals } = wallet()
      const response = await rpc.handle({
        chainId: 'ton:-239',
        request: request('ton_signData', params),
        origin: 'https://dapp.example',
      })
      expectFailure(response, code, data)
      expect(approvals).toEqual([])
    })
  }

  it('refuses a request without an origin', async () => {
    const { rpc, approvals } = wallet()
    const response = await rpc.handle({
      chainId: 'ton:-239',
      request: request('ton_signData', { type: 'text', text: 'x' }),
    })
    expectFailure(response, -32602, { rule: 'ton.sign_data.no_origin' })
    expect(approvals).toEqual([])
  })

  for (const origin of ['null', 'dapp.example', 'file:///etc/passwd']) {
    it(`refuses the origin ${origin}, which has no host`, async () => {
      const { rpc } = wallet()
      const response = await rpc.handle({
        chainId: 'ton:-239',
        request: request('ton_signData', { type: 'text', text: 'x' }),
        origin,
      })
      expectFailure(response, -32602, { rule: 'ton.sign_data.bad_origin' })
    })
  }

  it('refuses unasked when WalletConnect Verify marks the origin INVALID', async () => {
    const { rpc, approvals } = wallet()
    const response = await rpc.handle({
      id: 9,
      topic: 't',
      params: {
        chainId: 'ton:-239',
        request: { method: 'ton_signData', params: [{ type: 'text', text: 'x' }] },
      },
      verifyContext: { verified: { origin: 'https://dapp.example', validation: 'INVALID' } },
    })
    expectFailure(response, -32602, { rule: 'ton.sign_data.origin_invalid' })
    expect(approvals).toEqual([])
  })

  it('takes the origin from a WalletKit session_request verifyContext', async () => {
    const { rpc } = wallet()
    const response = await rpc.handle({
      id: 10,
      topic: 't',
      params: {
        chainId: 'ton:-239',
        request: { method: 'ton_signData', params: [{ type: 'text', text: 'x' }] },
      },
      verifyContext: { verified: { origin: 'https://app.example.com', validation: 'VALID' } },
    })
    expect((response as JsonRpcSuccess<{ domain: string }>).result.domain).toBe('app.example.com')
  })
})

describe('no key is touched before approval', () => {
  function spiedWallet(approve: boolean) {
    const events: string[] = []
    const chain = memoryProvider()
    const signer = spiedSigner(() => events.push('sign'))
    const rpc = createWalletRpc({
      namespaces: [ton({ keys: signer, providers: { 'ton:-239': chain.provider } })],
      approve: () => {
        events.push('approve')
        return approve
      },
      clock: () => now * 1000,
    })
    return { rpc, events, chain }
  }

  const calls = [
    { method: 'ton_sendMessage', params: { messages: [one()] } },
    { method: 'ton_signData', params: { type: 'text', text: 'x' } },
  ]

  for (const { method, params } of calls) {
    it(`${method}: rejected → 5000, no signature, nothing sent`, async () => {
      const { rpc, events, chain } = spiedWallet(false)
      const response = await rpc.handle({
        chainId: 'ton:-239',
        request: request(method, params),
        origin: 'https://a.example',
      })
      expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: 5000, message: 'User rejected.' } })
      expect(events).toEqual(['approve'])
      expect(chain.sent).toEqual([])
    })

    it(`${method}: approved → signs exactly once, after approval`, async () => {
      const { rpc, events } = spiedWallet(true)
      const response = await rpc.handle({
        chainId: 'ton:-239',
        request: request(method, params),
        origin: 'https://a.example',
      })
      expect('result' in response).toBe(true)
      expect(events).toEqual(['approve', 'sign'])
    })
  }

  it('an external signer whose signature does not verify yields -32603 and nothing is sent', async () => {
    const chain = memoryProvider()
    const inner = await fixtureSigner()
    const errors: unknown[] = []
    const rpc = createWalletRpc({
      namespaces: [
        ton({
          keys: { publicKey: inner.publicKey, sign: () => new Uint8Array(64).fill(1) },
          providers: { 'ton:-239': chain.provider },
        }),
      ],
      approve: () => true,
      onError: (error) => errors.push(error),
      clock: () => now * 1000,
    })
    const response = await rpc.handle({
      chainId: 'ton:-239',
      request: request('ton_sendMessage', { messages: [one()] }),
    })
    expect(response).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Internal error.' } })
    expect(chain.sent).toEqual([])
    expect(errors).toHaveLength(1)
  })
})

describe('ton namespace configuration refusals', () => {
  it('refuses an unknown chain and a default lifetime outside 10..600 s at construction', () => {
    const keys = fixtureSigner()
    expect(() => ton({ keys, chains: ['ton:0' as 'ton:-3'] })).toThrow(TypeError)
    expect(() => ton({ keys, defaultValidFor: 601 })).toThrow(RangeError)
    expect(() => ton({ keys, defaultValidFor: 9 })).toThrow(RangeError)
  })

  it('a signer without a 32-byte public key answers -32603 and reports the cause', async () => {
    const errors: unknown[] = []
    const rpc = createWalletRpc({
      namespaces: [ton({ keys: { publicKey: new Uint8Array(31), sign: () => new Uint8Array(64) } })],
      approve: () => true,
      onError: (error) => errors.push(error),
      clock: () => now * 1000,
    })
    const response = await rpc.handle({
      chainId: 'ton:-239',
      request: request('ton_signData', { type: 'text', text: 'x' }),
      origin: 'https://a.example',
    })
    expectFailure(response, -32603)
    expect(String(errors[0])).toContain('32-byte')
  })

  it('an external signer returning something other than 64 bytes yields -32603 and nothing is sent', async () => {
    const chain = memoryProvider()
    const inner = await fixtureSigner()
    const rpc = createWalletRpc({
      namespaces: [
        ton({
          keys: { publicKey: inner.publicKey, sign: () => new Uint8Array(63) },
          providers: { 'ton:-239': chain.provider },
        }),
      ],
      approve: () => true,
      onError: () => {},
      clock: () => now * 1000,
    })
    const response = await rpc.handle({
      chainId: 'ton:-239',
      request: request('ton_sendMessage', { messages: [one()] }),
    })
    expectFailure(response, -32603)
    expect(chain.sent).toEqual([])
  })
})

describe('ton_sendMessage results', () => {
  function body(boc: string) {
    const message = loadMessage(Cell.fromBase64(boc).beginParse())
    return message.body.beginParse()
  }

  it('reproduces the research golden external messages for v4R2 and v5R1 byte for byte', async () => {
    const golden = vectors('external-messages.json')
    for (const { wallet: version, boc } of golden.cases) {
      const { rpc } = tonWallet({ wallet: version, providers: { 'ton:-239': memoryProvider().provider } })
      const response = await rpc.handle({
        chainId: 'ton:-239',
        request: request('ton_sendMessage', [golden.request]),
      })
      const result = (response as JsonRpcSuccess<string>).result
      expect(Cell.fromBase64(result).equals(Cell.fromBase64(boc))).toBe(true)
    }
  })

  it('normalises millisecond valid_until and clamps it to ten minutes', async () => {
    for (const [given, signed] of [
      [(now + 100) * 1000, now + 100],
      [now + 100_000, now + 600],
      [undefined, now + 300],
    ] as const) {
      const { rpc } = tonWallet({ providers: { 'ton:-239': memoryProvider().provider } })
      const params = { ...(given === undefined ? {} : { valid_until: given }), messages: [one()] }
      const response = await rpc.handle({ chainId: 'ton:-239', request: request('ton_sendMessage', params) })
      const slice = body((response as JsonRpcSuccess<string>).result)
      slice.skip(32 + 32) // v5r1: "sign" opcode, wallet_id
      expect(slice.loadUint(32)).toBe(signed)
    }
  })

  it('accepts a testnet-only destination on testnet, and reads the seqno of a deployed wallet', async () => {
    const { rpc } = tonWallet({
      providers: { 'ton:-3': memoryProvider({ walletState: 'active', seqno: 42 }).provider },
    })
    const response = await rpc.handle({
      chainId: 'ton:-3',
      request: request('ton_sendMessage', {
        network: '-3',
        from: ours,
        messages: [one({ address: testnetDestination })],
      }),
    })
    const boc = (response as JsonRpcSuccess<string>).result
    expect(loadMessage(Cell.fromBase64(boc).beginParse()).init).toBeNull()
    const slice = body(boc)
    slice.skip(32 + 32 + 32)
    expect(slice.loadUint(32)).toBe(42)
  })

  it('reads each destination once; a destination it cannot read is a caution, not a failure', async () => {
    const reads: string[] = []
    const base = memoryProvider({ walletState: 'active', seqno: 3 }).provider
    const provider: TonChainProvider = {
      ...base,
      getAccount: async (address) => {
        reads.push(address)
        if (address !== ours) throw new Error('HTTP 429')
        return base.getAccount(address)
      },
    }
    const { rpc, reviews } = tonWallet({ providers: { 'ton:-239': provider } })
    const params = {
      messages: [one({ address: bounceableDestination }), one({ address: plainDestination }), one()],
    }
    const response = await rpc.handle({ chainId: 'ton:-239', request: request('ton_sendMessage', params) })
    expect('result' in response).toBe(true)
    expect(reads.sort()).toEqual([ours, someoneElse].sort())
    // The memory provider has no emulator: the review says so (ton.emulation_unavailable).
    expect(reviews[0]!.warnings.map((warning) => warning.code)).toEqual([
      'ton.destination_state_unknown',
      'ton.emulation_unavailable',
    ])
  })

  it('review: deploy, bounce-to-uninitialised, opaque-payload and balance cautions, decoded comment', async () => {
    const { rpc, reviews } = tonWallet({
      providers: { 'ton:-239': memoryProvider({ balance: 1n }).provider },
    })
    const init = beginCell()
      .store(storeStateInit({ code: beginCell().storeUint(1, 8).endCell(), data: beginCell().endCell() }))
      .endCell()
    const params = {
      messages: [
        one({
          address: bounceableDestination,
          amount: '5',
          payload: beginCell().storeUint(0, 32).storeStringTail('hello').endCell().toBoc().toString('base64'),
        }),
        one({
          address: bounceableDestination,
          payload: beginCell().storeUint(0xdeadbeef, 32).endCell().toBoc().toString('base64'),
        }),
        one({ stateInit: init.toBoc().toString('base64') }),
      ],
    }
    const response = await rpc.handle({ chainId: 'ton:-239', request: request('ton_sendMessage', params) })
    expect('result' in response).toBe(true)
    const review = reviews[0]!
    expect(review.warnings.map((warning) => [warning.code, warning.severity])).toEqual([
      ['ton.bounce_to_uninit', 'caution'],
      ['ton.opaque_payload', 'caution'],
      ['ton.deploy', 'caution'],
      ['ton.state_init_mismatch', 'caution'],
      ['ton.insufficient_balance', 'caution'],
      ['ton.emulation_unavailable', 'caution'],
    ])
    expect(JSON.stringify(review.items)).toContain('"label":"Comment","value":"hello"')
    expect(review.account).toBe('UQDSLOFVamNZzdy4LulclcCBEFkRReZ7WscBCLAw3Pg53h3h')
  })
})
