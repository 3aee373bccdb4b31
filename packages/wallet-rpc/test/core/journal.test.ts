import { describe, expect, it, vi } from 'vitest'
import type { Clock } from '../../src/core/clock.js'
import { markOutcomeUnknown, ProviderError } from '../../src/core/errors.js'
import {
  defaultKeepMs,
  type JournalRecord,
  type KeyValueStorage,
  keepMarginMs,
  maxJournalRecords,
  memoryStorage,
  RequestJournal,
} from '../../src/core/journal.js'
import type { AnyMethod } from '../../src/core/namespace.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { createFakeChain, createSendingNamespace, type FakeChain } from './journalNamespace.js'

const NOW = 1_700_000_000_000

const journalAt = (storage: KeyValueStorage, clock: Clock) => new RequestJournal(storage, clock, () => {})

function walletOn(chain: FakeChain, storage: KeyValueStorage, options: { clock?: Clock } = {}) {
  const { namespace, signatures } = createSendingNamespace(chain)
  const approve = vi.fn(() => true)
  const onError = vi.fn()
  const wallet = createWalletRpc({
    namespaces: [namespace],
    approve,
    onError,
    journal: storage,
    clock: options.clock ?? (() => NOW),
  })
  return { wallet, approve, onError, signatures }
}

/** A wallet on `storage` whose `fake_send` is changed by `change` (its execute, its sends), the user saying yes. */
function walletWithSend(
  chain: FakeChain,
  storage: KeyValueStorage,
  change: (method: AnyMethod) => AnyMethod,
  options: { clock?: Clock } = {},
) {
  const { namespace } = createSendingNamespace(chain)
  const approve = vi.fn(() => true)
  const wallet = createWalletRpc({
    namespaces: [{ ...namespace, methods: { fake_send: change(namespace.methods.fake_send!) } }],
    approve,
    journal: storage,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  })
  return { wallet, approve }
}

const send = (
  key: { requestKey?: string; sessionTopic?: string },
  params: unknown = { to: 'bob', amount: '1000' },
  id: string | number = 1,
) => ({
  chainId: 'fake:1',
  request: { jsonrpc: '2.0' as const, id, method: 'fake_send', params },
  origin: 'https://app.example.com',
  ...key,
})

/** A store as a process sees it: once the process `die()`s, nothing it asks of the store happens any more. */
function mortalStorage(base: KeyValueStorage) {
  let dead = false
  const alive = <T>(call: () => Promise<T>) => (dead ? Promise.reject(new Error('dead')) : call())
  const storage: KeyValueStorage = {
    getKeys: () => alive(() => base.getKeys()),
    getEntries: () => alive(() => base.getEntries()),
    getItem: (key) => alive(() => base.getItem(key)),
    setItem: (key, value) => alive(() => base.setItem(key, value)),
    removeItem: (key) => alive(() => base.removeItem(key)),
  }
  return {
    storage,
    die() {
      dead = true
    },
  }
}

/** A store whose calls can be made to fail, counting each kind. */
function faultyStorage(base = memoryStorage()) {
  const failing = new Set<'getItem' | 'setItem'>()
  const storage: KeyValueStorage = {
    getKeys: () => base.getKeys(),
    getEntries: () => base.getEntries(),
    getItem: (key) => (failing.has('getItem') ? Promise.reject(new Error('disk')) : base.getItem(key)),
    setItem: (key, value) =>
      failing.has('setItem') ? Promise.reject(new Error('disk full')) : base.setItem(key, value),
    removeItem: (key) => base.removeItem(key),
  }
  return { storage, failing }
}

