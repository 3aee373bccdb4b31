import type { WalletKit, WalletKitTypes } from '@reown/walletkit'
import * as v from 'valibot'
import { describe, expect, expectTypeOf, it, vi } from 'vitest'
import { type Clock, fixedClock } from '../../src/core/clock.js'
import { defineMethod, type Namespace } from '../../src/core/namespace.js'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import {
  attachWalletKit,
  type SessionProposalReview,
  type WalletKitLike,
  type WalletRpcLike,
} from '../../src/walletkit/index.js'
import { bitcoinAddresses, fakeBitcoin, fakeEthereum, fakeTon } from './fakeNamespaces.js'
import { FakeWalletKit, sessionStruct } from './fakeWalletKit.js'
import {
  appKitNamespaces,
  BITCOIN_ACCOUNT,
  BITCOIN_MAINNET,
  BITCOIN_TESTNET,
  DAPP_ORIGIN,
  ETHEREUM,
  ETHEREUM_ACCOUNT,
  NOW_SECONDS,
  POLYGON,
  proposalEvent,
  requestEvent,
  specExampleNamespaces,
  TON_ACCOUNT,
  TON_MAINNET,
  verified,
} from './fixtures.js'

type SetupOptions = {
  approve?: (review: Review) => boolean | Promise<boolean>
  approveSession?: (review: SessionProposalReview) => boolean | Promise<boolean>
  walletClock?: Clock
  namespaces?: Namespace[]
  walletKit?: FakeWalletKit
  answerPendingRequests?: boolean
  wrapWallet?: (wallet: WalletRpcLike) => WalletRpcLike
}

function setup(options: SetupOptions = {}) {
  const ethereum = fakeEthereum()
  const walletErrors = vi.fn()
  const adapterErrors = vi.fn()
  const approve = vi.fn(options.approve ?? (() => true))
  const approveSession = vi.fn(options.approveSession ?? (() => true))
  const wallet = createWalletRpc({
    namespaces: options.namespaces ?? [fakeBitcoin(), ethereum.namespace, fakeTon()],
    approve,
    onError: walletErrors,
    clock: options.walletClock ?? fixedClock(NOW_SECONDS),
  })
  const walletKit = options.walletKit ?? new FakeWalletKit()
  const adapter = attachWalletKit(walletKit, options.wrapWallet?.(wallet) ?? wallet, {
    approveSession,
    onError: adapterErrors,
    clock: fixedClock(NOW_SECONDS),
    ...(options.answerPendingRequests === undefined
      ? {}
      : { answerPendingRequests: options.answerPendingRequests }),
  })
  return { wallet, walletKit, adapter, approve, approveSession, walletErrors, adapterErrors, ethereum }
}

const TOPIC = 'session-topic-1'

