import { createPublicClient, custom, type Hex, http, keccak256 } from 'viem'
import { describe, expect, it } from 'vitest'
import { httpProvider, mnemonicKeys } from '../../../src/eip155/index.js'
import { errorOf, harness, minedReceipt } from '../helpers.js'
import { devAccounts, devMnemonic, pragueChainPerFile } from './pragueChain.js'

/**
 * `wallet_sendCalls` when something goes wrong after approval, and who may read a batch afterwards, on anvil
 * (prague): a provider that broadcasts but answers another hash, and a second site asking for the first
 * site's batch.
 */
const prague = pragueChainPerFile()

type Sent = { id: string; capabilities: { caip345: { transactionHashes: Hex[] } } }

const recipient = '0x00000000000000000000000000000000000b0f01'

/** `wallet_sendCalls` params: `from` pays `recipient` each value in turn, not atomically unless `fields` say so. */
const batchParams = (from: Hex, values: string[], fields: Record<string, unknown> = {}) => [
  {
    version: '2.0.0',
    chainId: prague().hexChainId,
    from,
    atomicRequired: false,
    calls: values.map((value) => ({ to: recipient, value })),
    ...fields,
  },
]

describe('wallet_sendCalls failures on anvil (prague)', () => {
  it('a provider that answers another hash for the first of three calls: error, and the two unsent nonces are given back', async () => {
    const from = devAccounts[5]
    const forward = http(prague().anvil.url)({})
    let lies = 1
    // Broadcasts every transaction, but answers the first broadcast with a hash that is not keccak256(raw).
    const lying = createPublicClient({
      transport: custom({
        async request({ method, params }) {
          const answer = await forward.request({ method, params } as never)
          if (method !== 'eth_sendRawTransaction' || lies === 0) return answer
          lies -= 1
          return keccak256('0x1234')
        },
      }),
    })
    const wallet = harness({
      keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: [5] }),
      chains: [{ chainId: prague().anvil.chainId, provider: lying }],
    })
    const start = await prague().chain.getTransactionCount({ address: from })
    const error = errorOf(await wallet.call('wallet_sendCalls', batchParams(from, ['0x1', '0x2', '0x3'])))
    expect((error.data as { reason: string }).reason).toMatch(
      /^provider returned hash 0x[0-9a-f]{64}, expected 0x/,
    )
    // The provider did broadcast the first transaction: its nonce is used, the two after it never went out.
    expect(await prague().chain.getTransactionCount({ address: from, blockTag: 'pending' })).toBe(start + 1)
    // The next send takes the very next nonce (not one past the unsent calls' nonces, which would never mine).
    const next = await wallet.result<Hex>('eth_sendTransaction', [{ from, to: recipient, value: '0x9' }])
    expect((await prague().chain.getTransaction({ hash: next })).nonce).toBe(start + 1)
    expect((await minedReceipt(prague().chain, next)).status).toBe('success')
  })

  it('a batch store that fails after the broadcast: the sent batch is still answered (no retry sends it twice), the failure goes to onError', async () => {
    const from = devAccounts[4]
    const wallet = harness({
      keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: [4] }),
      chains: [{ chainId: prague().anvil.chainId, provider: httpProvider(prague().anvil.url) }],
      calls: {
        store: {
          get: () => undefined,
          put: () => Promise.reject(new Error('disk full')),
        },
      },
    })
    const sent = await wallet.result<Sent>('wallet_sendCalls', batchParams(from, ['0x7']))
    const [hash] = sent.capabilities.caip345.transactionHashes
    expect((await minedReceipt(prague().chain, hash!)).status).toBe('success')
    expect(wallet.errors.map(String)).toEqual([
      expect.stringMatching(/batch .* was sent but could not be stored: .*disk full/),
    ])
  })

  it('an account whose delegation changes between review and signing: the reviewed atomic batch is not sent', async () => {
    const from = devAccounts[2]
    const designator = (delegate: string) => `0xef0100${delegate.slice(2).toLowerCase()}`
    const foreign = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B'
    // Ready: already delegated to the wallet's delegate, so the batch carries no authorization.
    await prague().rpc('anvil_setCode', [from, designator(prague().delegate)])
    for (const changed of [designator(foreign), '0x']) {
      const wallet = prague().wallet([2], {
        // Meanwhile, elsewhere: the same key re-delegates the account, or takes its delegation away.
        approve: async () => {
          await prague().rpc('anvil_setCode', [from, changed])
          return true
        },
      })
      const start = await prague().chain.getTransactionCount({ address: from })
      const error = errorOf(
        await wallet.call('wallet_sendCalls', batchParams(from, ['0x5'], { atomicRequired: true })),
      )
      expect(wallet.reviews).toHaveLength(1)
      expect(error.code).toBe(5760)
      expect(error.data).toMatchObject({ rule: 'eip7702.delegation_changed', severity: 'danger' })
      expect(await prague().chain.getTransactionCount({ address: from, blockTag: 'pending' })).toBe(start)
      await prague().rpc('anvil_setCode', [from, designator(prague().delegate)])
    }
  })

  it('two concurrent batches with one id: one is sent, the other answers 5720 before its review', async () => {
    const from = devAccounts[3]
    const wallet = prague().wallet([3], { delegate: false })
    const batch = (value: string) =>
      wallet.call('wallet_sendCalls', batchParams(from, [value], { id: 'checkout-7' }))
    const start = await prague().chain.getTransactionCount({ address: from })
    const answers = await Promise.all([batch('0x1'), batch('0x2')])
    const sent = answers.filter((answer) => 'result' in answer)
    expect(sent).toHaveLength(1)
    expect(errorOf(answers.find((answer) => 'error' in answer)!).code).toBe(5720)
    expect(wallet.reviews).toHaveLength(1)
    const [hash] = (sent[0]!.result as Sent).capabilities.caip345.transactionHashes
    expect((await minedReceipt(prague().chain, hash!)).status).toBe('success')
    expect(await prague().chain.getTransactionCount({ address: from })).toBe(start + 1)
  })

  it("one site cannot read or show another site's batch: 5730, as for an unknown id", async () => {
    const from = devAccounts[6]
    const shown: unknown[] = []
    const wallet = harness({
      keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: [6] }),
      chains: [{ chainId: prague().anvil.chainId, provider: httpProvider(prague().anvil.url) }],
      showCallsStatus: (batch) => {
        shown.push(batch)
      },
    }).wallet
    let nextId = 1
    const ask = (origin: string | undefined, method: string, params: unknown) =>
      wallet.handle({
        chainId: `eip155:${prague().anvil.chainId}`,
        request: { id: nextId++, jsonrpc: '2.0', method, params },
        ...(origin === undefined ? {} : { origin }),
      }) as Promise<Record<string, unknown>>
    const sent = await ask(
      'https://dapp.example',
      'wallet_sendCalls',
      batchParams(from, ['0x1'], { id: 'order-1' }),
    )
    const hashes = (sent.result as Sent).capabilities.caip345.transactionHashes
    await minedReceipt(prague().chain, hashes[0]!)
    for (const stranger of ['https://evil.example', undefined]) {
      expect(errorOf(await ask(stranger, 'wallet_getCallsStatus', ['order-1'])).code).toBe(5730)
      expect(errorOf(await ask(stranger, 'wallet_showCallsStatus', ['order-1'])).code).toBe(5730)
    }
    expect(shown).toEqual([])
    expect((await ask('https://dapp.example', 'wallet_getCallsStatus', ['order-1'])).result).toMatchObject({
      id: 'order-1',
      status: 200,
    })
    expect((await ask('https://dapp.example', 'wallet_showCallsStatus', ['order-1'])).result).toBeNull()
    expect(shown).toHaveLength(1)
    // Ids are each site's own: another site's 'order-1' is a batch of its own, neither refused (which would
    // tell it the id was used) nor mixed with the first; the first site's id stays taken for itself.
    const theirs = await ask(
      'https://evil.example',
      'wallet_sendCalls',
      batchParams(from, ['0x2'], { id: 'order-1' }),
    )
    const theirHashes = (theirs.result as Sent).capabilities.caip345.transactionHashes
    expect(theirHashes).not.toEqual(hashes)
    await minedReceipt(prague().chain, theirHashes[0]!)
    const statusOf = async (origin: string) =>
      (
        (await ask(origin, 'wallet_getCallsStatus', ['order-1'])).result as {
          receipts: { transactionHash: Hex }[]
        }
      ).receipts[0]?.transactionHash
    expect(await statusOf('https://dapp.example')).toBe(hashes[0])
    expect(await statusOf('https://evil.example')).toBe(theirHashes[0])
    const again = await ask(
      'https://dapp.example',
      'wallet_sendCalls',
      batchParams(from, ['0x3'], { id: 'order-1' }),
    )
    expect(errorOf(again).code).toBe(5720)
  })

  it('a batch status is found when the origin comes back spelled with a trailing / or another case', async () => {
    const from = devAccounts[6]
    const wallet = prague().wallet([6], { delegate: false, eip155: { showCallsStatus: () => {} } }).wallet
    let nextId = 1
    const ask = (origin: string, method: string, params: unknown) =>
      wallet.handle({
        chainId: `eip155:${prague().anvil.chainId}`,
        request: { id: nextId++, jsonrpc: '2.0', method, params },
        origin,
      }) as Promise<Record<string, unknown>>
    const sent = await ask(
      'https://shop.example',
      'wallet_sendCalls',
      batchParams(from, ['0x1'], { id: 'cart-9' }),
    )
    await minedReceipt(prague().chain, (sent.result as Sent).capabilities.caip345.transactionHashes[0]!)
    for (const spelled of ['https://shop.example/', 'https://Shop.Example', 'HTTPS://SHOP.EXAMPLE:443/']) {
      expect((await ask(spelled, 'wallet_getCallsStatus', ['cart-9'])).result).toMatchObject({
        id: 'cart-9',
        status: 200,
      })
      expect((await ask(spelled, 'wallet_showCallsStatus', ['cart-9'])).result).toBeNull()
      // The same site: its id is taken.
      expect(
        errorOf(await ask(spelled, 'wallet_sendCalls', batchParams(from, ['0x1'], { id: 'cart-9' }))).code,
      ).toBe(5720)
    }
    expect(errorOf(await ask('https://shop.example.evil', 'wallet_getCallsStatus', ['cart-9'])).code).toBe(
      5730,
    )
  })

  it('a batch whose values exceed the balance: -32602 tx.insufficient_funds naming both, before any estimate or review', async () => {
    const from = devAccounts[7]
    for (const delegate of [true, false]) {
      const wallet = prague().wallet([7], { delegate })
      const error = errorOf(
        await wallet.call('wallet_sendCalls', batchParams(from, ['0x1', `0x${(10n ** 22n).toString(16)}`])),
      )
      expect(error).toMatchObject({ code: -32602, data: { rule: 'tx.insufficient_funds' } })
      expect((error.data as { reason: string }).reason).toMatch(
        new RegExp(
          `^insufficient funds: the calls send 10000\\.000000000000000001 ETH, but ${from} holds [0-9.]+ ETH$`,
        ),
      )
      expect(wallet.reviews).toEqual([])
    }
  })
})
