import { type AnvilInstance, startAnvil } from '@wallet-rpc/devchains/anvil'
import fc from 'fast-check'
import { createPublicClient, type Hex, http, keccak256, type PublicClient, parseEther, toHex } from 'viem'
import { mnemonicToAccount, toAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type JournalRecord, type KeyValueStorage, memoryStorage } from '../../src/core/journal.js'
import type { JsonRpcResponse } from '../../src/core/jsonrpc.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import {
  accountKeys,
  type Eip155ChainProvider,
  eip155,
  httpProvider,
  mnemonicKeys,
} from '../../src/eip155/index.js'
import { type Process, processWith, storageOf } from '../core/journalNamespace.js'
import { minedReceipt } from './helpers.js'

/**
 * The request journal against a real node (anvil, automining): the wallet dies at a random step of a send
 * (a store read or write, the approval, just before or just after `eth_sendRawTransaction`), restarts on the
 * same store, and the same request arrives again. Exactly one transaction, and the answer is its hash. What
 * the node says to bytes it already has ("already known" while pending, "nonce too low" once mined) is what
 * the resend must read right.
 */
const devMnemonic = 'test test test test test test test test test test test junk'
const recipient = '0x000000000000000000000000000000000000bEEF'

let anvil: AnvilInstance
let chain: PublicClient

beforeAll(async () => {
  anvil = await startAnvil()
  chain = createPublicClient({ transport: http(anvil.url) })
})

afterAll(async () => {
  await anvil?.stop()
})

/** The node, with the broadcast as two steps: the process may die just before it or just after it returned. */
function providerOf(process: Process): Eip155ChainProvider {
  const node = httpProvider(anvil.url)
  return {
    async request(call) {
      if (call.method !== 'eth_sendRawTransaction') return node.request(call)
      process.step('before broadcast')
      const answer = await node.request(call)
      process.step('after broadcast')
      return answer
    },
  }
}

function walletOf(base: KeyValueStorage, process: Process, addressIndex: number) {
  let prompts = 0
  const wallet = createWalletRpc({
    namespaces: [
      eip155({
        keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: [addressIndex] }),
        chains: [{ chainId: anvil.chainId, provider: providerOf(process) }],
      }),
    ],
    journal: storageOf(base, process),
    approve: () => {
      process.step()
      prompts++
      return true
    },
  })
  return { wallet, prompts: () => prompts }
}

const accountAt = (index: number) => mnemonicToAccount(devMnemonic, { addressIndex: index }).address
let nextId = 1
const crashPoint = fc.oneof(
  fc.nat({ max: 7 }),
  fc.constantFrom('before broadcast' as const, 'after broadcast' as const),
)

describe('eth_sendTransaction through a crash at any step, on anvil', () => {
  it('sends exactly one transaction and answers its hash, asking once signed bytes were recorded never again', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(crashPoint, fc.boolean(), async (crashAt, concurrentRepeat) => {
        // A fresh account per run, so each run's nonces are its own.
        const index = 10 + run++
        const from = accountAt(index)
        await fundFrom0(from)
        const nonceBefore = await chain.getTransactionCount({ address: from })
        const value = parseEther('0.001')
        const recipientBefore = await chain.getBalance({ address: recipient })
        const request = {
          chainId: `eip155:${anvil.chainId}`,
          sessionTopic: `topic-${index}`,
          request: {
            jsonrpc: '2.0' as const,
            id: nextId++,
            method: 'eth_sendTransaction',
            params: [{ from, to: recipient, value: toHex(value) }],
          },
        }
        const base = memoryStorage()
        const dying = walletOf(base, processWith(crashAt), index)
        await dying.wallet.handle(request)
        // (A write also prunes in the background: its store reads are steps too, so runs differ in where they die.)
        const recorded = (await base.getEntries<JournalRecord>()).some(
          ([, record]) => record.state !== 'approved',
        )

        const restarted = walletOf(base, processWith(undefined), index)
        const answers: JsonRpcResponse[] = concurrentRepeat
          ? await Promise.all([restarted.wallet.handle(request), restarted.wallet.handle(request)])
          : [await restarted.wallet.handle(request)]
        const hash = (answers[0] as { result: Hex }).result
        for (const answer of answers)
          expect(answer).toEqual({ jsonrpc: '2.0', id: request.request.id, result: hash })
        const receipt = await minedReceipt(chain, hash)
        expect(receipt.status).toBe('success')
        expect(await chain.getTransactionCount({ address: from })).toBe(nonceBefore + 1)
        expect((await chain.getBalance({ address: recipient })) - recipientBefore).toBe(value)
        if (recorded) expect(restarted.prompts()).toBe(0)

        // The nonce manager holds what the resend sent: the account's next send takes the next nonce.
        const next = await restarted.wallet.handle({
          chainId: request.chainId,
          request: { ...request.request, id: nextId++ },
        })
        const nextHash = (next as { result: Hex }).result
        expect((await chain.getTransaction({ hash: nextHash })).nonce).toBe(nonceBefore + 1)
      }),
      // The two broadcast points named, besides the numbered ones (background prunes shift the numbers).
      {
        numRuns: 12,
        examples: [
          ['before broadcast', false],
          ['after broadcast', true],
        ],
      },
    )
  })
})