/** Lets every pending promise chain settle: the adapter's work here is all microtasks, no timers or I/O. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve))
const userRejected = { code: 5000, message: 'User rejected.' }
const internalError = { code: -32603, message: 'Internal error.' }

describe('types', () => {
  it('a real WalletKit instance and createWalletRpc() satisfy what the adapter takes', () => {
    expectTypeOf<InstanceType<typeof WalletKit>>().toExtend<WalletKitLike>()
    expectTypeOf<ReturnType<typeof createWalletRpc>>().toExtend<WalletRpcLike>()
  })
})

describe('session proposals', () => {
  it('approves the requested configured chains with CAIP-10 accounts, methods, events and properties', async () => {
    const { walletKit, approveSession, adapterErrors } = setup()
    const proposal = proposalEvent({ optionalNamespaces: appKitNamespaces }, verified('VALID'))

    await walletKit.deliver('session_proposal', proposal)

    const namespaces = {
      eip155: {
        chains: [ETHEREUM, POLYGON],
        methods: ['personal_sign', 'eth_sendTransaction'],
        events: ['chainChanged', 'accountsChanged'],
        accounts: [`${ETHEREUM}:${ETHEREUM_ACCOUNT}`, `${POLYGON}:${ETHEREUM_ACCOUNT}`],
      },
      bip122: {
        // bip122 offers only the account id (first external address); testnet was not asked for.
        chains: [BITCOIN_MAINNET],
        methods: ['getAccountAddresses', 'signMessage', 'signPsbt'],
        events: ['bip122_addressesChanged'],
        accounts: [`${BITCOIN_MAINNET}:${BITCOIN_ACCOUNT}`],
      },
    }
    // TON was not asked for, so its public key and state init are not shared.
    const sessionProperties = { bip122_getAccountAddresses: JSON.stringify(bitcoinAddresses) }
    expect(approveSession).toHaveBeenCalledTimes(1)
    expect(approveSession.mock.calls[0]?.[0]).toEqual({
      id: proposal.id,
      dapp: proposal.params.proposer.metadata,
      origin: DAPP_ORIGIN,
      originValidation: 'VALID',
      namespaces,
      sessionProperties,
      proposal: proposal.params,
      warnings: [],
    })
    expect(walletKit.calls).toEqual([
      { method: 'approveSession', params: { id: proposal.id, namespaces, sessionProperties } },
      {
        method: 'emitSessionEvent',
        params: {
          topic: 'session-topic-1',
          event: { name: 'bip122_addressesChanged', data: bitcoinAddresses },
          chainId: BITCOIN_MAINNET,
        },
      },
    ])
    expect(adapterErrors).not.toHaveBeenCalled()
  })

  it('shares TON session properties only when the session includes ton', async () => {
    const { walletKit } = setup()
    await walletKit.deliver(
      'session_proposal',
      proposalEvent({
        optionalNamespaces: { ton: { chains: [TON_MAINNET], methods: ['ton_signData'], events: [] } },
      }),
    )
    const [approval] = walletKit.callsTo('approveSession')
    expect(approval?.namespaces).toEqual({
      ton: {
        chains: [TON_MAINNET],
        methods: ['ton_signData'],
        events: [],
        accounts: [`${TON_MAINNET}:${TON_ACCOUNT}`],
      },
    })
    expect(approval?.sessionProperties).toEqual({
      ton_getPublicKey: 'ab'.repeat(32),
      ton_getStateInit: 'te6cckEBAQEAAgAAAEysuc0=',
    })
  })

  it('meets required namespaces given by CAIP-2 key and announces every approved bip122 chain', async () => {
    const { walletKit } = setup()
    const proposal = proposalEvent({
      requiredNamespaces: {
        [BITCOIN_TESTNET]: { methods: ['signMessage'], events: ['bip122_addressesChanged'] },
      },
      optionalNamespaces: {
        bip122: { chains: [BITCOIN_MAINNET], methods: ['signPsbt'], events: ['bip122_addressesChanged'] },
      },
    })
    await walletKit.deliver('session_proposal', proposal)
    const [approval] = walletKit.callsTo('approveSession')
    expect(approval?.namespaces.bip122?.accounts).toEqual([
      `${BITCOIN_TESTNET}:${BITCOIN_ACCOUNT}`,
      `${BITCOIN_MAINNET}:${BITCOIN_ACCOUNT}`,
    ])
    expect(walletKit.callsTo('emitSessionEvent').map((call) => call.chainId)).toEqual([
      BITCOIN_TESTNET,
      BITCOIN_MAINNET,
    ])
  })

  it('does not emit bip122_addressesChanged to a session that did not approve the event', async () => {
    const { walletKit, adapterErrors } = setup()
    await walletKit.deliver(
      'session_proposal',
      proposalEvent({
        optionalNamespaces: { bip122: { chains: [BITCOIN_MAINNET], methods: ['signMessage'], events: [] } },
      }),
    )
    expect(walletKit.callsTo('approveSession')).toHaveLength(1)
    expect(walletKit.callsTo('emitSessionEvent')).toEqual([])
    expect(adapterErrors).not.toHaveBeenCalled()
  })

  it('offers every configured chain when the dapp asks for nothing (the SDK rule)', async () => {
    const { walletKit } = setup()
    await walletKit.deliver('session_proposal', proposalEvent({}))
    const [approval] = walletKit.callsTo('approveSession')
    expect(Object.keys(approval?.namespaces ?? {}).sort()).toEqual(['bip122', 'eip155', 'ton'])
    expect(approval?.namespaces.bip122?.chains).toEqual([BITCOIN_MAINNET, BITCOIN_TESTNET])
  })

  it('rejects with 5000 when the user declines, and approves nothing', async () => {
    const { walletKit } = setup({ approveSession: () => false })
    const proposal = proposalEvent({ optionalNamespaces: appKitNamespaces })
    await walletKit.deliver('session_proposal', proposal)
    expect(walletKit.calls).toEqual([
      { method: 'rejectSession', params: { id: proposal.id, reason: userRejected } },
    ])
  })

  it('rejects with 5000 when the connect prompt fails, and reports the failure', async () => {
    const failure = new Error('modal crashed')
    const { walletKit, adapterErrors } = setup({
      approveSession: () => {
        throw failure
      },
    })
    const proposal = proposalEvent({ optionalNamespaces: appKitNamespaces })
    await walletKit.deliver('session_proposal', proposal)
    expect(walletKit.calls).toEqual([
      { method: 'rejectSession', params: { id: proposal.id, reason: userRejected } },
    ])
    expect(adapterErrors).toHaveBeenCalledWith(failure)
  })

  it('rejects the Sign spec example (required eip155:10, solana, polkadot) with 5100 without asking', async () => {
    const { walletKit, approveSession } = setup()
    const proposal = proposalEvent(specExampleNamespaces)
    await walletKit.deliver('session_proposal', proposal)
    expect(approveSession).not.toHaveBeenCalled()
    expect(walletKit.calls).toEqual([
      {
        method: 'rejectSession',
        params: { id: proposal.id, reason: { code: 5100, message: 'Unsupported chains. eip155:10' } },
      },
    ])
  })

  it.each([
    [
      'an unconfigured required namespace',
      { solana: { chains: ['solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'], methods: [], events: [] } },
      { code: 5100, message: 'Unsupported chains. solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' },
    ],
    [
      'a required method the namespace lacks',
      { eip155: { chains: [ETHEREUM], methods: ['personal_sign', 'eth_signTransaction'], events: [] } },
      { code: 5101, message: 'Unsupported methods. eth_signTransaction' },
    ],
    [
      'a required event the namespace lacks',
      { bip122: { chains: [BITCOIN_MAINNET], methods: [], events: ['accountsChanged'] } },
      { code: 5102, message: 'Unsupported events. accountsChanged' },
    ],
  ])('rejects %s with the matching code', async (_case, requiredNamespaces, reason) => {
    const { walletKit, approveSession } = setup()
    const proposal = proposalEvent({ requiredNamespaces })
    await walletKit.deliver('session_proposal', proposal)
    expect(approveSession).not.toHaveBeenCalled()
    expect(walletKit.calls).toEqual([{ method: 'rejectSession', params: { id: proposal.id, reason } }])
  })

  it('rejects with 5100 when none of the requested chains is configured', async () => {
    const { walletKit } = setup()
    const proposal = proposalEvent({
      optionalNamespaces: { cosmos: { chains: ['cosmos:cosmoshub-4'], methods: [], events: [] } },
    })
    await walletKit.deliver('session_proposal', proposal)
    expect(walletKit.calls).toEqual([
      {
        method: 'rejectSession',
        params: {
          id: proposal.id,
          reason: {
            code: 5100,
            message: 'Unsupported chains. None of the requested chains is configured in this wallet.',
          },
        },
      },
    ])
  })

  it.each([
    [
      'flagged as a scam',
      verified('VALID', { isScam: true }),
      'The Verify API flags this dapp as malicious.',
    ],
    [
      'with an invalid origin',
      verified('INVALID', { origin: 'https://evil.example' }),
      "The request's origin does not match the dapp's verified domain.",
    ],
  ])('rejects a proposal %s before asking the user', async (_case, verifyContext, why) => {
    const { walletKit, approveSession } = setup()
    const proposal = proposalEvent({ optionalNamespaces: appKitNamespaces }, verifyContext)
    await walletKit.deliver('session_proposal', proposal)
    expect(approveSession).not.toHaveBeenCalled()
    expect(walletKit.calls).toEqual([
      {
        method: 'rejectSession',
        params: { id: proposal.id, reason: { code: 5000, message: `User rejected. ${why}` } },
      },
    ])
  })

  it('passes an UNKNOWN origin to the connect prompt', async () => {
    const { walletKit, approveSession } = setup()
    await walletKit.deliver(
      'session_proposal',
      proposalEvent({ optionalNamespaces: appKitNamespaces }, verified('UNKNOWN')),
    )
    expect(approveSession.mock.calls[0]?.[0].originValidation).toBe('UNKNOWN')
    expect(walletKit.callsTo('approveSession')).toHaveLength(1)
  })

  it('leaves an expired proposal alone and reports it', async () => {
    const { walletKit, approveSession, adapterErrors } = setup()
    await walletKit.deliver(
      'session_proposal',
      proposalEvent({ optionalNamespaces: appKitNamespaces }, verified('VALID'), NOW_SECONDS - 1),
    )
    expect(approveSession).not.toHaveBeenCalled()
    expect(walletKit.calls).toEqual([])
    expect(adapterErrors).toHaveBeenCalledTimes(1)
  })

  it('reports an approveSession failure, announces nothing, and lets nothing escape', async () => {
    const walletKit = new FakeWalletKit()
    const failure = new Error("No matching key. proposal id doesn't exist: 1")
    walletKit.failing.set('approveSession', failure)
    const { adapterErrors } = setup({ walletKit })
    await expect(
      walletKit.deliver('session_proposal', proposalEvent({ optionalNamespaces: appKitNamespaces })),
    ).resolves.toBeUndefined()
    expect(walletKit.calls.map((call) => call.method)).toEqual(['approveSession'])
    expect(adapterErrors).toHaveBeenCalledWith(failure)
  })

  it('reports a rejectSession failure without letting it escape', async () => {
    const walletKit = new FakeWalletKit()
    const failure = new Error('Missing or invalid. reject() reason')
    walletKit.failing.set('rejectSession', failure)
    const { adapterErrors } = setup({ walletKit, approveSession: () => false })
    await expect(
      walletKit.deliver('session_proposal', proposalEvent({ optionalNamespaces: appKitNamespaces })),
    ).resolves.toBeUndefined()
    expect(adapterErrors).toHaveBeenCalledWith(failure)
  })

  it('answers a redelivered proposal once', async () => {
    const { walletKit, approveSession } = setup()
    const proposal = proposalEvent({ optionalNamespaces: appKitNamespaces })
    await Promise.all([
      walletKit.deliver('session_proposal', proposal),
      walletKit.deliver('session_proposal', proposal),
    ])
    expect(approveSession).toHaveBeenCalledTimes(1)
    expect(walletKit.callsTo('approveSession')).toHaveLength(1)
  })

  it('ignores prototype keys in a hostile proposal', async () => {
    const { walletKit } = setup()
    const hostile = JSON.parse(
      `{"__proto__": {"chains": ["${ETHEREUM}"], "methods": [], "events": []},
        "constructor": {"chains": ["${ETHEREUM}"], "methods": [], "events": []},
        "bip122": {"chains": ["${BITCOIN_MAINNET}"], "methods": ["signMessage"], "events": []}}`,
    )
    await walletKit.deliver('session_proposal', proposalEvent({ optionalNamespaces: hostile }))
    const [approval] = walletKit.callsTo('approveSession')
    expect(Object.keys(approval?.namespaces ?? {})).toEqual(['bip122'])
  })

  it('leaves out an account the SDK would refuse (raw TON `0:<hex>`) and reports it', async () => {
    const rawTon: Namespace = { ...fakeTon(), accounts: async () => [`0:${'83'.repeat(32)}`] }
    const { walletKit, adapterErrors } = setup({ namespaces: [fakeBitcoin(), rawTon] })
    await walletKit.deliver(
      'session_proposal',
      proposalEvent({
        optionalNamespaces: {
          ton: { chains: [TON_MAINNET], methods: ['ton_signData'], events: [] },
          bip122: appKitNamespaces.bip122!,
        },
      }),
    )
    const [approval] = walletKit.callsTo('approveSession')
    expect(Object.keys(approval?.namespaces ?? {})).toEqual(['bip122'])
    expect(approval?.sessionProperties).not.toHaveProperty('ton_getPublicKey')
    expect(adapterErrors).toHaveBeenCalledTimes(1)
    expect(String(adapterErrors.mock.calls[0]?.[0])).toContain(TON_MAINNET)
  })

  it('rejects a malformed required namespace key with 5104', async () => {
    const { walletKit, approveSession } = setup()
    const proposal = proposalEvent({
      requiredNamespaces: JSON.parse(
        '{"constructor": {"chains": ["eip155:1"], "methods": [], "events": []}}',
      ),
    })
    await walletKit.deliver('session_proposal', proposal)
    expect(approveSession).not.toHaveBeenCalled()
    expect(walletKit.calls).toEqual([
      {
        method: 'rejectSession',
        params: {
          id: proposal.id,
          reason: { code: 5104, message: 'Unsupported namespace key. constructor' },
        },
      },
    ])
  })
})

describe('connect-time walletPay', () => {
  /** fakeEthereum, its eth_sendTransaction decoding the native transfer it would send (what walletPay checks). */
  function payingEthereum(send: () => string): Namespace {
    const { namespace } = fakeEthereum()
    const eth_sendTransaction = defineMethod({
      params: v.tuple([v.object({ from: v.string(), to: v.string(), value: v.string() })]),
      plan: (context, [tx]) => ({
        review: { account: tx.from, title: 'Send transaction', items: [], warnings: [] },
        plan: tx,
        effects: [
          {
            chainId: context.chainId,
            account: tx.from,
            asset: 'native',
            amount: BigInt(tx.value),
            recipient: tx.to,
            kind: 'transfer' as const,
            form: 'native transfer',
          },
        ],
      }),
      execute: send,
    })
    return { ...namespace, methods: { ...namespace.methods, eth_sendTransaction } }
  }

  it.each([
    ['the proposal', NOW_SECONDS + 300, NOW_SECONDS + 3600],
    ['the offer', NOW_SECONDS + 3600, NOW_SECONDS + 300],
  ])(
    'pays nothing once %s expired while the user reviewed the payment; the session is still approved',
    async (_expired, proposalExpiry, offerExpiry) => {
      let now = NOW_SECONDS * 1000
      const send = vi.fn(() => `0x${'22'.repeat(32)}`)
      const { walletKit, adapterErrors } = setup({
        namespaces: [payingEthereum(send)],
        walletClock: () => now,
        approve: () => {
          now += 600_000 // ten minutes over the payment's review
          return true
        },
      })
      const event = proposalEvent({ optionalNamespaces: appKitNamespaces }, verified('VALID'), proposalExpiry)
      Object.assign(event.params, {
        requests: {
          walletPay: {
            version: '1.0.0',
            expiry: offerExpiry,
            acceptedPayments: [
              {
                asset: `${ETHEREUM}/slip44:60`,
                amount: '0x1',
                recipient: `${ETHEREUM}:0x000000000000000000000000000000000000bEEF`,
              },
            ],
          },
        },
      })
      await walletKit.deliver('session_proposal', event)
      expect(send).not.toHaveBeenCalled()
      const [approved] = walletKit.callsTo('approveSession')
      expect(approved?.namespaces.eip155?.accounts).toContain(`${ETHEREUM}:${ETHEREUM_ACCOUNT}`)
      expect(approved?.proposalRequestsResponses).toBeUndefined()
      expect(String(adapterErrors.mock.calls[0]?.[0])).toMatch(
        /connect-time payment .* not done: Request expired/,
      )
    },
  )
})

