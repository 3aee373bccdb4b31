import * as v from 'valibot'
import { ProviderError } from '../../src/core/errors.js'
import type { KeyValueStorage } from '../../src/core/journal.js'
import { defineMethod, type Namespace } from '../../src/core/namespace.js'
import { item } from '../../src/core/review.js'

/**
 * A chain that keeps what it accepted: one entry per distinct transaction (the same bytes sent twice are
 * "already known", as every node says), so `effects()` counts payments, not broadcasts.
 */
export function createFakeChain() {
  const accepted = new Map<string, string>()
  let broadcasts = 0
  let nextNonce = 0
  /** Runs just before the chain answers a broadcast (after it accepted): a test makes the wallet "die" here. */
  let afterAccept: (() => void) | undefined
  return {
    /** Each signature takes the next nonce, as an account's transactions do. */
    nextNonce: () => nextNonce++,
    broadcast(raw: string): string {
      broadcasts++
      const id = `tx(${raw})`
      if (accepted.has(id)) throw new ProviderError('already known')
      accepted.set(id, raw)
      afterAccept?.()
      return id
    },
    knows: (id: string) => accepted.has(id),
    effects: () => accepted.size,
    broadcasts: () => broadcasts,
    ids: () => [...accepted.keys()],
    onAccept(hook: (() => void) | undefined) {
      afterAccept = hook
    },
  }
}

export type FakeChain = ReturnType<typeof createFakeChain>

/**
 * A namespace with one sending method shaped as the real ones: `fake_send` signs (a new nonce each
 * signature), records the signed bytes with `effects.signed`, broadcasts once and answers the id;
 * `sends.resend` broadcasts the recorded bytes again, counting "already known" as sent. `fake_read` answers
 * without a review; `fake_signOnly` signs without sending.
 */
export function createSendingNamespace(chain: FakeChain) {
  const signatures: string[] = []
  const namespace: Namespace = {
    name: 'fake',
    chains: ['fake:1'],
    methods: {
      fake_read: defineMethod({
        params: v.unknown(),
        plan: () => ({ review: null, plan: null }),
        execute: () => ({ block: chain.effects() }),
      }),
      fake_signOnly: defineMethod({
        params: v.strictObject({ message: v.string() }),
        plan: (_context, params) => ({
          review: { account: 'acct', title: 'Sign', items: [item('Message', params.message)], warnings: [] },
          plan: params.message,
        }),
        execute: (_context, message: string) => {
          signatures.push(message)
          return `sig(${message}#${signatures.length})`
        },
      }),
      fake_send: defineMethod({
        params: v.strictObject({ to: v.string(), amount: v.string() }),
        plan: (_context, params) => ({
          review: {
            account: 'acct',
            title: 'Send',
            items: [item('To', params.to), item('Amount', params.amount)],
            warnings: [],
          },
          plan: params,
        }),
        async execute(_context, plan, journal) {
          const raw = `${plan.to}:${plan.amount}:nonce${chain.nextNonce()}`
          signatures.push(raw)
          await journal.signed({ raw }, [`tx(${raw})`])
          const id = chain.broadcast(raw)
          await journal.broadcast({ id })
          return { id }
        },
        sends: {
          fixed: (plan) => ({ to: plan.to }),
          async resend(_context, recorded) {
            const { raw } = v.parse(v.object({ raw: v.string() }), recorded)
            try {
              return { id: chain.broadcast(raw) }
            } catch (error) {
              const id = `tx(${raw})`
              if (chain.knows(id)) return { id }
              throw error
            }
          },
          async known(_context, recorded) {
            const { raw } = v.parse(v.object({ raw: v.string() }), recorded)
            const id = `tx(${raw})`
            return chain.knows(id) ? { id } : undefined
          },
        },
      }),
    },
  }
  return { namespace, signatures }
}

/** Thrown at and after the step where a simulated wallet process dies. */
export class Crash extends Error {}

/**
 * One wallet process in a crash test: its steps (store calls, approvals, chain calls) are counted; it dies at
 * its `crashAt`-th step, or at the first step so labelled, and once dead every step throws (nothing it does
 * after happens).
 */
export function processWith(crashAt: number | string | undefined) {
  let steps = 0
  let alive = true
  return {
    step(label = ''): void {
      if (!alive) throw new Crash('dead')
      if (steps++ === crashAt || label === crashAt) {
        alive = false
        throw new Crash('killed')
      }
    },
  }
}

export type Process = ReturnType<typeof processWith>

/** `base` as `process` sees it: every call a step; with `failOnce`, the store itself fails at that call. */
export function storageOf(
  base: KeyValueStorage,
  process: Process,
  failOnce?: { at: number },
): KeyValueStorage {
  let operations = 0
  const guarded =
    <Args extends unknown[], Result>(call: (...args: Args) => Promise<Result>) =>
    async (...args: Args): Promise<Result> => {
      process.step()
      if (failOnce !== undefined && operations++ === failOnce.at) throw new Error('store unavailable')
      return call(...args)
    }
  return {
    getKeys: guarded(() => base.getKeys()),
    getEntries: guarded(() => base.getEntries()),
    getItem: guarded((key: string) => base.getItem(key)),
    setItem: guarded((key: string, value: unknown) => base.setItem(key, value)),
    removeItem: guarded((key: string) => base.removeItem(key)),
  }
}
