import { sha256 } from '@noble/hashes/sha2.js'
import { Psbt } from 'bitcoinjs-lib'
import { describe, expect, it } from 'vitest'
import { BIP122_REGTEST } from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import { bip122 } from '../../src/bip122/namespace.js'
import { esplora } from '../../src/bip122/providers/esplora.js'
import { verifiedPreviousOutputs, verifiedTransactions } from '../../src/bip122/providers/previousOutputs.js'
import {
  serializeTransaction,
  type Transaction,
  transactionId,
} from '../../src/bip122/transaction/transaction.js'
import type { AccountAddress, ChainProvider } from '../../src/bip122/types.js'
import { ProviderError } from '../../src/core/errors.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { countTurns } from '../core/countTurns.js'
import { manyInputParents, manyInputPsbt } from './manyInputPsbt.js'

/**
 * The parents the wallet fetches itself (sendTransfer's coins, signPsbt's witnessUtxo-only inputs): fetched
 * together (the provider's `rawTransactions`, else `rawTransaction` a few at a time), each hash-checked,
 * kept, shared by concurrent requests, and never one long block of the event loop however fast the provider
 * answers (turns counted, nothing timed).
 */
const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'

async function owners(count: number): Promise<AccountAddress[]> {
  const namespace = bip122({ keys: hdKeys({ mnemonic }), chains: { [BIP122_REGTEST]: {} } })
  const { account } = await namespace.wallet.chain(BIP122_REGTEST)
  return Promise.all(Array.from({ length: count }, (_, i) => account.address(84, 0, i)))
}

/** The reason a provider error gives the dapp. */
const reasonOf = (error: unknown) => ((error as ProviderError).data as { reason: string }).reason

/** A provider answering `parents` from memory at once, counting and bounding what it is asked. */
function memoryProvider(parents: readonly Transaction[], options: { batch?: boolean } = {}) {
  const served = new Map(parents.map((parent) => [transactionId(parent), serializeTransaction(parent)]))
  const asked: string[] = []
  const batches: number[] = []
  let inFlight = 0
  let mostInFlight = 0
  const one = async (txid: string) => {
    asked.push(txid)
    inFlight++
    mostInFlight = Math.max(mostInFlight, inFlight)
    await Promise.resolve()
    inFlight--
    const raw = served.get(txid)
    if (raw === undefined) throw new Error(`no transaction ${txid}`)
    return raw
  }
  const provider: ChainProvider = {
    utxos: async () => [],
    addressActivity: async () => ({ txCount: 0 }),
    feeRates: async () => ({ '1': 1 }),
    rawTransaction: one,
    broadcast: async () => {
      throw new Error('nothing is sent here')
    },
    ...(options.batch
      ? {
          async rawTransactions(txids: readonly string[]) {
            batches.push(txids.length)
            return Promise.all(txids.map(one))
          },
        }
      : {}),
  }
  return { provider, served, asked, batches, mostInFlight: () => mostInFlight }
}