describe('session requests', () => {
  it('answers a read through wallet.handle without asking for approval', async () => {
    const { walletKit, approve } = setup()
    const event = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'getAccountAddresses',
      params: { account: BITCOIN_ACCOUNT },
    })
    await walletKit.deliver('session_request', event)
    expect(approve).not.toHaveBeenCalled()
    expect(walletKit.calls).toEqual([
      {
        method: 'respondSessionRequest',
        params: { topic: TOPIC, response: { id: event.id, jsonrpc: '2.0', result: bitcoinAddresses } },
      },
    ])
  })

  it('passes the verified origin to the review and returns the signature', async () => {
    const { walletKit, approve } = setup()
    const event = requestEvent(TOPIC, ETHEREUM, {
      method: 'personal_sign',
      params: ['0x48656c6c6f', ETHEREUM_ACCOUNT],
    })
    await walletKit.deliver('session_request', event)
    expect(approve).toHaveBeenCalledTimes(1)
    expect(approve.mock.calls[0]?.[0]).toMatchObject({
      origin: DAPP_ORIGIN,
      originValidation: 'VALID',
      chainId: ETHEREUM,
      method: 'personal_sign',
    })
    expect(walletKit.callsTo('respondSessionRequest')).toEqual([
      { topic: TOPIC, response: { id: event.id, jsonrpc: '2.0', result: `0x${'11'.repeat(65)}` } },
    ])
  })

  it('answers a declined request with the 5000 error object, not a string', async () => {
    const { walletKit } = setup({ approve: () => false })
    const event = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'signMessage',
      params: { account: BITCOIN_ACCOUNT, message: 'hello' },
    })
    await walletKit.deliver('session_request', event)
    expect(walletKit.callsTo('respondSessionRequest')).toEqual([
      { topic: TOPIC, response: { id: event.id, jsonrpc: '2.0', error: userRejected } },
    ])
  })

  it.each([
    [
      'an unknown method',
      BITCOIN_MAINNET,
      'sendTransferX',
      {},
      { code: -32601, message: 'Method not found.', data: { method: 'sendTransferX' } },
    ],
    [
      'an unconfigured chain',
      'bip122:00000000000000000000000000000000',
      'signMessage',
      {},
      {
        code: 5100,
        message: 'Unsupported chain.',
        data: { chainId: 'bip122:00000000000000000000000000000000' },
      },
    ],
    [
      'bad params',
      BITCOIN_MAINNET,
      'signMessage',
      { account: BITCOIN_ACCOUNT },
      { code: -32602, message: 'Invalid params.', data: { path: 'message', reason: expect.any(String) } },
    ],
    [
      'an account the wallet does not own',
      BITCOIN_MAINNET,
      'getAccountAddresses',
      { account: 'bc1qother' },
      {
        code: 4100,
        message: 'The requested account is not owned by this wallet.',
        data: { account: 'bc1qother' },
      },
    ],
  ])('keeps the code and data of %s', async (_case, chainId, method, params, error) => {
    const { walletKit, approve } = setup()
    const event = requestEvent(TOPIC, chainId, { method, params })
    await walletKit.deliver('session_request', event)
    expect(approve).not.toHaveBeenCalled()
    expect(walletKit.callsTo('respondSessionRequest')).toEqual([
      { topic: TOPIC, response: { id: event.id, jsonrpc: '2.0', error } },
    ])
  })

  it.each([
    ['a second ago', NOW_SECONDS - 1],
    ['exactly now', NOW_SECONDS],
  ])(
    'answers 8000 to a request that expired %s by the injected clock, before any review',
    async (_case, expiry) => {
      // The wallet's own clock is far in the past: only the adapter's clock can see the expiry.
      const { walletKit, approve } = setup({ walletClock: fixedClock(1_000_000_000) })
      const event = requestEvent(TOPIC, BITCOIN_MAINNET, {
        method: 'signMessage',
        params: { account: BITCOIN_ACCOUNT, message: 'hello' },
        expiryTimestamp: expiry,
      })
      await walletKit.deliver('session_request', event)
      expect(approve).not.toHaveBeenCalled()
      expect(walletKit.callsTo('respondSessionRequest')).toEqual([
        {
          topic: TOPIC,
          response: { id: event.id, jsonrpc: '2.0', error: { code: 8000, message: 'Request expired.' } },
        },
      ])
    },
  )

  it('answers a request whose expiry is still ahead', async () => {
    const { walletKit } = setup()
    const event = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'signMessage',
      params: { account: BITCOIN_ACCOUNT, message: 'hello' },
      expiryTimestamp: NOW_SECONDS + 300,
    })
    await walletKit.deliver('session_request', event)
    expect(walletKit.callsTo('respondSessionRequest')[0]?.response).toEqual({
      id: event.id,
      jsonrpc: '2.0',
      result: { address: BITCOIN_ACCOUNT, signature: 'f00d' },
    })
  })

  it.each([
    [
      'flagged as a scam',
      verified('VALID', { isScam: true }),
      'origin.scam',
      'The Verify API flags this dapp as malicious.',
    ],
    [
      'from an invalid origin',
      verified('INVALID', { origin: 'https://evil.example' }),
      'origin.invalid',
      "The request's origin does not match the dapp's verified domain.",
    ],
    [
      'flagged as a scam even when unverified',
      verified('UNKNOWN', { isScam: true }),
      'origin.scam',
      'The Verify API flags this dapp as malicious.',
    ],
  ])('refuses a request %s before any review, even a read', async (_case, verifyContext, rule, reason) => {
    const { walletKit, approve } = setup()
    for (const [method, params] of [
      ['signMessage', { account: BITCOIN_ACCOUNT, message: 'hello' }],
      ['getAccountAddresses', { account: BITCOIN_ACCOUNT }],
    ] as const) {
      const event = requestEvent(TOPIC, BITCOIN_MAINNET, { method, params }, verifyContext)
      await walletKit.deliver('session_request', event)
      expect(walletKit.callsTo('respondSessionRequest').at(-1)).toEqual({
        topic: TOPIC,
        response: {
          id: event.id,
          jsonrpc: '2.0',
          error: { code: -32602, message: 'Refused by wallet policy.', data: { rule, reason } },
        },
      })
    }
    expect(approve).not.toHaveBeenCalled()
  })

  it('lets an UNKNOWN origin through to the review, which carries the validation', async () => {
    const { walletKit, approve } = setup()
    const event = requestEvent(
      TOPIC,
      BITCOIN_MAINNET,
      { method: 'signMessage', params: { account: BITCOIN_ACCOUNT, message: 'hello' } },
      verified('UNKNOWN'),
    )
    await walletKit.deliver('session_request', event)
    expect(approve.mock.calls[0]?.[0].originValidation).toBe('UNKNOWN')
    expect(walletKit.callsTo('respondSessionRequest')).toHaveLength(1)
  })

  it('answers exactly once, generically, when the approval UI throws', async () => {
    const { walletKit, walletErrors } = setup({
      approve: () => {
        throw new Error('approval modal crashed')
      },
    })
    const event = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'signMessage',
      params: { account: BITCOIN_ACCOUNT, message: 'hello' },
    })
    await walletKit.deliver('session_request', event)
    expect(walletKit.callsTo('respondSessionRequest')).toEqual([
      { topic: TOPIC, response: { id: event.id, jsonrpc: '2.0', error: internalError } },
    ])
    expect(walletErrors).toHaveBeenCalledTimes(1)
  })

  it('answers exactly once when a method fails unexpectedly', async () => {
    const { walletKit } = setup()
    const event = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'signPsbt',
      params: { account: BITCOIN_ACCOUNT, psbt: 'cHNidP8=' },
    })
    await walletKit.deliver('session_request', event)
    expect(walletKit.callsTo('respondSessionRequest')).toEqual([
      { topic: TOPIC, response: { id: event.id, jsonrpc: '2.0', error: internalError } },
    ])
  })

  it.each([
    [
      'throws',
      () => {
        throw new Error('handle broke its contract')
      },
    ],
    ['returns something that is not a response', async () => ({ nonsense: true })],
  ])('answers exactly once when wallet.handle %s', async (_case, handle) => {
    const { walletKit, adapterErrors } = setup({
      wrapWallet: (wallet) => ({ ...wallet, handle: handle as unknown as WalletRpcLike['handle'] }),
    })
    const event = requestEvent(TOPIC, BITCOIN_MAINNET, { method: 'signMessage', params: {} })
    await walletKit.deliver('session_request', event)
    expect(walletKit.callsTo('respondSessionRequest')).toEqual([
      { topic: TOPIC, response: { id: event.id, jsonrpc: '2.0', error: internalError } },
    ])
    expect(adapterErrors).toHaveBeenCalledTimes(1)
  })

  it('echoes the event id even when the wallet echoes another', async () => {
    const { walletKit } = setup({
      wrapWallet: (wallet) => ({
        ...wallet,
        handle: async () => ({ jsonrpc: '2.0', id: 'something-else', result: 'ok' }),
      }),
    })
    const event = requestEvent(TOPIC, BITCOIN_MAINNET, { method: 'signMessage', params: {} })
    await walletKit.deliver('session_request', event)
    expect(walletKit.callsTo('respondSessionRequest')[0]?.response).toEqual({
      id: event.id,
      jsonrpc: '2.0',
      result: 'ok',
    })
  })

  it('reports a respondSessionRequest failure and tries the same answer again (WalletKit holds the session meanwhile)', async () => {
    const walletKit = new FakeWalletKit()
    const failure = new Error('Relay is offline')
    walletKit.failing.set('respondSessionRequest', failure)
    const { adapterErrors, approve } = setup({ walletKit })
    const event = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'signMessage',
      params: { account: BITCOIN_ACCOUNT, message: 'hello' },
    })
    const delivered = walletKit.deliver('session_request', event)
    await vi.waitFor(() => expect(adapterErrors).toHaveBeenCalledWith(failure))
    walletKit.failing.delete('respondSessionRequest')
    await expect(delivered).resolves.toBeUndefined()
    const answers = walletKit.callsTo('respondSessionRequest')
    expect(answers).toHaveLength(2)
    expect(answers[1]).toEqual(answers[0])
    expect(approve).toHaveBeenCalledTimes(1)
  })

  it('reports a malformed event instead of rejecting inside WalletKit', async () => {
    const { walletKit, adapterErrors } = setup()
    const malformed = null as unknown as WalletKitTypes.SessionRequest
    await expect(walletKit.deliver('session_request', malformed)).resolves.toBeUndefined()
    await expect(
      walletKit.deliver('session_proposal', null as unknown as WalletKitTypes.SessionProposal),
    ).resolves.toBeUndefined()
    expect(adapterErrors).toHaveBeenCalledTimes(2)
  })

  it('answers a redelivered request once', async () => {
    const { walletKit, approve } = setup()
    const event = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'signMessage',
      params: { account: BITCOIN_ACCOUNT, message: 'hello' },
    })
    await Promise.all([
      walletKit.deliver('session_request', event),
      walletKit.deliver('session_request', event),
    ])
    expect(approve).toHaveBeenCalledTimes(1)
    expect(walletKit.callsTo('respondSessionRequest')).toHaveLength(1)
  })

  it('answers the requests WalletKit held before attaching, once each', async () => {
    const walletKit = new FakeWalletKit()
    const held = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'getAccountAddresses',
      params: { account: BITCOIN_ACCOUNT },
    })
    walletKit.pending = [held]
    setup({ walletKit })
    // The SDK's queue later emits the same request; it is already answered.
    await walletKit.deliver('session_request', held)
    await flush()
    expect(walletKit.callsTo('respondSessionRequest')).toHaveLength(1)
    expect(walletKit.callsTo('respondSessionRequest')[0]?.response).toEqual({
      id: held.id,
      jsonrpc: '2.0',
      result: bitcoinAddresses,
    })
  })

  it('leaves held requests alone with answerPendingRequests: false', async () => {
    const walletKit = new FakeWalletKit()
    walletKit.pending = [
      requestEvent(TOPIC, BITCOIN_MAINNET, {
        method: 'getAccountAddresses',
        params: { account: BITCOIN_ACCOUNT },
      }),
    ]
    setup({ walletKit, answerPendingRequests: false })
    const live = requestEvent(TOPIC, ETHEREUM, { method: 'nope', params: [] })
    await walletKit.deliver('session_request', live)
    await flush()
    expect(walletKit.callsTo('respondSessionRequest').map((call) => call.response.id)).toEqual([live.id])
  })

  it('still attaches when getPendingSessionRequests fails', async () => {
    const walletKit = new FakeWalletKit()
    const failure = new Error('Not initialized.')
    walletKit.failing.set('getPendingSessionRequests', failure)
    const { adapterErrors } = setup({ walletKit })
    expect(adapterErrors).toHaveBeenCalledWith(failure)
    expect(walletKit.listenerCount('session_request')).toBe(1)
  })
})

