import fc from 'fast-check'
import {
  concatHex,
  createPublicClient,
  custom,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  maxUint256,
  toHex,
} from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Review, ReviewItem } from '../../../src/core/review.js'
import { maxNestedCalls, maxSelfCallDepth } from '../../../src/eip155/calls/callTree.js'
import { encodeExecute } from '../../../src/eip155/eip7702/erc7821.js'
import { mnemonicKeys } from '../../../src/eip155/index.js'
import { errorOf, harness, minedReceipt } from '../helpers.js'
import { devAccounts, devMnemonic, pragueChainPerFile } from './pragueChain.js'

/**
 * Batches simulated as they will run (issue 41), on anvil (prague) with OpenZeppelin 5.x's ERC-7821 executor
 * as the delegate: a dapp's call to the account itself whose data is `execute(…)` (or, inside the executor, a
 * call to the zero address, which OpenZeppelin reads as the account) makes the account run more calls. Before,
 * the first (upgrading) batch was simulated as plain calls from an account without code, so such a call did
 * nothing in the simulation and nothing in the review, and an unlimited approve inside it went 0 → MAX with only
 * the upgrade caution shown.
 */
const prague = pragueChainPerFile()
const recipient = '0x000000000000000000000000000000000000dEaD'
const spender = '0x5E0dE10000000000000000000000000000000001'

let token: Hex

beforeAll(async () => {
  token = await prague().deployToken('Self Token', 'SLF', devAccounts[3])
}, 60_000)

const approve = (who: string, amount: bigint) => ({
  to: token,
  value: 0n,
  data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [who as Hex, amount] }),
})
const allowance = (owner: string, who: string) =>
  prague().chain.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [owner as Hex, who as Hex],
  })
const wire = (call: { to: string; value: bigint; data: Hex }) => ({
  to: call.to,
  value: toHex(call.value),
  data: call.data,
})
const batch = (from: string, calls: { to: string; value: bigint; data: Hex }[], fields = {}) => [
  {
    version: '2.0.0',
    chainId: prague().hexChainId,
    from,
    atomicRequired: true,
    calls: calls.map(wire),
    ...fields,
  },
]
const codes = (review: Review | undefined) => review?.warnings.map((warning) => warning.code) ?? []
const text = (items: ReviewItem[]) => JSON.stringify(items)

