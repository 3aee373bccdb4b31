import fc from 'fast-check'
import { encodeAbiParameters, encodeErrorResult } from 'viem'
import { describe, expect, it } from 'vitest'
import { ChainAccess } from '../../../src/eip155/provider.js'
import { reviewSimulation } from '../../../src/eip155/simulation/reviewSimulation.js'
import { simulate } from '../../../src/eip155/simulation/simulate.js'

const call = {
  from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  to: '0x000000000000000000000000000000000000dEaD',
  value: 1n,
  data: '0x',
  gas: 30_000n,
} as const
const nope = encodeErrorResult({
  abi: [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }],
  errorName: 'Error',
  args: ['nope'],
})

/** A node answering eth_simulateV1 and eth_call as given, recording the requests. */
function node(answers: Record<string, (params: unknown) => Promise<unknown>>) {
  const requests: { method: string; params: unknown }[] = []
  const access = new ChainAccess(1, {
    async request({ method, params }) {
      if (method === 'eth_chainId') return '0x1'
      requests.push({ method, params })
      const answer = answers[method]
      if (answer === undefined) throw Object.assign(new Error('Method not found'), { code: -32601 })
      return answer(params)
    },
  })
  return { access, requests }
}

const oneCall = (result: unknown) => async () => [{ number: '0x1', calls: [result] }]

describe('simulate', () => {
  it('asks eth_simulateV1 with traceTransfers and validation off, on the latest block, with the gas limit', async () => {
    const { access, requests } = node({
      eth_simulateV1: oneCall({ status: '0x1', logs: [], returnData: '0x' }),
    })
    expect(await simulate(access, call, { timeoutMs: 1000 })).toEqual({
      status: 'success',
      via: 'eth_simulateV1',
      logs: [],
    })
    expect(requests).toEqual([
      {
        method: 'eth_simulateV1',
        params: [
          {
            blockStateCalls: [
              { calls: [{ from: call.from, to: call.to, value: '0x1', data: '0x', gas: '0x7530' }] },
            ],
            traceTransfers: true,
            validation: false,
          },
          'latest',
        ],
      },
    ])
  })

  it('a geth-shaped revert (status 0x0, error code 3, revert data in returnData) gives the reason', async () => {
    const { access } = node({
      eth_simulateV1: oneCall({
        status: '0x0',
        returnData: nope,
        gasUsed: '0x5a3c',
        logs: [],
        error: { code: 3, message: 'execution reverted', data: nope },
      }),
    })
    expect(await simulate(access, call, { timeoutMs: 1000 })).toEqual({
      status: 'reverted',
      via: 'eth_simulateV1',
      reason: 'nope',
    })
  })

  it('a failure without revert data: out of gas when all gas went, else the node words', async () => {
    const outOfGas = node({ eth_simulateV1: oneCall({ status: '0x0', returnData: '0x', gasUsed: '0x7530' }) })
    expect(await simulate(outOfGas.access, call, { timeoutMs: 1000 })).toMatchObject({
      reason: 'out of gas (all 30000 used)',
    })
    const other = node({
      eth_simulateV1: oneCall({
        status: '0x0',
        returnData: '0x',
        gasUsed: '0x10',
        error: { message: 'bad\ninstruction' },
      }),
    })
    expect(await simulate(other.access, call, { timeoutMs: 1000 })).toMatchObject({
      reason: 'badinstruction',
    })
  })

  it('nonsense answers are unavailable, never a success', async () => {
    for (const answer of [
      null,
      [],
      [{}],
      [{ calls: [] }],
      [{ calls: [null] }],
      'ok',
      [{ calls: [{ status: '0x2' }] }],
    ]) {
      const { access } = node({ eth_simulateV1: async () => answer })
      expect((await simulate(access, call, { timeoutMs: 1000 })).status).toBe('unavailable')
    }
  })

  it('falls back to eth_call only when the method is missing (code or words), and reads its revert data', async () => {
    for (const missing of [
      Object.assign(new Error('Method not found'), { code: -32601 }),
      Object.assign(new Error('eth_simulateV1 is not supported'), { code: -32000 }),
      { code: -32004, message: 'method not available' },
    ]) {
      const { access, requests } = node({
        eth_simulateV1: () => Promise.reject(missing),
        eth_call: () => Promise.reject({ code: 3, message: 'execution reverted', data: nope }),
      })
      expect(await simulate(access, call, { timeoutMs: 1000 })).toEqual({
        status: 'reverted',
        via: 'eth_call',
        reason: 'nope',
      })
      expect(requests.map((request) => request.method)).toEqual(['eth_simulateV1', 'eth_call'])
    }
    const words = node({
      eth_call: () => Promise.reject({ code: -32000, message: 'execution reverted: not enough' }),
    })
    expect(await simulate(words.access, call, { timeoutMs: 1000 })).toMatchObject({ reason: 'not enough' })
    const fine = node({ eth_call: async () => '0x' })
    expect(await simulate(fine.access, call, { timeoutMs: 1000 })).toEqual({
      status: 'success',
      via: 'eth_call',
    })
  })

  it('other failures are unavailable with the node words (no URL), and no fallback', async () => {
    const { access, requests } = node({
      eth_simulateV1: () =>
        Promise.reject(Object.assign(new Error('fetch failed: https://key@node.example'), {})),
    })
    expect(await simulate(access, call, { timeoutMs: 1000 })).toEqual({
      status: 'unavailable',
      reason: 'eth_simulateV1 failed: provider request failed',
    })
    expect(requests).toHaveLength(1)
    const wrongChain = new ChainAccess(5, { request: async () => '0x1' })
    expect(await simulate(wrongChain, call, { timeoutMs: 1000 })).toEqual({
      status: 'unavailable',
      reason: 'eth_simulateV1 failed: provider serves chain 1, configured as eip155:5',
    })
  })

  it('one time budget for both calls', async () => {
    const { access } = node({
      eth_simulateV1: () => Promise.reject({ code: -32601, message: 'Method not found' }),
      eth_call: () => new Promise(() => {}),
    })
    expect(await simulate(access, call, { timeoutMs: 50 })).toEqual({
      status: 'unavailable',
      reason: 'the node did not answer within 50 ms',
    })
  })
})