describe('parents fetched by the wallet', () => {
  it('without rawTransactions: a few in flight, all checked, in order, and kept', async () => {
    const parents = manyInputParents({ owners: await owners(3), count: 2000, seed: 1 })
    const memory = memoryProvider(parents)
    const txids = parents.map(transactionId)
    const stop = countTurns()
    const outcomes = await verifiedTransactions(memory.provider, [...txids, txids[0]!])
    const turns = stop()
    expect(outcomes.map((outcome) => ('value' in outcome ? transactionId(outcome.value) : 'error'))).toEqual([
      ...txids,
      txids[0],
    ])
    // Each once (the repeated txid too), never more than 8 at a time, with turns of the event loop between.
    expect(memory.asked).toHaveLength(2000)
    expect(memory.mostInFlight()).toBeLessThanOrEqual(8)
    expect(turns).toBeGreaterThan(2)
    // Kept: asked again, the provider is not.
    await verifiedTransactions(memory.provider, txids.slice(0, 1500))
    expect(memory.asked).toHaveLength(2000)
  })

  it('keeps the 2000 latest: a batch of 2500 leaves its first 500 to be fetched again', async () => {
    const parents = manyInputParents({ owners: await owners(1), count: 2500, seed: 6 })
    const memory = memoryProvider(parents, { batch: true })
    const txids = parents.map(transactionId)
    await verifiedTransactions(memory.provider, txids)
    await verifiedTransactions(memory.provider, txids.slice(500))
    expect(memory.batches).toEqual([2500])
    await verifiedTransactions(memory.provider, txids)
    expect(memory.batches).toEqual([2500, 500])
  })

  it('with rawTransactions: one batch of what is missing; concurrent requests share it', async () => {
    const parents = manyInputParents({ owners: await owners(2), count: 300, seed: 2 })
    const memory = memoryProvider(parents, { batch: true })
    const txids = parents.map(transactionId)
    await verifiedTransactions(memory.provider, txids.slice(0, 100))
    const [first, second] = await Promise.all([
      verifiedTransactions(memory.provider, txids),
      verifiedTransactions(memory.provider, txids.slice(150)),
    ])
    expect(memory.batches).toEqual([100, 200])
    expect(first!.every((outcome) => 'value' in outcome)).toBe(true)
    expect(second!.map((outcome) => ('value' in outcome ? transactionId(outcome.value) : ''))).toEqual(
      txids.slice(150),
    )
  })

  it('a parent that is not what its txid names, or missing, fails alone and is not kept', async () => {
    const parents = manyInputParents({ owners: await owners(2), count: 10, seed: 3 })
    const memory = memoryProvider(parents)
    const txids = parents.map(transactionId)
    // The provider swaps parent 4 for parent 5, and has no output 7 of parent 6.
    memory.served.set(txids[4]!, memory.served.get(txids[5]!)!)
    const outputs = await verifiedPreviousOutputs(
      memory.provider,
      txids.map((txid, i) => ({ txid, vout: i === 6 ? 7 : 0 })),
    )
    expect(outputs.map((outcome) => ('error' in outcome ? reasonOf(outcome.error) : 'ok'))).toEqual([
      ...Array(4).fill('ok'),
      expect.stringContaining(`returned another transaction for ${txids[4]}`),
      'ok',
      expect.stringContaining(`transaction ${txids[6]} has no output 7`),
      ...Array(3).fill('ok'),
    ])
    expect((outputs[4] as { error: unknown }).error).toBeInstanceOf(ProviderError)
    expect(outputs[0]).toEqual({ value: parents[0]!.outputs[0] })
    // Fixed by the provider, asked again: fetched again (a failure is not remembered), and right.
    memory.served.set(txids[4]!, serializeTransaction(parents[4]!))
    const again = await verifiedTransactions(memory.provider, [txids[4]!])
    expect(again).toEqual([{ value: parents[4] }])
  })

  it('a batch answering another count fails each of its transactions', async () => {
    const parents = manyInputParents({ owners: await owners(1), count: 3, seed: 4 })
    const provider: ChainProvider = {
      ...memoryProvider(parents).provider,
      rawTransactions: async () => [serializeTransaction(parents[0]!)],
    }
    const outcomes = await verifiedTransactions(provider, parents.map(transactionId))
    for (const outcome of outcomes)
      expect(reasonOf((outcome as { error: unknown }).error)).toMatch(/answered a batch of 3 transactions/)
  })

  it("esplora's batch of 1450 parents: one it cannot read stops it at once, and the failure names that parent", async () => {
    const parents = manyInputParents({ owners: await owners(1), count: 1450, seed: 7 })
    const txids = parents.map(transactionId)
    const served = new Map(parents.map((parent, i) => [txids[i], Buffer.from(serializeTransaction(parent))]))
    const unreadable = txids[9]!
    const asked: string[] = []
    const fetch = (async (input: string | URL | Request) => {
      const txid = /\/tx\/([0-9a-f]{64})\/hex$/.exec(String(input))![1]!
      asked.push(txid)
      await new Promise((resolve) => setTimeout(resolve, 1))
      if (txid === unreadable) throw new TypeError('fetch failed')
      return new Response(served.get(txid)!.toString('hex'))
    }) as typeof globalThis.fetch
    const provider = esplora('http://esplora.test', { fetch, retries: 0, readsInFlight: 8 })
    const outputs = await verifiedPreviousOutputs(
      provider,
      txids.map((txid) => ({ txid, vout: 0 })),
    )
    // The ones before it and those in flight beside it, never the other 1400-odd, even later.
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(asked.length).toBeLessThanOrEqual(10 + 8)
    // Whichever coin a caller reports first, the reason names the parent that failed.
    expect(reasonOf((outputs[0] as { error: unknown }).error)).toBe(
      `esplora GET /tx/${unreadable}/hex unreachable: fetch failed`,
    )
  })

  it('signPsbt of 3000 inputs whose parents it fetches: the signatures of the same PSBT carrying them, and turns of the event loop while they are fetched', async () => {
    const [owner] = await owners(1)
    const namespace = bip122({ keys: hdKeys({ mnemonic }), chains: { [BIP122_REGTEST]: {} } })
    const { account } = await namespace.wallet.chain(BIP122_REGTEST)
    const options = { account: account.id, owners: [owner!], count: 3000, seed: 5 }
    const memory = memoryProvider(manyInputParents(options))
    // Turns of the event loop so far (a setImmediate chain).
    let turns = 0
    let counting = true
    const probe = () => {
      turns++
      if (counting) setImmediate(probe)
    }
    setImmediate(probe)
    // The turn each parent is asked for in. The provider answers at once but works for each (a node reading
    // and hashing a block), so the 3000 requests take the wallet's thread well past one slice of work.
    const askedInTurn: number[] = []
    const byId = new Map(manyInputParents(options).map((parent) => [transactionId(parent), parent]))
    const block = new Uint8Array(16_384)
    const provider: ChainProvider = {
      ...memory.provider,
      rawTransaction: async (txid) => {
        askedInTurn.push(turns)
        memory.asked.push(txid)
        sha256(block)
        return serializeTransaction(byId.get(txid)!)
      },
    }
    const signatures = async (provider: ChainProvider | undefined, params: unknown) => {
      const wallet = createWalletRpc({
        namespaces: [
          bip122({
            keys: hdKeys({ mnemonic }),
            chains: { [BIP122_REGTEST]: provider === undefined ? {} : { provider } },
          }),
        ],
        approve: () => true,
      })
      const response = await wallet.handle({
        chainId: BIP122_REGTEST,
        request: { jsonrpc: '2.0', id: 1, method: 'signPsbt', params },
      })
      await wallet.close()
      if (!('result' in response)) throw new Error(JSON.stringify(response))
      return Psbt.fromBase64((response.result as { psbt: string }).psbt).data.inputs.map(
        (input) => input.partialSig,
      )
    }
    const fetched = await signatures(
      provider,
      manyInputPsbt({ ...options, parents: false, witnessUtxo: true }),
    )
    counting = false
    expect(memory.asked).toHaveLength(3000)
    // Not all in one turn: the wallet gave the event loop turns while it fetched them.
    expect(new Set(askedInTurn).size).toBeGreaterThan(2)
    const carried = await signatures(
      undefined,
      manyInputPsbt({ ...options, parents: true, witnessUtxo: true }),
    )
    expect(fetched).toHaveLength(3000)
    expect(fetched.every((partialSig) => partialSig?.length === 1)).toBe(true)
    expect(fetched).toEqual(carried)
  }, 120_000)
})