describe('calls to the account itself, on an upgrading atomic batch', () => {
  it("the issue's attack: execute(approve MAX) inside a call to the account is shown and flagged, as it runs", async () => {
    const from = devAccounts[6]
    expect(await prague().chain.getCode({ address: from })).toBeUndefined()
    // A wallet whose user declines every review that grants an unlimited allowance.
    const careful = prague().wallet([6], {
      approve: (review) => !codes(review).includes('erc20.unlimited_approval'),
    })
    const hidden = { to: from, value: 0n, data: encodeExecute([approve(spender, maxUint256)]) }
    const response = await careful.call(
      'wallet_sendCalls',
      batch(from, [{ to: recipient, value: 1n, data: '0x' }, hidden]),
    )
    const review = careful.reviews.at(-1)!
    expect(codes(review)).toEqual(
      expect.arrayContaining([
        'eip7702.account_upgrade',
        'calls.self_call',
        'erc20.unlimited_approval',
        'tx.simulated_unlimited_approval',
      ]),
    )
    const call2 = review.items.find((entry) => entry.label === 'Call 2 of 2')!
    expect(text([call2])).toContain(`${from} (your own account)`)
    expect(text([call2])).toContain('Runs 1 call from your account (ERC-7821 execute, batch)')
    expect(text([call2])).toContain('ERC-20 approve')
    expect(text([call2])).toContain(getAddress(spender))
    const approvals = review.items.find((entry) => entry.label === 'Approvals (simulated)')
    expect(text([approvals!])).toContain(`${getAddress(spender)} may spend an unlimited amount`)
    // Declined (a 5750: the dapp required atomicity and the review asked to upgrade): nothing happened.
    expect(errorOf(response).code).toBe(5750)
    expect(await allowance(from, spender)).toBe(0n)
    expect(await prague().chain.getCode({ address: from })).toBeUndefined()

    // Approved, it runs exactly as reviewed: the allowance the review showed is the one granted.
    const trusting = prague().wallet([6])
    const sent = await trusting.result<{ capabilities: { caip345: { transactionHashes: Hex[] } } }>(
      'wallet_sendCalls',
      batch(from, [{ to: recipient, value: 1n, data: '0x' }, hidden]),
    )
    const [hash] = sent.capabilities.caip345.transactionHashes
    expect((await minedReceipt(prague().chain, hash!)).status).toBe('success')
    expect(await allowance(from, spender)).toBe(maxUint256)
  })

  it('a call to the zero address inside the executor is the account itself: decoded and flagged too', async () => {
    const from = devAccounts[7]
    const wallet = prague().wallet([7], { approve: () => false })
    const zero = '0x0000000000000000000000000000000000000000'
    await wallet.call(
      'wallet_sendCalls',
      batch(from, [{ to: zero, value: 0n, data: encodeExecute([approve(spender, 5n)]) }]),
    )
    const review = wallet.reviews.at(-1)!
    expect(codes(review)).toEqual(expect.arrayContaining(['calls.self_call', 'tx.simulated_approval']))
    expect(text(review.items)).toContain(`${zero} (your own account)`)
    expect(text(review.items)).toContain(`${getAddress(spender)} may spend 0.000000000000000005 SLF`)
  })

  it('a call to the account whose data is not an execute this wallet reads: danger, refused before approval', async () => {
    const from = devAccounts[8]
    const wallet = prague().wallet([8])
    for (const data of [
      // isValidSignature(bytes32,bytes): not execute
      '0x1626ba7e0000000000000000000000000000000000000000000000000000000000000000',
      // execute with a delegatecall mode
      encodeFunctionData({
        abi: [
          {
            type: 'function',
            name: 'execute',
            inputs: [{ type: 'bytes32' }, { type: 'bytes' }],
            outputs: [],
            stateMutability: 'payable',
          },
        ],
        args: [`0xff${'00'.repeat(31)}`, concatHex([token, '0x1234'])],
      }),
    ] as Hex[]) {
      const error = errorOf(
        await wallet.call('wallet_sendCalls', batch(from, [{ to: from, value: 0n, data }])),
      )
      expect(error).toMatchObject({ code: -32602, data: { rule: 'calls.self_call_undecoded' } })
    }
    expect(wallet.reviews).toEqual([])
  })

  it('what cannot be simulated and targets the account itself is refused; the same batch without it is not', async () => {
    const from = devAccounts[8]
    const forward = http(prague().anvil.url)({})
    // A node whose eth_simulateV1 fails: the review says the simulation is unavailable.
    const failing = createPublicClient({
      transport: custom({
        async request({ method, params }) {
          if (method === 'eth_simulateV1') throw Object.assign(new Error('overloaded'), { code: -32000 })
          return forward.request({ method, params } as never)
        },
      }),
    })
    for (const chainOptions of [{ provider: failing }, { provider: failing, simulation: false as const }]) {
      const wallet = harness(
        {
          keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: [8] }),
          chains: [
            {
              chainId: prague().anvil.chainId,
              provider: chainOptions.provider,
              eip7702: { delegate: prague().delegate },
            },
          ],
          ...(chainOptions.simulation === false ? { simulation: false } : {}),
        },
        { approve: () => false },
      )
      const selfCall = { to: from, value: 0n, data: encodeExecute([approve(spender, 1n)]) }
      const refused = errorOf(await wallet.call('wallet_sendCalls', batch(from, [selfCall])))
      expect(refused).toMatchObject({ code: -32602, data: { rule: 'calls.self_call_unsimulated' } })
      expect(wallet.reviews).toEqual([])
      // Without the call to the account: reviewed (and here declined) as before.
      expect(errorOf(await wallet.call('wallet_sendCalls', batch(from, [approve(spender, 1n)]))).code).toBe(
        5750,
      )
      expect(wallet.reviews).toHaveLength(1)
    }
  })
})

describe('a node that does not follow a designator set by a state override', () => {
  it("runs the designator's bytes as code and fails; the delegate's code stands in, so the effects still show", async () => {
    const from = devAccounts[9]
    const forward = http(prague().anvil.url)({})
    const overrides: string[] = []
    // Rewrites an override of `0xef0100 ‖ delegate` to INVALID (0xfe): what running those bytes as code does.
    const literal = createPublicClient({
      transport: custom({
        async request({ method, params }) {
          if (method === 'eth_simulateV1') {
            const [options] = params as [
              { blockStateCalls: { stateOverrides?: Record<string, { code: string }> }[] },
            ]
            for (const block of options.blockStateCalls)
              for (const override of Object.values(block.stateOverrides ?? {})) {
                overrides.push(override.code.slice(0, 8))
                if (override.code.startsWith('0xef0100')) override.code = '0xfe'
              }
          }
          return forward.request({ method, params } as never)
        },
      }),
    })
    const wallet = harness(
      {
        keys: mnemonicKeys({ mnemonic: devMnemonic, addressIndex: [9] }),
        chains: [
          { chainId: prague().anvil.chainId, provider: literal, eip7702: { delegate: prague().delegate } },
        ],
      },
      { approve: () => false },
    )
    await wallet.call(
      'wallet_sendCalls',
      batch(from, [{ to: from, value: 0n, data: encodeExecute([approve(spender, 7n)]) }]),
    )
    const review = wallet.reviews.at(-1)!
    expect(overrides).toEqual(['0xef0100', expect.not.stringMatching(/^0xef0100/)])
    expect(codes(review)).toContain('tx.simulated_approval')
    expect(codes(review)).not.toContain('tx.simulation_reverted')
  })
})

