import * as v from 'valibot'
import { PolicyRefusedError, UnauthorizedError } from '../../src/core/errors.js'
import { defineMethod, type Namespace, type NamespaceHost } from '../../src/core/namespace.js'
import { item } from '../../src/core/review.js'
import { hexString } from '../../src/core/schema.js'

export const FAKE_SECRET =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
export const FAKE_ACCOUNT = 'acct-1'

/** A key provider that records every signing call with the request it served. */
export function createSpySigner() {
  const calls: Array<string | number> = []
  return {
    calls,
    sign(requestId: string | number, message: string): string {
      calls.push(requestId)
      return `sig(${message})`
    },
  }
}

/**
 * A namespace exercising every router path: a read, a signing method with a review, a method that refuses
 * by policy, one that fails unexpectedly with a secret in its message, and one with a `danger` warning.
 */
export function createFakeNamespace(signer = createSpySigner()) {
  let host: NamespaceHost | undefined
  const account = v.literal(FAKE_ACCOUNT)
  const namespace: Namespace = {
    name: 'fake',
    chains: ['fake:1', 'fake:2'],
    events: ['fake_changed'],
    methods: {
      fake_getAccount: defineMethod({
        params: v.strictObject({}),
        plan: () => ({ review: null, plan: null }),
        execute: () => FAKE_ACCOUNT,
      }),
      fake_sign: defineMethod({
        params: v.strictObject({ account: v.string(), message: hexString }),
        plan: (_context, params) => {
          if (params.account !== FAKE_ACCOUNT) throw new UnauthorizedError(params.account)
          return {
            review: {
              account: params.account,
              title: 'Sign',
              items: [item('Message', params.message)],
              warnings: [],
            },
            plan: params,
          }
        },
        execute: (context, plan) => ({ signature: signer.sign(context.id, plan.message), big: 2n ** 70n }),
      }),
      fake_blindSign: defineMethod({
        params: v.tuple([account, hexString]),
        plan: (_context, [who, message]) => ({
          review: {
            account: who,
            title: 'Blind signature',
            items: [item('Hash', message)],
            warnings: [{ code: 'fake.blind', severity: 'danger', message: 'Signs an opaque hash.' }],
          },
          plan: message,
        }),
        execute: (context, message) => signer.sign(context.id, message),
      }),
      fake_refuse: defineMethod({
        params: v.unknown(),
        plan: () => {
          throw new PolicyRefusedError('fee above cap', { rule: 'fee_cap' })
        },
        execute: () => null,
      }),
      fake_crash: defineMethod({
        params: v.unknown(),
        plan: () => {
          throw new Error(`decryption failed for ${FAKE_SECRET}`)
        },
        execute: () => null,
      }),
      fake_emit: defineMethod({
        params: v.unknown(),
        plan: () => ({ review: null, plan: null }),
        execute: (context) => {
          host?.emit({ name: 'fake_changed', chainId: context.chainId, data: [FAKE_ACCOUNT] })
          return true
        },
      }),
    },
    accounts: async () => [FAKE_ACCOUNT],
    sessionProperties: async () => ({ fake_account: FAKE_ACCOUNT }),
    attach: (given) => {
      host = given
    },
    announceSession: async (chainId) => host?.emit({ name: 'fake_changed', chainId, data: [FAKE_ACCOUNT] }),
  }
  return { namespace, signer }
}