describe('wallet_sendCalls and eth_sendRawTransaction through a crash after the broadcast, on anvil', () => {
  it('a sequential batch whose wallet died after its first transaction sends the second on restart, never re-signing', async () => {
    const index = 40
    const from = accountAt(index)
    await fundFrom0(from)
    const nonceBefore = await chain.getTransactionCount({ address: from })
    const request = {
      chainId: `eip155:${anvil.chainId}`,
      requestKey: 'batch-1',
      request: {
        jsonrpc: '2.0' as const,
        id: nextId++,
        method: 'wallet_sendCalls',
        params: [
          {
            version: '2.0.0',
            from,
            chainId: toHex(anvil.chainId),
            atomicRequired: false,
            calls: [
              { to: recipient, value: toHex(1000n) },
              { to: recipient, value: toHex(2000n) },
            ],
          },
        ],
      },
    }
    const base = memoryStorage()
    const dying = walletOf(base, processWith('after broadcast'), index)
    await dying.wallet.handle(request)
    expect(await chain.getTransactionCount({ address: from })).toBe(nonceBefore + 1)

    const restarted = walletOf(base, processWith(undefined), index)
    const answer = (await restarted.wallet.handle(request)) as {
      result: { id: string; capabilities: { caip345: { transactionHashes: Hex[] } } }
    }
    const hashes = answer.result.capabilities.caip345.transactionHashes
    expect(hashes).toHaveLength(2)
    for (const hash of hashes) expect((await minedReceipt(chain, hash)).status).toBe('success')
    expect(await chain.getTransactionCount({ address: from })).toBe(nonceBefore + 2)
    expect(restarted.prompts()).toBe(0)
    // The status the dapp asks for next is the batch's, found by its id.
    const status = (await restarted.wallet.handle({
      chainId: request.chainId,
      request: { jsonrpc: '2.0', id: nextId++, method: 'wallet_getCallsStatus', params: [answer.result.id] },
    })) as { result: { receipts: unknown[] } }
    expect(status.result.receipts).toHaveLength(2)
  })

  it('a relayed raw transaction whose wallet died after relaying it: the repeat answers its hash unasked, one transaction', async () => {
    const index = 41
    const from = mnemonicToAccount(devMnemonic, { addressIndex: index })
    await fundFrom0(from.address)
    const raw = await from.signTransaction({
      chainId: anvil.chainId,
      type: 'eip1559',
      to: recipient,
      value: 5n,
      gas: 21_000n,
      nonce: await chain.getTransactionCount({ address: from.address }),
      maxFeePerGas: parseEther('0.00000005'),
      maxPriorityFeePerGas: 1n,
    })
    const request = {
      chainId: `eip155:${anvil.chainId}`,
      sessionTopic: 'raw',
      request: { jsonrpc: '2.0' as const, id: nextId++, method: 'eth_sendRawTransaction', params: [raw] },
    }
    const nonceBefore = await chain.getTransactionCount({ address: from.address })
    const base = memoryStorage()
    await walletOf(base, processWith('after broadcast'), index).wallet.handle(request)
    const restarted = walletOf(base, processWith(undefined), index)
    const answer = (await restarted.wallet.handle(request)) as { result: Hex }
    expect(answer.result).toBe(keccak256(raw))
    expect((await minedReceipt(chain, answer.result)).status).toBe('success')
    expect(await chain.getTransactionCount({ address: from.address })).toBe(nonceBefore + 1)
    expect(restarted.prompts()).toBe(0)
  })
})