describe('wallet events', () => {
  const ethereumSession = sessionStruct('topic-eth', {
    eip155: {
      chains: [ETHEREUM],
      methods: ['personal_sign'],
      events: ['accountsChanged'],
      accounts: [`${ETHEREUM}:${ETHEREUM_ACCOUNT}`],
    },
  })
  const bitcoinSession = sessionStruct('topic-btc', {
    bip122: {
      chains: [BITCOIN_MAINNET],
      methods: ['signMessage'],
      events: ['bip122_addressesChanged'],
      accounts: [`${BITCOIN_MAINNET}:${BITCOIN_ACCOUNT}`],
    },
  })
  const quietSession = sessionStruct('topic-quiet', {
    eip155: {
      chains: [ETHEREUM],
      methods: ['personal_sign'],
      events: [],
      accounts: [`${ETHEREUM}:${ETHEREUM_ACCOUNT}`],
    },
  })

  function withSessions() {
    const walletKit = new FakeWalletKit()
    walletKit.sessions = {
      [ethereumSession.topic]: ethereumSession,
      [bitcoinSession.topic]: bitcoinSession,
      [quietSession.topic]: quietSession,
    }
    return setup({ walletKit })
  }

  it('emits only to sessions that approved the event on that chain', async () => {
    const { walletKit, ethereum, adapterErrors } = withSessions()
    ethereum.emit({ name: 'accountsChanged', chainId: ETHEREUM, data: [ETHEREUM_ACCOUNT] })
    ethereum.emit({ name: 'accountsChanged', chainId: POLYGON, data: [ETHEREUM_ACCOUNT] })
    ethereum.emit({ name: 'chainChanged', chainId: ETHEREUM, data: 1 })
    await flush()
    expect(walletKit.calls).toEqual([
      {
        method: 'emitSessionEvent',
        params: {
          topic: 'topic-eth',
          event: { name: 'accountsChanged', data: [ETHEREUM_ACCOUNT] },
          chainId: ETHEREUM,
        },
      },
    ])
    expect(adapterErrors).not.toHaveBeenCalled()
  })

  it('reports emitSessionEvent failures and still reaches the other sessions', async () => {
    const walletKit = new FakeWalletKit()
    const second = sessionStruct('topic-eth-2', ethereumSession.namespaces)
    walletKit.sessions = { [ethereumSession.topic]: ethereumSession, [second.topic]: second }
    const failure = new Error('Relay is offline')
    walletKit.failing.set('emitSessionEvent', failure)
    const { ethereum, adapterErrors } = setup({ walletKit })
    expect(() =>
      ethereum.emit({ name: 'accountsChanged', chainId: ETHEREUM, data: [ETHEREUM_ACCOUNT] }),
    ).not.toThrow()
    await flush()
    expect(adapterErrors).toHaveBeenCalledTimes(2)
    expect(walletKit.callsTo('emitSessionEvent').map((call) => call.topic)).toEqual([
      'topic-eth',
      'topic-eth-2',
    ])
  })

  it('reports a getActiveSessions failure', () => {
    const walletKit = new FakeWalletKit()
    const failure = new Error('Not initialized.')
    walletKit.failing.set('getActiveSessions', failure)
    const { ethereum, adapterErrors } = setup({ walletKit })
    ethereum.emit({ name: 'accountsChanged', chainId: ETHEREUM, data: [] })
    expect(adapterErrors).toHaveBeenCalledWith(failure)
    expect(walletKit.calls).toEqual([])
  })
})

