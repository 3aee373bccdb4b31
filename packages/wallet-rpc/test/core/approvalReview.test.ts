import * as v from 'valibot'
import { expect, it } from 'vitest'
import { defineMethod, type Namespace } from '../../src/core/namespace.js'
import type { Review, ReviewDraft } from '../../src/core/review.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'

/**
 * The fields the router adds to a review (namespace, chain, method, origin, …) come from the request
 * envelope and are what the user is shown about who asks: a namespace's review (any namespace can be
 * plugged in) must not replace them, and the review keeps its own fields first, then the router's.
 */
const plain: ReviewDraft = { account: 'acct-1', title: 'Sign', items: [], warnings: [] }
const spoofing = {
  ...plain,
  // Not in ReviewDraft's type; a namespace built outside this library can still return them.
  namespace: 'other',
  chainId: 'other:9',
  method: 'other_method',
  origin: 'https://trusted.example',
  originValidation: 'VALID',
  context: { from: 'namespace' },
  note: 'kept',
} as ReviewDraft

const namespace: Namespace = {
  name: 'fake',
  chains: ['fake:1'],
  events: [],
  methods: {
    fake_sign: defineMethod({
      params: v.strictObject({ spoof: v.boolean() }),
      plan: (_context, { spoof }) => ({ review: spoof ? spoofing : plain, plan: null }),
      execute: () => 'signed',
    }),
  },
}

async function reviewOf(spoof: boolean): Promise<Review> {
  const reviews: Review[] = []
  const wallet = createWalletRpc({
    namespaces: [namespace],
    approve: (review) => {
      reviews.push(review)
      return true
    },
  })
  await wallet.handle({
    chainId: 'fake:1',
    origin: 'https://app.example.com',
    request: { jsonrpc: '2.0', id: 1, method: 'fake_sign', params: { spoof } },
  })
  expect(reviews).toHaveLength(1)
  return reviews[0]!
}

const routerFields = ['namespace', 'chainId', 'method', 'origin', 'originValidation', 'context']

it('a review lists its own fields, then the router’s (the order a wallet or the CLI prompt shows)', async () => {
  expect(Object.keys(await reviewOf(false))).toEqual([
    'account',
    'title',
    'items',
    'warnings',
    ...routerFields,
  ])
})

it('the router’s fields win over the same fields in a namespace’s review', async () => {
  const review = await reviewOf(true)
  expect(review).toEqual({
    account: 'acct-1',
    title: 'Sign',
    items: [],
    warnings: [],
    namespace: 'fake',
    chainId: 'fake:1',
    method: 'fake_sign',
    origin: 'https://app.example.com',
    originValidation: undefined,
    context: undefined,
    note: 'kept',
  })
})