describe('the request journal: one approval, one effect', () => {
  it('answers a keyed request given twice in sequence once: the second gets the stored answer, unasked', async () => {
    const chain = createFakeChain()
    const { wallet, approve } = walletOn(chain, memoryStorage())
    const first = await wallet.handle(send({ requestKey: 'pay-1' }))
    const second = await wallet.handle(send({ requestKey: 'pay-1' }))
    expect(first).toEqual({ jsonrpc: '2.0', id: 1, result: { id: 'tx(bob:1000:nonce0)' } })
    expect(second).toEqual(first)
    expect(approve).toHaveBeenCalledTimes(1)
    expect(chain.effects()).toBe(1)
    expect(chain.broadcasts()).toBe(1)
  })

  it('answers the same request given twice concurrently once: the duplicate shares the first run', async () => {
    const chain = createFakeChain()
    const { wallet, approve } = walletOn(chain, memoryStorage())
    const [first, second] = await Promise.all([
      wallet.handle(send({ sessionTopic: 'abc' })),
      wallet.handle(send({ sessionTopic: 'abc' })),
    ])
    expect(second).toEqual(first)
    expect('result' in first!).toBe(true)
    expect(approve).toHaveBeenCalledTimes(1)
    expect(chain.effects()).toBe(1)
  })

  it('keys the plain shape by topic + id as WalletKit events are keyed: either shape replays the other', async () => {
    const chain = createFakeChain()
    const { wallet, approve } = walletOn(chain, memoryStorage())
    const plain = await wallet.handle(send({ sessionTopic: 'abc' }, undefined, 77))
    const event = await wallet.handle({
      id: 77,
      topic: 'abc',
      params: { chainId: 'fake:1', request: { method: 'fake_send', params: { to: 'bob', amount: '1000' } } },
    })
    expect(event).toEqual(plain)
    expect(approve).toHaveBeenCalledTimes(1)
    // The same id on another session is another request.
    await wallet.handle(send({ sessionTopic: 'other' }, undefined, 77))
    expect(chain.effects()).toBe(2)
  })

  it('runs a request without a key as new every time (a reloaded page restarts its ids at 1)', async () => {
    const chain = createFakeChain()
    const { wallet, approve } = walletOn(chain, memoryStorage())
    await wallet.handle(send({}))
    await wallet.handle(send({}))
    expect(approve).toHaveBeenCalledTimes(2)
    expect(chain.effects()).toBe(2)
  })

  it('refuses the same key with other params, never answering with the first result', async () => {
    const chain = createFakeChain()
    const { wallet, approve } = walletOn(chain, memoryStorage())
    await wallet.handle(send({ requestKey: 'k' }))
    const other = await wallet.handle(send({ requestKey: 'k' }, { to: 'mallory', amount: '1000' }))
    expect(other).toMatchObject({ error: { code: -32600, data: { rule: 'journal.key_reused' } } })
    // Concurrent too.
    const [, concurrent] = await Promise.all([
      wallet.handle(send({ requestKey: 'j' })),
      wallet.handle(send({ requestKey: 'j' }, { to: 'bob', amount: '2000' })),
    ])
    expect(concurrent).toMatchObject({ error: { code: -32600 } })
    expect(approve).toHaveBeenCalledTimes(2)
    expect(chain.effects()).toBe(2)
  })

  it('hashes params by content, not key order: a redelivery that serialized keys differently replays', async () => {
    const chain = createFakeChain()
    const { wallet } = walletOn(chain, memoryStorage())
    const first = await wallet.handle(send({ requestKey: 'k' }, { to: 'bob', amount: '1000' }))
    const again = await wallet.handle(send({ requestKey: 'k' }, { amount: '1000', to: 'bob' }))
    expect(again).toEqual(first)
    expect(chain.effects()).toBe(1)
  })

  it('after a restart, sends the recorded bytes again when the answer was lost after the broadcast: no prompt, no new signature', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    const process = mortalStorage(storage)
    const before = walletOn(chain, process.storage)
    // The wallet dies right after the chain accepted (its answer never went out, nothing more was written).
    chain.onAccept(() => {
      process.die()
      throw new Error('killed')
    })
    await before.wallet.handle(send({ sessionTopic: 't' }))
    chain.onAccept(undefined)
    expect(chain.effects()).toBe(1)
    expect((await journalAt(storage, () => NOW).read('wc:t:1'))?.state).toBe('signed')

    const after = walletOn(chain, storage)
    const answer = await after.wallet.handle(send({ sessionTopic: 't' }))
    expect(answer).toEqual({ jsonrpc: '2.0', id: 1, result: { id: chain.ids()[0] } })
    expect(after.approve).not.toHaveBeenCalled()
    expect(after.signatures).toEqual([])
    expect(chain.effects()).toBe(1)
    // And from then on the stored answer, without touching the chain.
    const broadcasts = chain.broadcasts()
    expect(await after.wallet.handle(send({ sessionTopic: 't' }))).toEqual(answer)
    expect(chain.broadcasts()).toBe(broadcasts)
  })

  it('asks again when a request was approved but nothing was signed (nothing went out)', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    const { wallet, approve } = walletOn(chain, storage)
    const journal = journalAt(storage, () => NOW)
    const record: JournalRecord = {
      v: 1,
      key: 'k',
      method: 'fake_send',
      chainId: 'fake:1',
      paramsHash: 'whatever: an approved record binds nothing',
      state: 'approved',
      keepUntil: NOW + 1000,
    }
    await journal.write(record)
    const answer = await wallet.handle(send({ requestKey: 'k' }))
    expect('result' in answer).toBe(true)
    expect(approve).toHaveBeenCalledTimes(1)
    expect(chain.effects()).toBe(1)
  })

  it('stores signing-only answers too: a repeat gets the same signature, not a new one', async () => {
    const chain = createFakeChain()
    const { wallet, approve, signatures } = walletOn(chain, memoryStorage())
    const input = {
      chainId: 'fake:1',
      sessionTopic: 'abc',
      request: { jsonrpc: '2.0' as const, id: 5, method: 'fake_signOnly', params: { message: 'hi' } },
    }
    const first = await wallet.handle(input)
    expect(await wallet.handle(input)).toEqual(first)
    expect(signatures).toHaveLength(1)
    expect(approve).toHaveBeenCalledTimes(1)
  })

  it('never records a read, and answers reads when the store is down', async () => {
    const chain = createFakeChain()
    const { storage, failing } = faultyStorage()
    const { wallet } = walletOn(chain, storage)
    failing.add('getItem')
    failing.add('setItem')
    const input = {
      chainId: 'fake:1',
      sessionTopic: 'abc',
      request: { jsonrpc: '2.0' as const, id: 1, method: 'fake_read', params: {} },
    }
    expect(await wallet.handle(input)).toEqual({ jsonrpc: '2.0', id: 1, result: { block: 0 } })
    failing.clear()
    expect(await storage.getKeys()).toEqual([])
  })

  it('refuses to sign, before asking, when the journal cannot be read', async () => {
    const chain = createFakeChain()
    const { storage, failing } = faultyStorage()
    const { wallet, approve, signatures } = walletOn(chain, storage)
    failing.add('getItem')
    const answer = await wallet.handle(send({ sessionTopic: 'abc' }))
    expect(answer).toMatchObject({ error: { code: -32603, message: 'Request journal unavailable.' } })
    expect(approve).not.toHaveBeenCalled()
    expect(signatures).toEqual([])
  })

  it('refuses before signing when the approval cannot be recorded, and before broadcasting when the signed bytes cannot', async () => {
    const chain = createFakeChain()
    const base = memoryStorage()
    let writes = 0
    let failAt = 1
    const storage: KeyValueStorage = {
      ...base,
      getItem: (key) => base.getItem(key),
      setItem: (key, value) =>
        ++writes === failAt ? Promise.reject(new Error('disk')) : base.setItem(key, value),
    }
    const { wallet, signatures } = walletOn(chain, storage)
    // First write is the approval: nothing signed.
    expect(await wallet.handle(send({ sessionTopic: 'a' }))).toMatchObject({ error: { code: -32603 } })
    expect(signatures).toEqual([])
    // Second write of the next request is the signed record: signed, never broadcast.
    writes = 0
    failAt = 2
    expect(await wallet.handle(send({ sessionTopic: 'b' }))).toMatchObject({ error: { code: -32603 } })
    expect(signatures).toHaveLength(1)
    expect(chain.broadcasts()).toBe(0)
  })

  it('replays an answered or sent request even after it expired, and answers 8000 to one never started', async () => {
    let now = NOW
    const chain = createFakeChain()
    const storage = memoryStorage()
    const { wallet } = walletOn(chain, storage, { clock: () => now })
    const expiring = (topic: string) => ({
      ...send({ sessionTopic: topic }),
      expiryTimestamp: NOW / 1000 + 60,
    })
    const first = await wallet.handle(expiring('a'))
    now += 120_000
    expect(await wallet.handle(expiring('a'))).toEqual(first)
    expect(await wallet.handle(expiring('b'))).toMatchObject({ error: { code: 8000 } })
    // The adapter's own clock can say so too (handle's `expired`): a replay still answers.
    now = NOW
    expect(await wallet.handle(expiring('a'), { expired: true })).toEqual(first)
    expect(await wallet.handle(expiring('c'), { expired: true })).toMatchObject({ error: { code: 8000 } })
    expect(chain.effects()).toBe(1)
  })

  it('does not execute an approval that comes after the request expired', async () => {
    let now = NOW
    const chain = createFakeChain()
    const { namespace } = createSendingNamespace(chain)
    const wallet = createWalletRpc({
      namespaces: [namespace],
      clock: () => now,
      approve: () => {
        now += 120_000 // the user took two minutes
        return true
      },
    })
    const answer = await wallet.handle({ ...send({ sessionTopic: 'a' }), expiryTimestamp: NOW / 1000 + 60 })
    expect(answer).toMatchObject({ error: { code: 8000 } })
    expect(chain.broadcasts()).toBe(0)
  })

  it('never records nor sends what a slow signer (a hardware wallet, MPC) signed after the request expired', async () => {
    let now = NOW
    for (const key of [{ sessionTopic: 'slow' }, {}]) {
      const chain = createFakeChain()
      const storage = memoryStorage()
      const { wallet, approve } = walletWithSend(
        chain,
        storage,
        (method) => ({
          ...method,
          // The user confirms on the device for two minutes, after the wallet's approval.
          execute: (context, plan, journal) => {
            now += 120_000
            return method.execute(context, plan, journal)
          },
        }),
        { clock: () => now },
      )
      const expiring = { ...send(key), expiryTimestamp: now / 1000 + 60 }
      expect(await wallet.handle(expiring)).toMatchObject({ error: { code: 8000 } })
      const states = (await storage.getEntries<JournalRecord>()).map(([, record]) => record.state)
      expect(states).toEqual('sessionTopic' in key ? ['approved'] : [])
      // A repeat (a redelivery, a restart) sends nothing either, and asks nobody.
      expect(await wallet.handle(expiring)).toMatchObject({ error: { code: 8000 } })
      expect(chain.broadcasts()).toBe(0)
      expect(approve).toHaveBeenCalledTimes(1)
    }
  })

  it('takes the store per call (WalletKit storage) over the wallet default', async () => {
    const chain = createFakeChain()
    const walletDefault = memoryStorage()
    const walletKitStorage = memoryStorage()
    const { wallet } = walletOn(chain, walletDefault)
    await wallet.handle(send({ sessionTopic: 'a' }), { journal: walletKitStorage })
    expect(await walletDefault.getKeys()).toEqual([])
    expect(await walletKitStorage.getKeys()).toHaveLength(4)
  })

  it('writes each step under a key of its own, so no write ever replaces the record of signed bytes', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    const setItem = storage.setItem
    const written: string[] = []
    storage.setItem = (key, value) => {
      written.push(key)
      return setItem(key, value)
    }
    const { wallet } = walletOn(chain, storage)
    await wallet.handle(send({ sessionTopic: 'a' }))
    expect(written.map((key) => key.split('-').at(-1))).toEqual([
      'approved',
      'signed',
      'broadcast',
      'answered',
    ])
    expect(new Set(written.map((key) => key.split('-')[0])).size).toBe(1)
    expect(written.every((key) => /^wallet-rpc:journal:[0-9a-f]{40}-[a-z]+$/.test(key))).toBe(true)
  })

  it('keeps records no secret: only the request, the signed bytes and the answer', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    const { wallet } = walletOn(chain, storage)
    await wallet.handle(send({ sessionTopic: 'a' }))
    const records = (await storage.getEntries<JournalRecord>()).map(([, record]) => record)
    const answered = records.find((record) => record.state === 'answered')
    expect(answered).toMatchObject({
      v: 1,
      key: 'wc:a:1',
      method: 'fake_send',
      chainId: 'fake:1',
      fixed: { to: 'bob' },
      signed: { raw: 'bob:1000:nonce0' },
      ids: ['tx(bob:1000:nonce0)'],
      broadcast: { id: 'tx(bob:1000:nonce0)' },
      result: { id: 'tx(bob:1000:nonce0)' },
    })
    expect(answered!.keepUntil).toBe(NOW + defaultKeepMs + keepMarginMs)
    expect(Object.keys(answered!).sort()).toEqual([
      'broadcast',
      'chainId',
      'fixed',
      'ids',
      'keepUntil',
      'key',
      'method',
      'paramsHash',
      'result',
      'signed',
      'state',
      'v',
    ])
  })

  it('answers an error naming the signed transaction when it cannot be sent again (the chain unreachable after a restart)', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    const process = mortalStorage(storage)
    chain.onAccept(() => {
      process.die()
      throw new Error('killed')
    })
    await walletOn(chain, process.storage).wallet.handle(send({ sessionTopic: 't' }))
    chain.onAccept(undefined)
    const refused = () => Promise.reject(new ProviderError('connect ECONNREFUSED 127.0.0.1:8545'))
    const unreachable = walletWithSend(chain, storage, (method) => ({
      ...method,
      sends: { resend: refused, known: refused },
    }))
    const answer = await unreachable.wallet.handle(send({ sessionTopic: 't' }))
    expect(answer).toMatchObject({
      error: {
        code: -32603,
        data: { reason: 'connect ECONNREFUSED 127.0.0.1:8545', signed: ['tx(bob:1000:nonce0)'] },
      },
    })
    expect(chain.effects()).toBe(1)
  })
})

