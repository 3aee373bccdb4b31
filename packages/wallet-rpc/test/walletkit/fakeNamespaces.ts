import * as v from 'valibot'
import { UnauthorizedError } from '../../src/core/errors.js'
import { defineMethod, type Namespace, type NamespaceHost } from '../../src/core/namespace.js'
import { item } from '../../src/core/review.js'
import {
  BITCOIN_ACCOUNT,
  BITCOIN_MAINNET,
  BITCOIN_TESTNET,
  ETHEREUM,
  ETHEREUM_ACCOUNT,
  POLYGON,
  TON_ACCOUNT,
  TON_MAINNET,
} from './fixtures.js'

/** What the fake bip122 namespace reports as the account's addresses (spec shape of getAccountAddresses). */
export const bitcoinAddresses = [{ address: BITCOIN_ACCOUNT, path: "m/84'/0'/0'/0/0", intention: 'payment' }]

/**
 * Small stand-ins for the real namespaces, built on the core contract: the adapter only needs names,
 * chains, method tables, events, accounts, session properties and `announceSession`.
 */
export function fakeBitcoin(): Namespace {
  let host: NamespaceHost | undefined
  return {
    name: 'bip122',
    chains: [BITCOIN_MAINNET, BITCOIN_TESTNET],
    events: ['bip122_addressesChanged'],
    methods: {
      getAccountAddresses: defineMethod({
        params: v.object({ account: v.string() }),
        plan: (_context, params) => {
          if (params.account !== BITCOIN_ACCOUNT) throw new UnauthorizedError(params.account)
          return { review: null, plan: null }
        },
        execute: () => bitcoinAddresses,
      }),
      signMessage: defineMethod({
        params: v.object({ account: v.string(), message: v.string() }),
        plan: (_context, params) => ({
          review: {
            account: params.account,
            title: 'Sign message',
            items: [item('Message', params.message)],
            warnings: [],
          },
          plan: params,
        }),
        execute: (_context, plan) => ({ address: plan.account, signature: 'f00d' }),
      }),
      signPsbt: defineMethod({
        params: v.object({ account: v.string(), psbt: v.string() }),
        plan: () => {
          throw new Error('provider exploded')
        },
        execute: () => null,
      }),
    },
    accounts: async () => [BITCOIN_ACCOUNT],
    sessionProperties: async () => ({ bip122_getAccountAddresses: JSON.stringify(bitcoinAddresses) }),
    attach: (given) => {
      host = given
    },
    announceSession: async (chainId) =>
      host?.emit({ name: 'bip122_addressesChanged', chainId, data: bitcoinAddresses }),
  }
}

/** `emit` plays what a wallet does when its user switches accounts or chains. */
export function fakeEthereum(): { namespace: Namespace; emit: NamespaceHost['emit'] } {
  let host: NamespaceHost | undefined
  const namespace: Namespace = {
    name: 'eip155',
    chains: [ETHEREUM, POLYGON],
    events: ['chainChanged', 'accountsChanged'],
    methods: {
      personal_sign: defineMethod({
        params: v.tuple([v.string(), v.string()]),
        plan: (_context, [message, address]) => ({
          review: {
            account: address,
            title: 'Sign message',
            items: [item('Message', message)],
            warnings: [],
          },
          plan: message,
        }),
        execute: () => `0x${'11'.repeat(65)}`,
      }),
      eth_sendTransaction: defineMethod({
        params: v.tuple([v.object({ from: v.string() })]),
        plan: (_context, [tx]) => ({
          review: { account: tx.from, title: 'Send transaction', items: [], warnings: [] },
          plan: tx,
        }),
        execute: () => `0x${'22'.repeat(32)}`,
      }),
    },
    accounts: async () => [ETHEREUM_ACCOUNT],
    attach: (given) => {
      host = given
    },
  }
  return { namespace, emit: (event) => host?.emit(event) }
}

export function fakeTon(): Namespace {
  return {
    name: 'ton',
    chains: [TON_MAINNET],
    events: [],
    methods: {
      ton_signData: defineMethod({
        params: v.array(v.unknown()),
        plan: () => ({ review: null, plan: null }),
        execute: () => ({ signature: 'AA==' }),
      }),
    },
    accounts: async () => [TON_ACCOUNT],
    sessionProperties: async () => ({
      ton_getPublicKey: 'ab'.repeat(32),
      ton_getStateInit: 'te6cckEBAQEAAgAAAEysuc0=',
    }),
  }
}
