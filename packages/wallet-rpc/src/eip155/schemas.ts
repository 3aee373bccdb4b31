import * as v from 'valibot'
import type { Address, Hex } from 'viem'
import { getAddress, isAddress } from './viemUtils.js'

/**
 * Strict leaf schemas for Ethereum JSON-RPC params (execution-apis encoding). Wallets in the field have
 * read `"1000"` as hex and decimal strings as wei (see research/ethereum.md §6.5), and viem signs values
 * wider than 256 bits and pads odd-length data, so every number and byte string is checked here before
 * anything else sees it.
 */

const quantityPattern = /^0x(?:0|[1-9a-fA-F][0-9a-fA-F]*)$/
const dataPattern = /^0x(?:[0-9a-fA-F]{2})*$/

export const maxUint256 = 2n ** 256n - 1n
export const maxUint64 = 2n ** 64n - 1n

/** A 20-byte address; mixed case must carry a valid EIP-55 checksum. Output is checksummed. */
export const addressSchema = v.pipe(
  v.string('must be an address string'),
  v.check(
    (text) => isAddress(text, { strict: true }),
    'must be a 0x-prefixed 20-byte address (a valid EIP-55 checksum when mixed case)',
  ),
  v.transform((text) => getAddress(text) as Address),
)

/** A QUANTITY: `0x`-prefixed hex, no leading zeros, not above `max`. Decimal strings and numbers are refused. */
export function quantitySchema(max: bigint, bound: string) {
  const maxDigits = max.toString(16).length
  return v.pipe(
    v.string('must be a 0x-prefixed hex quantity string'),
    v.regex(quantityPattern, 'must be a 0x-prefixed hex quantity without leading zeros'),
    v.check((text) => text.length - 2 <= maxDigits && BigInt(text) <= max, `must not exceed ${bound}`),
    v.transform((text) => BigInt(text)),
  )
}

/** DATA: `0x`-prefixed hex with an even number of digits (viem would silently left-pad an odd one). */
export const dataSchema = v.pipe(
  v.string('must be a 0x-prefixed hex string'),
  v.regex(dataPattern, 'must be 0x-prefixed hex with an even number of digits'),
  v.transform((text) => text.toLowerCase() as Hex),
)

export const bytes32Schema = v.pipe(
  v.string('must be a 32-byte hex string'),
  v.regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x-prefixed hex of exactly 32 bytes'),
  v.transform((text) => text.toLowerCase() as Hex),
)

export const isData = (text: string): text is Hex => dataPattern.test(text)