describe('the request journal: the narrow windows', () => {
  /** A wallet that dies right after the chain accepted its broadcast: the journal holds the signed record. */
  async function diedAfterBroadcast(chain: FakeChain, storage: KeyValueStorage, key = 't') {
    const process = mortalStorage(storage)
    chain.onAccept(() => {
      process.die()
      throw new Error('killed')
    })
    await walletOn(chain, process.storage).wallet.handle(send({ sessionTopic: key }))
    chain.onAccept(undefined)
  }

  it('passes over a torn answer (a crash while the store truncated and wrote it) to the signed record under it', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    await diedAfterBroadcast(chain, storage)
    const [signedKey] = (await storage.getKeys()).filter((key) => key.endsWith('-signed'))
    await storage.setItem(signedKey!.replace('-signed', '-answered'), '')
    const { wallet, approve } = walletOn(chain, storage)
    expect(await wallet.handle(send({ sessionTopic: 't' }))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { id: chain.ids()[0] },
    })
    expect(approve).not.toHaveBeenCalled()
    expect(chain.effects()).toBe(1)
    // A torn record of signed bytes is refused: what was signed is then unknown.
    await storage.setItem(signedKey!, '')
    await storage.removeItem(signedKey!.replace('-signed', '-answered'))
    const refused = await walletOn(chain, storage).wallet.handle(send({ sessionTopic: 't' }))
    expect(refused).toMatchObject({ error: { message: 'Request journal unavailable.' } })
    expect(chain.effects()).toBe(1)
  })

  it('never sends bytes of a request that expired before they went out: answered when the chain has them, else 8000', async () => {
    let now = NOW
    const chain = createFakeChain()
    const storage = memoryStorage()
    const process = mortalStorage(storage)
    const expiring = { ...send({ sessionTopic: 'e' }), expiryTimestamp: NOW / 1000 + 60 }
    // Dies after its signed record, before the broadcast.
    const dying = walletWithSend(
      chain,
      process.storage,
      (method) => ({
        ...method,
        execute: async (_context, _plan, journal) => {
          await journal.signed({ raw: 'bob:1000:nonce0' }, ['tx(bob:1000:nonce0)'])
          process.die()
          throw new Error('killed')
        },
      }),
      { clock: () => now },
    )
    await dying.wallet.handle(expiring)
    now += 120_000
    const restarted = walletOn(chain, storage, { clock: () => now })
    expect(await restarted.wallet.handle(expiring)).toMatchObject({ error: { code: 8000 } })
    expect(chain.broadcasts()).toBe(0)
    // Had they reached the chain anyway (a crash between the broadcast and its record), the answer is theirs.
    chain.broadcast('bob:1000:nonce0')
    expect(await restarted.wallet.handle(expiring)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { id: 'tx(bob:1000:nonce0)' },
    })
    expect(chain.effects()).toBe(1)
  })

  it('keeps a send that failed after signing as failed when the chain does not have it, and never sends those bytes on a repeat', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    const { wallet } = walletWithSend(chain, storage, (method) => ({
      ...method,
      // The broadcast fails (refused, or lost on the way) after the bytes were signed and recorded.
      execute: async (_context, _plan, journal) => {
        await journal.signed({ raw: 'bob:1000:nonce0' }, ['tx(bob:1000:nonce0)'])
        throw new ProviderError('broadcast rejected: 400 bad-txns-inputs-missingorspent')
      },
    }))
    const first = await wallet.handle(send({ sessionTopic: 'f' }))
    expect(first).toMatchObject({
      error: { code: -32603, data: { reason: expect.stringContaining('bad-txns') } },
    })
    const restarted = walletOn(chain, storage)
    expect(await restarted.wallet.handle(send({ sessionTopic: 'f' }))).toEqual(first)
    expect(chain.broadcasts()).toBe(0)
    expect(restarted.approve).not.toHaveBeenCalled()
  })

  it('keeps the signed bytes of a broadcast whose outcome is unknown that a lagging node does not show yet, and sends them on a repeat', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    let lagging = true
    const { wallet } = walletWithSend(chain, storage, (method) => ({
      ...method,
      // A node behind a load balancer: the lookup after the lost broadcast reaches one that has not seen it.
      sends: {
        ...method.sends!,
        known: async (context, signed) => (lagging ? undefined : method.sends!.known(context, signed)),
      },
    }))
    chain.onAccept(() => {
      throw markOutcomeUnknown(
        new ProviderError('broadcast outcome unknown (it may have been sent): timeout'),
      )
    })
    const first = await wallet.handle(send({ sessionTopic: 'u' }))
    chain.onAccept(undefined)
    lagging = false
    expect(first).toMatchObject({
      error: { code: -32603, data: { reason: expect.stringContaining('unknown') } },
    })
    const restarted = walletOn(chain, storage)
    expect(await restarted.wallet.handle(send({ sessionTopic: 'u' }))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { id: chain.ids()[0] },
    })
    expect(restarted.approve).not.toHaveBeenCalled()
    expect(restarted.signatures).toEqual([])
    expect(chain.effects()).toBe(1)
  })

  it('answers as sent a send that failed after signing when the chain has its bytes after all (a broadcast that timed out)', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    const { wallet, onError } = walletOn(chain, storage)
    chain.onAccept(() => {
      throw new ProviderError('broadcast failed: timeout')
    })
    const answer = await wallet.handle(send({ sessionTopic: 'g' }))
    chain.onAccept(undefined)
    expect(answer).toEqual({ jsonrpc: '2.0', id: 1, result: { id: chain.ids()[0] } })
    expect(onError).toHaveBeenCalled()
    expect(chain.effects()).toBe(1)
  })

  it('refuses signed bytes no method can send again, instead of asking and signing anew', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    await diedAfterBroadcast(chain, storage)
    const { wallet, approve } = walletWithSend(
      chain,
      storage,
      ({ sends: _lost, ...withoutSends }) => withoutSends,
    )
    const answer = await wallet.handle(send({ sessionTopic: 't' }))
    expect(answer).toMatchObject({ error: { message: 'Request journal unavailable.' } })
    expect(approve).not.toHaveBeenCalled()
    expect(chain.effects()).toBe(1)
  })

  it("takes a long requestKey (a gateway's ids) as its hash, and replays under it", async () => {
    const chain = createFakeChain()
    const { wallet, approve } = walletOn(chain, memoryStorage())
    const long = `pay:${'x'.repeat(500)}`
    const first = await wallet.handle(send({ requestKey: long }))
    expect(await wallet.handle(send({ requestKey: long }))).toEqual(first)
    expect('result' in first).toBe(true)
    expect(approve).toHaveBeenCalledTimes(1)
    expect(await wallet.handle(send({ requestKey: 'y'.repeat(8193) }))).toMatchObject({
      error: { code: -32600 },
    })
  })

  it("tells a repeat by the caller's identity when it gives one, not by params it rebuilds (a fresh blockhash)", async () => {
    const chain = createFakeChain()
    const { wallet, approve } = walletOn(chain, memoryStorage())
    const identity = { pays: '1000', to: 'bob' }
    const first = await wallet.handle({ ...send({ requestKey: 'order-1' }), identity })
    const rebuilt = await wallet.handle({
      ...send({ requestKey: 'order-1' }, { to: 'bob', amount: '1000', memo: 'blockhash 2' } as never),
      identity,
    })
    expect(rebuilt).toEqual(first)
    // Another payment under the key is refused.
    const other = await wallet.handle({
      ...send({ requestKey: 'order-1' }),
      identity: { pays: '2000', to: 'bob' },
    })
    expect(other).toMatchObject({ error: { code: -32600, data: { rule: 'journal.key_reused' } } })
    expect(approve).toHaveBeenCalledTimes(1)
    expect(chain.effects()).toBe(1)
  })

  it("keeps a caller's own requestKey apart from WalletConnect requests", async () => {
    const chain = createFakeChain()
    const { wallet, approve } = walletOn(chain, memoryStorage())
    await wallet.handle(send({ sessionTopic: 't' }))
    // The same text as a WalletKit request's key is another request.
    await wallet.handle(send({ requestKey: 'wc:t:1' }))
    expect(approve).toHaveBeenCalledTimes(2)
    expect(chain.effects()).toBe(2)
  })

  it("keeps a request's record as long as the caller's keepMs asks (walletPay's orders), past the usual keep", async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    let now = NOW
    const { wallet, approve } = walletOn(chain, storage, { clock: () => now })
    const yearMs = 365 * 24 * 3600_000
    const order = { ...send({ requestKey: 'order-1' }), expiryTimestamp: NOW / 1000 + 300 }
    const first = await wallet.handle(order, { keepMs: yearMs })
    await wallet.handle(send({ requestKey: 'plain' }))
    now += defaultKeepMs + keepMarginMs + 1
    await journalAt(storage, () => now).prune()
    const journal = journalAt(storage, () => now)
    expect(await journal.read('key:plain')).toBeUndefined()
    expect(await journal.read('key:order-1')).toMatchObject({ state: 'answered' })
    // The same order offered again later (a new expiry) is answered from the record: paid once.
    expect(await wallet.handle({ ...order, expiryTimestamp: now / 1000 + 300 })).toEqual(first)
    expect(approve).toHaveBeenCalledTimes(2)
    expect(chain.effects()).toBe(2)
  })

  it('stops trying a chain it cannot reach when the wallet closes', async () => {
    const chain = createFakeChain()
    const storage = memoryStorage()
    await diedAfterBroadcast(chain, storage)
    const tries = vi.fn(() => Promise.reject(new ProviderError('connect ECONNREFUSED')))
    const { wallet } = walletWithSend(chain, storage, (method) => ({
      ...method,
      sends: { resend: tries, known: tries },
    }))
    // WalletKit requests carry an expiry: the wallet keeps trying while the dapp waits.
    const answer = wallet.handle({ ...send({ sessionTopic: 't' }), expiryTimestamp: Date.now() / 1000 + 300 })
    await new Promise((resolve) => setTimeout(resolve, 50))
    await wallet.close()
    expect(await answer).toMatchObject({ error: { code: -32603, data: { signed: [chain.ids()[0]] } } })
    expect(tries.mock.calls.length).toBeLessThanOrEqual(2)
  })
})