describe('the dataSuffix is simulated with the calls', () => {
  it('a contract that acts on the bytes after its arguments shows what it does with the suffix', async () => {
    const from = devAccounts[5]
    // Runtime code: with any calldata it emits Approval(caller, spender, 2^256-1); without, nothing.
    const suffixSensitive = '0x0000000000000000000000000000000000005f1f'
    const approvalTopic = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925'
    const runtime = concatHex([
      '0x36156066577f',
      toHex(maxUint256),
      '0x60005273',
      spender as Hex,
      '0x337f',
      approvalTopic,
      '0x60206000a3005b00',
    ])
    await prague().rpc('anvil_setCode', [suffixSensitive, runtime])
    const plain = prague().wallet([5], { delegate: false, approve: () => false })
    const call = { to: suffixSensitive, value: 0n, data: '0x' as Hex }
    await plain.call('wallet_sendCalls', batch(from, [call], { atomicRequired: false }))
    expect(codes(plain.reviews.at(-1))).not.toContain('tx.simulated_unlimited_approval')
    await plain.call(
      'wallet_sendCalls',
      batch(from, [call], { atomicRequired: false, capabilities: { dataSuffix: { value: '0x8021' } } }),
    )
    expect(codes(plain.reviews.at(-1))).toContain('tx.simulated_unlimited_approval')
  })
})

/** A random batch: approvals and transfers, and calls to the account that run more of them, nested. */
type Shape = { kind: 'approve'; amount: bigint } | { kind: 'transfer' } | { kind: 'self'; calls: Shape[] }
const shape: fc.Memo<Shape> = fc.memo((depth) =>
  depth <= 1
    ? fc.oneof(
        fc.record({
          kind: fc.constant('approve' as const),
          amount: fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 20n }), fc.constant(maxUint256)),
        }),
        fc.record({ kind: fc.constant('transfer' as const) }),
      )
    : fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        shape(1),
        fc.record({
          kind: fc.constant('self' as const),
          calls: fc.array(shape(depth - 1), { minLength: 1, maxLength: 3 }),
        }),
      ),
)

describe('nested batches of random depth', () => {
  it('every approval at any depth the wallet decodes is shown and flagged; deeper or larger nesting is refused', async () => {
    const from = devAccounts[4]
    const wallet = prague().wallet([4], { approve: () => false })
    await fc.assert(
      fc.asyncProperty(
        // A spine of `depth` nested calls to the account ending in an approval, beside random siblings.
        fc.integer({ min: 1, max: maxSelfCallDepth + 2 }),
        fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 20n }), fc.constant(maxUint256)),
        fc.array(shape(3), { maxLength: 2 }),
        async (depth, amount, siblings) => {
          let spine: Shape = { kind: 'approve', amount }
          for (let level = 0; level < depth; level++)
            spine = { kind: 'self', calls: [spine, ...(level === 0 ? [] : siblings.slice(0, 1))] }
          const calls = [spine, ...siblings]
          let next = 0
          const approvals: { spender: Hex; amount: bigint }[] = []
          let deepest = 0
          let nested = 0
          const build = (entry: Shape, depth: number): { to: string; value: bigint; data: Hex } => {
            if (entry.kind === 'transfer') return { to: recipient, value: 1n, data: '0x' }
            if (entry.kind === 'approve') {
              const who = getAddress(toHex(0x5e0de1n * 2n ** 136n + BigInt(++next), { size: 20 }))
              approvals.push({ spender: who, amount: entry.amount })
              return approve(who, entry.amount)
            }
            deepest = Math.max(deepest, depth + 1)
            nested += entry.calls.length
            return {
              to: from,
              value: 0n,
              data: encodeExecute(entry.calls.map((call) => build(call, depth + 1)) as never),
            }
          }
          const built = calls.map((call) => build(call, 0))
          const before = wallet.reviews.length
          const response = await wallet.call(
            'wallet_sendCalls',
            batch(from, built, { atomicRequired: false }),
          )
          expect(deepest).toBeGreaterThanOrEqual(depth)
          if (deepest > maxSelfCallDepth || nested > maxNestedCalls) {
            expect(errorOf(response)).toMatchObject({
              code: -32602,
              data: { rule: 'calls.self_call_undecoded' },
            })
            expect(wallet.reviews.length).toBe(before)
            return
          }
          expect(errorOf(response).code).toBe(4001)
          const review = wallet.reviews.at(-1)!
          const shown = text(review.items)
          const warnings = JSON.stringify(review.warnings)
          if (deepest > 0) expect(codes(review)).toContain('calls.self_call')
          // A review shows 200 lines: the simulation's approvals come before the calls, which may be cut.
          const cut = shown.includes('"label":"Not shown"')
          for (const { spender: who, amount } of approvals) {
            // Granted in the simulation of the batch as it runs, and decoded where it sits.
            expect(shown).toContain(`${who} may spend`)
            expect(warnings).toContain(`Lets ${who} spend`)
            if (!cut) expect(shown).toContain(`"label":"Spender","value":"${who}"`)
            if (amount === maxUint256) {
              expect(warnings).toContain(`Grants ${who} an unlimited allowance`)
              expect(warnings).toContain(`Lets ${who} spend an unlimited amount`)
            }
          }
        },
      ),
      { numRuns: 50 },
    )
  }, 120_000)
})
