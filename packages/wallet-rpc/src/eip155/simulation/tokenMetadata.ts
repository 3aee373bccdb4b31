import { decodeUtf8Strict } from '../../core/utf8.js'
import type { ChainAccess } from '../provider.js'
import { isRevert, nodeErrorOf } from './nodeError.js'
import { SimulationTimeout, within } from './within.js'

/** A token's symbol and decimals as its contract reports them: display only, never an identity. */
export type TokenMetadata = { symbol: string | undefined; decimals: number | undefined }

/** Tokens remembered per chain; past it the oldest entry goes. */
export const maxCachedTokens = 512
/** A symbol is kept only as short plain ASCII: no spaces, look-alike letters or control characters. */
const plainSymbol = /^[A-Za-z0-9.$_+-]{1,16}$/
/** Answers longer than this are not decoded (a `string` return of 64 bytes takes 160). */
const maxAnswerBytes = 256

const selectors = { symbol: '0x95d89b41', decimals: '0x313ce567' } as const

const cache = new WeakMap<ChainAccess, Map<string, Promise<TokenMetadata>>>()

/**
 * `symbol()` and `decimals()` of `token`, read with eth_call and cached per chain and address. A method the
 * contract lacks (it reverts) or an answer that is not plain leaves that field undefined, and is cached
 * too; a node that fails or exceeds `timeoutMs`, or an address without code (empty answer), leaves it
 * undefined and is asked again next time.
 * `symbol` may be a `string` or, as in early tokens (MKR), a `bytes32`. Never throws.
 */
export function tokenMetadata(
  access: ChainAccess,
  token: string,
  options: { timeoutMs: number },
): Promise<TokenMetadata> {
  let tokens = cache.get(access)
  if (tokens === undefined) {
    tokens = new Map()
    cache.set(access, tokens)
  }
  const key = token.toLowerCase()
  const known = tokens.get(key)
  if (known !== undefined) return known
  const lookup = read(access, key, options.timeoutMs).then(({ metadata, definitive }) => {
    if (!definitive) tokens.delete(key)
    return metadata
  })
  tokens.set(key, lookup)
  if (tokens.size > maxCachedTokens) tokens.delete(tokens.keys().next().value as string)
  return lookup
}

async function read(
  access: ChainAccess,
  token: string,
  timeoutMs: number,
): Promise<{ metadata: TokenMetadata; definitive: boolean }> {
  let definitive = true
  const call = async (selector: string): Promise<string | undefined> => {
    try {
      const answer = await within(
        access.verifiedRequest('eth_call', [{ to: token, data: selector }, 'latest']),
        timeoutMs,
      )
      // No code there yet (a token the transaction itself deploys): asked again next time.
      if (answer === '0x') definitive = false
      return typeof answer === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(answer)
        ? answer.toLowerCase()
        : undefined
    } catch (error) {
      if (error instanceof SimulationTimeout || !isRevert(nodeErrorOf(error))) definitive = false
      return undefined
    }
  }
  const [symbol, decimals] = await Promise.all([call(selectors.symbol), call(selectors.decimals)])
  return { metadata: { symbol: symbolOf(symbol), decimals: decimalsOf(decimals) }, definitive }
}

/** `string` (ABI-encoded) or `bytes32` (right-padded with zeros), then UTF-8, then the plain-text check. */
export function symbolOf(answer: string | undefined): string | undefined {
  if (answer === undefined) return undefined
  const hex = answer.slice(2)
  if (hex.length > maxAnswerBytes * 2) return undefined
  let bytes: string
  if (hex.length === 64) bytes = hex.replace(/(00)+$/, '')
  else {
    if (hex.length < 128 || BigInt(`0x${hex.slice(0, 64)}`) !== 32n) return undefined
    const length = BigInt(`0x${hex.slice(64, 128)}`)
    if (length * 2n > BigInt(hex.length - 128)) return undefined
    bytes = hex.slice(128, 128 + Number(length) * 2)
  }
  const text = decodeUtf8Strict(hexBytes(bytes))
  if (text === undefined) return undefined
  return plainSymbol.test(text) ? text : undefined
}

/** A `uint8` (any 32-byte word up to 77: a uint256 has 78 digits); anything else is undefined. */
export function decimalsOf(answer: string | undefined): number | undefined {
  if (answer === undefined || answer.length !== 66) return undefined
  const value = BigInt(answer)
  return value <= 77n ? Number(value) : undefined
}

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2)
  for (let index = 0; index < bytes.length; index++)
    bytes[index] = Number.parseInt(hex.slice(index * 2, index * 2 + 2), 16)
  return bytes
}
