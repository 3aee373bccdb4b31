import { encodeErrorResult } from 'viem'
import { describe, expect, it } from 'vitest'
import { ChainAccess } from '../../../src/eip155/chains.js'
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