describe('detach', () => {
  it('removes every listener the adapter added', async () => {
    const walletKit = new FakeWalletKit()
    walletKit.sessions = {
      'topic-eth': sessionStruct('topic-eth', {
        eip155: { methods: [], events: ['accountsChanged'], accounts: [`${ETHEREUM}:${ETHEREUM_ACCOUNT}`] },
      }),
    }
    const { adapter, ethereum } = setup({ walletKit })
    expect(walletKit.listenerCount()).toBe(2)
    adapter.detach()
    adapter.detach()
    expect(walletKit.listenerCount()).toBe(0)
    await walletKit.deliver(
      'session_request',
      requestEvent(TOPIC, BITCOIN_MAINNET, {
        method: 'getAccountAddresses',
        params: { account: BITCOIN_ACCOUNT },
      }),
    )
    await walletKit.deliver('session_proposal', proposalEvent({ optionalNamespaces: appKitNamespaces }))
    ethereum.emit({ name: 'accountsChanged', chainId: ETHEREUM, data: [] })
    expect(walletKit.calls).toEqual([])
  })

  it('still answers a request that was in flight', async () => {
    let release: (answer: boolean) => void = () => {}
    const { walletKit, adapter, approve } = setup({
      approve: () => new Promise<boolean>((resolve) => (release = resolve)),
    })
    const event = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'signMessage',
      params: { account: BITCOIN_ACCOUNT, message: 'hello' },
    })
    const delivered = walletKit.deliver('session_request', event)
    await flush()
    expect(approve).toHaveBeenCalledTimes(1)
    adapter.detach()
    release(true)
    await delivered
    expect(walletKit.callsTo('respondSessionRequest')).toHaveLength(1)
  })
})