describe("reviewSimulation: a token symbol that reads as the native coin's", () => {
  it('"P0L" or "pol" on a POL chain is tx.token_symbol_lookalike, "POLY" is not', async () => {
    const token = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
    const word = (hex: string) => hex.toLowerCase().padStart(64, '0')
    const transfer = {
      address: token,
      topics: [
        '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
        `0x${word(call.from.slice(2))}`,
        `0x${word(call.to.slice(2))}`,
      ],
      data: `0x${word('1')}`,
    }
    for (const [symbol, lookalike] of [
      ['P0L', true],
      ['pol', true],
      ['POLY', false],
    ] as const) {
      const { access } = node({
        eth_simulateV1: oneCall({ status: '0x1', returnData: '0x', logs: [transfer] }),
        eth_call: async (params) =>
          (params as [{ data: string }])[0].data === '0x95d89b41'
            ? encodeAbiParameters([{ type: 'string' }], [symbol])
            : `0x${word('12')}`,
      })
      const section = await reviewSimulation(access, call, 'POL', {
        timeoutMs: 1000,
        maxLogs: 4,
        maxTokenLookups: 2,
      })
      expect(section.warnings.map((warning) => warning.code)).toEqual(
        lookalike ? ['tx.token_symbol_lookalike'] : [],
      )
    }
  })
})

describe('reviewSimulation never throws, whatever the node answers (property)', () => {
  it('random eth_simulateV1 answers and errors, random token metadata answers', async () => {
    const log = fc.record({
      address: fc.constantFrom(
        '0x5fbdb2315678afecb367f032d93f642f64180aa3',
        '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee',
      ),
      topics: fc.array(
        fc.constantFrom(
          '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
          '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925',
          `0x${call.from.slice(2).toLowerCase().padStart(64, '0')}`,
          `0x${'ff'.repeat(32)}`,
        ),
        { maxLength: 5 },
      ),
      data: fc.constantFrom('0x', `0x${'ff'.repeat(32)}`, `0x${'00'.repeat(31)}01`, '0x1'),
    })
    const callResult = fc.record(
      {
        status: fc.constantFrom('0x1', '0x0', '0x2', 1, null),
        returnData: fc.oneof(fc.constantFrom('0x', nope, '0x08c379a0', 'zz'), fc.anything()),
        gasUsed: fc.oneof(fc.constantFrom('0x7530', '0x1', '0x'), fc.anything()),
        logs: fc.oneof(fc.array(fc.oneof(log, fc.anything()), { maxLength: 8 }), fc.anything()),
        error: fc.anything(),
      },
      { requiredKeys: [] },
    )
    const answer = fc.oneof(
      fc.array(fc.record({ calls: fc.array(callResult, { maxLength: 2 }) }), { maxLength: 2 }),
      fc.anything(),
    )
    const failure = fc.oneof(
      fc.record({ code: fc.constantFrom(-32601, 3, -32000, 'x'), message: fc.string(), data: fc.anything() }),
      fc.anything(),
    )
    const metadata = fc.oneof(
      fc.constantFrom('0x', `0x${'00'.repeat(31)}06`, `0x${'41'.repeat(32)}`),
      fc.anything(),
    )
    await fc.assert(
      fc.asyncProperty(answer, fc.option(failure), metadata, async (simulated, thrown, tokenAnswer) => {
        const access = new ChainAccess(1, {
          async request({ method }) {
            if (method === 'eth_chainId') return '0x1'
            if (method === 'eth_simulateV1') {
              if (thrown !== null) throw thrown
              return simulated
            }
            return tokenAnswer
          },
        })
        const section = await reviewSimulation(access, call, 'ETH', {
          timeoutMs: 1000,
          maxLogs: 4,
          maxTokenLookups: 2,
        })
        expect(section.items.length).toBeGreaterThan(0)
        for (const warning of section.warnings)
          expect(['info', 'caution', 'danger']).toContain(warning.severity)
      }),
      { numRuns: 300 },
    )
  })
})