describe('RequestJournal.prune', () => {
  const record = (
    key: string,
    keepUntil: number,
    state: JournalRecord['state'] = 'answered',
  ): JournalRecord => ({
    v: 1,
    key,
    method: 'm',
    chainId: 'c:1',
    paramsHash: 'h',
    state,
    keepUntil,
  })

  it('removes records past their keepUntil and unreadable ones, keeps the rest and other keys', async () => {
    const storage = memoryStorage()
    // Written a moment earlier, while 'old' was still live (a write prunes in the background too).
    const writer = journalAt(storage, () => NOW - 2)
    const journal = journalAt(storage, () => NOW)
    await storage.setItem('wc@2:core:keychain', { kept: true })
    await writer.write(record('old', NOW - 1))
    await writer.write(record('live', NOW + 1, 'signed'))
    await storage.setItem(`wallet-rpc:journal:${'f'.repeat(40)}:answered`, 'garbage')
    expect(await journal.prune()).toBe(2)
    expect(await journal.read('live')).toMatchObject({ state: 'signed' })
    expect(await journal.read('old')).toBeUndefined()
    expect(await storage.getItem('wc@2:core:keychain')).toEqual({ kept: true })
  })

  it('bounds the journal: past the cap the answered requests that sent nothing go, those expiring first; any that signed bytes to send stays', async () => {
    const storage = memoryStorage()
    const journal = journalAt(storage, () => NOW)
    for (let index = 0; index < maxJournalRecords + 3; index++) {
      const answered = record(`r${index}`, NOW + 1000 + index, index < 4 ? 'signed' : 'answered')
      // r0, r1: signed, not answered; r2, r3: answered sends (their records hold signed bytes).
      await journal.write(
        index === 2 || index === 3 ? { ...answered, state: 'answered', signed: 'aa' } : answered,
      )
    }
    expect(await journal.prune()).toBe(3)
    for (const kept of ['r0', 'r1', 'r2', 'r3', 'r7']) expect(await journal.read(kept)).toBeDefined()
    for (const gone of ['r4', 'r5', 'r6']) expect(await journal.read(gone)).toBeUndefined()
  })

  it('prunes in the background as records are written, at most every ten minutes', async () => {
    let now = NOW
    const storage = memoryStorage()
    const journal = journalAt(storage, () => now)
    await journal.write(record('a', NOW + 10))
    now += 20
    await journal.write(record('b', NOW + 1_000_000))
    await new Promise((resolve) => setTimeout(resolve, 10))
    // The first write's prune ran before 'a' expired; the next one is ten minutes later.
    expect(await journal.read('a')).toBeDefined()
    now += 10 * 60_000
    await journal.write(record('c', now + 1_000_000))
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(await journal.read('a')).toBeUndefined()
  })

  it('caps a record of a far-future expiry at seven days plus the margin', () => {
    const journal = journalAt(memoryStorage(), () => NOW)
    expect(journal.keepUntil(NOW + 365 * 24 * 3600_000)).toBe(NOW + defaultKeepMs + keepMarginMs)
    expect(journal.keepUntil(NOW + 60_000)).toBe(NOW + 60_000 + keepMarginMs)
    expect(journal.keepUntil(NOW - 60_000)).toBe(NOW + keepMarginMs)
  })
})