describe('what the dapp receives through the SDK', () => {
  // The sign client sends an error answer through formatJsonRpcError: a non-reserved code (5000, 8000,
  // 4100, 5100) arrives with our message and data; a reserved -326xx code arrives with the standard
  // message and without data. Passing objects (never strings) is what keeps the code at all.
  it('keeps code, message and data for WalletConnect codes, and the code alone for -326xx', async () => {
    const { walletKit } = setup({ approve: () => false })
    const declined = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'signMessage',
      params: { account: BITCOIN_ACCOUNT, message: 'hello' },
    })
    const notOwned = requestEvent(TOPIC, BITCOIN_MAINNET, {
      method: 'getAccountAddresses',
      params: { account: 'bc1qother' },
    })
    const scam = requestEvent(
      TOPIC,
      BITCOIN_MAINNET,
      { method: 'getAccountAddresses', params: { account: BITCOIN_ACCOUNT } },
      verified('VALID', { isScam: true }),
    )
    for (const event of [declined, notOwned, scam]) await walletKit.deliver('session_request', event)
    expect(walletKit.dappReceived).toEqual([
      { id: declined.id, jsonrpc: '2.0', error: userRejected },
      {
        id: notOwned.id,
        jsonrpc: '2.0',
        error: {
          code: 4100,
          message: 'The requested account is not owned by this wallet.',
          data: { account: 'bc1qother' },
        },
      },
      { id: scam.id, jsonrpc: '2.0', error: { code: -32602, message: 'Invalid params' } },
    ])
  })
})
