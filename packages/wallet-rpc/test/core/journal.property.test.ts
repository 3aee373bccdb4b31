import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JournalRecord, KeyValueStorage } from '../../src/core/journal.js'
import { memoryStorage } from '../../src/core/journal.js'
import type { JsonRpcResponse } from '../../src/core/jsonrpc.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import {
  createFakeChain,
  createSendingNamespace,
  type FakeChain,
  type Process,
  processWith,
  storageOf,
} from './journalNamespace.js'

/**
 * Fault injection over the whole path of a sending request (store reads and writes, the chain accepting the
 * broadcast): the wallet process dies at a random step, or its store fails once at a random step; then the
 * wallet restarts on the same store and the same request arrives again, one or more times, in sequence or
 * concurrently. Whatever happened: never two payments, every call answered, and once a run completes the
 * answer names the one payment and every later repeat answers the same.
 */

function start(chain: FakeChain, storage: KeyValueStorage, process: Process) {
  const { namespace, signatures } = createSendingNamespace(chain)
  let prompts = 0
  const wallet = createWalletRpc({
    namespaces: [namespace],
    journal: storage,
    approve: () => {
      process.step()
      prompts++
      return true
    },
  })
  return { wallet, signatures, prompts: () => prompts }
}

const request = {
  id: 1700000000001,
  topic: 'a1b2c3',
  params: { chainId: 'fake:1', request: { method: 'fake_send', params: { to: 'bob', amount: '1000' } } },
}

const repeatShape = fc.array(fc.constantFrom('sequential', 'concurrent'), { minLength: 1, maxLength: 3 })

describe('the request journal under faults', () => {
  it('a wallet killed at any step, restarted on the same store, answers the request with at most one payment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 12 }), repeatShape, async (crashAt, repeats) => {
        const chain = createFakeChain()
        const base = memoryStorage()
        const first = processWith(crashAt)
        // The chain accepting the broadcast is a step too: the process may die right after it.
        chain.onAccept(() => first.step())
        const dying = start(chain, storageOf(base, first), first)
        const firstAnswer = await dying.wallet.handle(request)
        expect(firstAnswer.id).toBe(request.id)
        expect(chain.effects()).toBeLessThanOrEqual(1)
        // Signed bytes recorded before the crash (a signature that never reached the journal is lost with the process).
        const recorded = (await base.getEntries<JournalRecord>()).some(
          ([, record]) => record.state !== 'approved',
        )
        chain.onAccept(undefined)

        const restarted = processWith(undefined)
        const wallet = start(chain, storageOf(base, restarted), restarted)
        const answers: JsonRpcResponse[] = []
        for (const shape of repeats) {
          if (shape === 'sequential') answers.push(await wallet.wallet.handle(request))
          else
            answers.push(
              ...(await Promise.all([wallet.wallet.handle(request), wallet.wallet.handle(request)])),
            )
        }
        expect(chain.effects()).toBe(1)
        for (const answer of answers)
          expect(answer).toEqual({ jsonrpc: '2.0', id: request.id, result: { id: chain.ids()[0] } })
        // The user is asked again only when no signed bytes were recorded before the crash.
        if (recorded) expect(wallet.prompts()).toBe(0)
        else expect(wallet.prompts()).toBeLessThanOrEqual(1)
        // The first process's answer, when it gave a result, names the same payment.
        if ('result' in firstAnswer) expect(firstAnswer.result).toEqual({ id: chain.ids()[0] })
      }),
      { numRuns: 200 },
    )
  })

  it('a store that fails once at any step leaves at most one payment, and the repeats complete it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: 8 }), repeatShape, async (failAt, repeats) => {
        const chain = createFakeChain()
        const base = memoryStorage()
        const process = processWith(undefined)
        const storage = storageOf(base, process, { at: failAt })
        const wallet = start(chain, storage, process)
        const firstAnswer = await wallet.wallet.handle(request)
        expect(chain.effects()).toBeLessThanOrEqual(1)
        // Then a restart on the same store.
        const restarted = processWith(undefined)
        const after = start(chain, storageOf(base, restarted), restarted)
        for (const shape of repeats) {
          const answers =
            shape === 'sequential'
              ? [await after.wallet.handle(request)]
              : await Promise.all([after.wallet.handle(request), after.wallet.handle(request)])
          for (const answer of answers)
            expect(answer).toEqual({ jsonrpc: '2.0', id: request.id, result: { id: chain.ids()[0] } })
        }
        expect(chain.effects()).toBe(1)
        if ('result' in firstAnswer) expect(firstAnswer.result).toEqual({ id: chain.ids()[0] })
      }),
      { numRuns: 200 },
    )
  })
})