describe('a signer slower than the request, and a broadcast whose outcome is unknown, on anvil', () => {
  const sendFrom = (from: Hex, key: string, expiryTimestamp?: number) => ({
    chainId: `eip155:${anvil.chainId}`,
    sessionTopic: key,
    ...(expiryTimestamp === undefined ? {} : { expiryTimestamp }),
    request: {
      jsonrpc: '2.0' as const,
      id: nextId++,
      method: 'eth_sendTransaction',
      params: [{ from, to: recipient, value: toHex(1000n) }],
    },
  })

  it('sends nothing a device signed after the request expired (the user confirmed too long): 8000, a repeat sends nothing', async () => {
    const local = mnemonicToAccount(devMnemonic, { addressIndex: 42 })
    await fundFrom0(local.address)
    let late = 0
    // A viem custom account (an HSM, a hardware wallet): the user confirms on it for two minutes.
    const device = toAccount({
      address: local.address,
      signMessage: (parameters) => local.signMessage(parameters),
      signTypedData: (parameters) => local.signTypedData(parameters as never),
      async signTransaction(transaction, options) {
        late += 120_000
        return local.signTransaction(transaction, options)
      },
    })
    let prompts = 0
    const wallet = createWalletRpc({
      namespaces: [
        eip155({
          keys: accountKeys(device),
          chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url) }],
        }),
      ],
      clock: () => Date.now() + late,
      approve: () => {
        prompts++
        return true
      },
    })
    const nonceBefore = await chain.getTransactionCount({ address: local.address, blockTag: 'pending' })
    const request = sendFrom(local.address, 'slow-device', Math.floor(Date.now() / 1000) + 60)
    expect(await wallet.handle(request)).toMatchObject({ error: { code: 8000 } })
    expect(await wallet.handle(request)).toMatchObject({ error: { code: 8000 } })
    expect(prompts).toBe(1)
    expect(await chain.getTransactionCount({ address: local.address, blockTag: 'pending' })).toBe(nonceBefore)
  })

  it('sends the signed bytes again after a broadcast timed out and a lagging node did not show them: one transaction, its hash', async () => {
    const index = 43
    const from = accountAt(index)
    await fundFrom0(from)
    let lagging = true
    let losing = true
    let laggingNonce: Hex | undefined
    // The answer to eth_sendRawTransaction is lost after anvil took it; the lookups after it reach a node that
    // has not seen it yet (a load-balanced RPC): no transaction, the account's nonce as before it.
    const lossy: typeof fetch = async (input, init) => {
      const { method } = JSON.parse(String(init?.body)) as { method: string }
      if (lagging && method === 'eth_getTransactionByHash')
        return Response.json({ jsonrpc: '2.0', id: 1, result: null })
      if (lagging && method === 'eth_getTransactionCount' && laggingNonce !== undefined)
        return Response.json({ jsonrpc: '2.0', id: 1, result: laggingNonce })
      const response = await fetch(input, init)
      if (losing && method === 'eth_sendRawTransaction')
        throw Object.assign(new Error('The operation timed out.'), { name: 'TimeoutError' })
      return response
    }
    const wallet = createWalletRpc({
      namespaces: [
        eip155({
          keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: [index] }),
          chains: [{ chainId: anvil.chainId, provider: httpProvider(anvil.url, { fetch: lossy }) }],
        }),
      ],
      approve: () => true,
    })
    const nonceBefore = await chain.getTransactionCount({ address: from })
    laggingNonce = toHex(nonceBefore)
    const request = sendFrom(from, 'lost-broadcast')
    expect(await wallet.handle(request)).toMatchObject({
      error: { code: -32603, data: { reason: expect.stringContaining('broadcast outcome unknown') } },
    })
    losing = false
    // The nonce of bytes that may be out stays theirs, though the node still says it is free: the next request
    // takes the one after it.
    const next = (await wallet.handle(sendFrom(from, 'next-send'))) as { result: Hex }
    expect((await chain.getTransaction({ hash: next.result })).nonce).toBe(nonceBefore + 1)
    lagging = false
    const answer = (await wallet.handle(request)) as { result: Hex }
    expect((await minedReceipt(chain, answer.result)).status).toBe('success')
    expect((await chain.getTransaction({ hash: answer.result })).nonce).toBe(nonceBefore)
    expect(await chain.getTransactionCount({ address: from })).toBe(nonceBefore + 2)
  })
})

async function fundFrom0(address: Hex): Promise<void> {
  const hash = (await chain.request({
    method: 'eth_sendTransaction' as never,
    params: [{ from: accountAt(0), to: address, value: toHex(parseEther('1')) }] as never,
  })) as Hex
  await minedReceipt(chain, hash)
}
