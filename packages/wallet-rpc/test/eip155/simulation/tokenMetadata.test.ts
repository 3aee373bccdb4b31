import { encodeAbiParameters, stringToHex, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { ChainAccess } from '../../../src/eip155/provider.js'
import {
  decimalsOf,
  maxCachedTokens,
  symbolOf,
  tokenMetadata,
} from '../../../src/eip155/simulation/tokenMetadata.js'

const abiString = (text: string) => encodeAbiParameters([{ type: 'string' }], [text])
const abiBytes = (bytes: Uint8Array) => {
  // A `string` return whose bytes are not UTF-8 (viem will not encode those as a string).
  const length = toHex(bytes.length, { size: 32 }).slice(2)
  const body = toHex(bytes)
    .slice(2)
    .padEnd(Math.ceil(bytes.length / 32) * 64, '0')
  return `0x${toHex(32, { size: 32 }).slice(2)}${length}${body}`
}

describe('symbolOf', () => {
  it('reads ABI strings and bytes32 symbols (MKR style)', () => {
    expect(symbolOf(abiString('USDC'))).toBe('USDC')
    expect(symbolOf(stringToHex('MKR', { size: 32 }))).toBe('MKR')
  })

  it('refuses what is not short plain ASCII: non-UTF-8, look-alikes, spaces, control characters, 1 MB', () => {
    expect(symbolOf(abiBytes(new Uint8Array([0xff, 0xfe, 0x41])))).toBeUndefined()
    expect(symbolOf(abiString('USDС'))).toBeUndefined() // Cyrillic С
    expect(symbolOf(abiString('US DC'))).toBeUndefined()
    expect(symbolOf(abiString('USDC\u202e'))).toBeUndefined()
    expect(symbolOf(abiString('A'.repeat(17)))).toBeUndefined()
    expect(symbolOf(abiString('A'.repeat(1 << 20)))).toBeUndefined()
    expect(symbolOf(`0x${'00'.repeat(32)}`)).toBeUndefined()
  })

  it('refuses malformed encodings: wrong offset, length past the data, odd sizes, nothing', () => {
    const valid = abiString('USDC')
    expect(symbolOf(`0x${toHex(64, { size: 32 }).slice(2)}${valid.slice(66)}`)).toBeUndefined()
    expect(
      symbolOf(`${valid.slice(0, 66)}${toHex(2n ** 200n, { size: 32 }).slice(2)}${valid.slice(130)}`),
    ).toBeUndefined()
    expect(symbolOf('0x')).toBeUndefined()
    expect(symbolOf('0x1234')).toBeUndefined()
    expect(symbolOf(undefined)).toBeUndefined()
  })
})

describe('decimalsOf', () => {
  it('a 32-byte word up to 77; anything else is unknown', () => {
    expect(decimalsOf(toHex(6, { size: 32 }))).toBe(6)
    expect(decimalsOf(toHex(77, { size: 32 }))).toBe(77)
    expect(decimalsOf(toHex(78, { size: 32 }))).toBeUndefined()
    expect(decimalsOf(toHex(2n ** 255n, { size: 32 }))).toBeUndefined()
    expect(decimalsOf('0x06')).toBeUndefined()
    expect(decimalsOf(undefined)).toBeUndefined()
  })
})

/** A chain whose eth_call answers per token and selector, counting calls. */
function fakeChain(answer: (token: string, selector: string) => Promise<unknown>) {
  const calls: string[] = []
  const access = new ChainAccess(1, {
    async request({ method, params }) {
      if (method === 'eth_chainId') return '0x1'
      const [{ to, data }] = params as [{ to: string; data: string }]
      calls.push(`${to}:${data}`)
      return answer(to, data)
    },
  })
  return { access, calls }
}

const revert = () => Promise.reject(Object.assign(new Error('execution reverted'), { code: 3 }))

describe('tokenMetadata', () => {
  it('reads once per chain and token; a missing method (revert) is remembered as unknown', async () => {
    const { access, calls } = fakeChain(async (_token, selector) =>
      selector === '0x95d89b41' ? abiString('TKN') : revert(),
    )
    const token = '0x00000000000000000000000000000000000000aA'
    const first = await tokenMetadata(access, token, { timeoutMs: 1000 })
    expect(first).toEqual({ symbol: 'TKN', decimals: undefined })
    expect(await tokenMetadata(access, token.toLowerCase(), { timeoutMs: 1000 })).toBe(first)
    expect(calls).toHaveLength(2)
    // Another chain (another ChainAccess) has its own cache.
    const second = fakeChain(async () => revert())
    expect(await tokenMetadata(second.access, token, { timeoutMs: 1000 })).toEqual({
      symbol: undefined,
      decimals: undefined,
    })
  })

  it('a node failure or timeout is not remembered: asked again next time', async () => {
    let failing = true
    const { access, calls } = fakeChain(async (_token, selector) => {
      if (failing)
        return selector === '0x95d89b41' ? new Promise(() => {}) : Promise.reject(new Error('socket hang up'))
      return selector === '0x95d89b41' ? abiString('TKN') : toHex(6, { size: 32 })
    })
    const token = '0x00000000000000000000000000000000000000bb'
    expect(await tokenMetadata(access, token, { timeoutMs: 50 })).toEqual({
      symbol: undefined,
      decimals: undefined,
    })
    failing = false
    expect(await tokenMetadata(access, token, { timeoutMs: 1000 })).toEqual({ symbol: 'TKN', decimals: 6 })
    expect(calls).toHaveLength(4)
  })

  it('an address without code (empty answers) is not remembered: it may be deployed later', async () => {
    let deployed = false
    const { access, calls } = fakeChain(async (_token, selector) =>
      !deployed ? '0x' : selector === '0x95d89b41' ? abiString('NEW') : toHex(18, { size: 32 }),
    )
    const token = '0x00000000000000000000000000000000000000cc'
    expect(await tokenMetadata(access, token, { timeoutMs: 1000 })).toEqual({
      symbol: undefined,
      decimals: undefined,
    })
    deployed = true
    expect(await tokenMetadata(access, token, { timeoutMs: 1000 })).toEqual({ symbol: 'NEW', decimals: 18 })
    expect(calls).toHaveLength(4)
  })

  it('the cache is bounded: past maxCachedTokens the oldest token is read again', async () => {
    const { access, calls } = fakeChain(async () => toHex(18, { size: 32 }))
    const address = (index: number) => `0x${index.toString(16).padStart(40, '0')}`
    for (let index = 0; index <= maxCachedTokens; index++)
      await tokenMetadata(access, address(index), { timeoutMs: 1000 })
    expect(calls).toHaveLength(2 * (maxCachedTokens + 1))
    await tokenMetadata(access, address(maxCachedTokens), { timeoutMs: 1000 })
    expect(calls).toHaveLength(2 * (maxCachedTokens + 1))
    await tokenMetadata(access, address(0), { timeoutMs: 1000 })
    expect(calls).toHaveLength(2 * (maxCachedTokens + 2))
  })
})
