import * as v from 'valibot'
import { InvalidParamsError, PolicyRefusedError, UnauthorizedError } from '../core/errors.js'
import type { RequestContext } from '../core/namespace.js'
import { parseAnyAddress } from './address.js'
import { type FastCell, fromCoreCell } from './cells.js'
import { readBoc } from './readBoc.js'
import { type Address, Cell } from './tonCore.js'

/**
 * The WalletConnect TON docs put the payload in a one-element array; @tonconnect/sdk and AppKit send the
 * bare object (AppKit even mixes both). Either is accepted; anything else is refused with a clear reason.
 */
export function oneObject<Output>(schema: v.GenericSchema<unknown, Output>) {
  return v.pipe(
    v.unknown(),
    v.check(
      (params) => !Array.isArray(params) || params.length === 1,
      'params must be one object, or an array holding exactly one object',
    ),
    v.transform((params) => (Array.isArray(params) ? (params[0] as unknown) : params)),
    schema,
  )
}

/** TON Connect's `network`: "-239" or "-3" (a number is tolerated). */
export const networkField = v.optional(
  v.union([
    v.pipe(v.string(), v.regex(/^-?\d{1,10}$/, 'must be a chain id like "-239"')),
    v.pipe(v.number(), v.integer()),
  ]),
)

/** The chain is the WalletConnect chainId; a `network` in the payload must name the same chain. */
export function checkNetwork(context: RequestContext, network: string | number | undefined): void {
  if (network === undefined) return
  if (String(network) !== context.reference) {
    throw new PolicyRefusedError(
      `payload network ${network} does not match the request chain ${context.chainId}`,
      {
        rule: 'ton.network_mismatch',
      },
    )
  }
}

/** `from` (raw or friendly) must be this wallet: workchain and hash compared, flags ignored. */
export function checkFrom(from: string | undefined, wallet: Address): void {
  if (from === undefined) return
  if (!parseAnyAddress(from, 'from').equals(wallet)) throw new UnauthorizedError(from)
}

const base64 = /^[A-Za-z0-9+/_-]+={0,2}$/

/** A base64 BoC holding exactly one root cell; both base64 alphabets are accepted (@tonconnect/sdk normalises, others may not). */
export function parseBoc(text: string, path: string): Cell {
  if (!base64.test(text)) throw new InvalidParamsError('must be a base64 BoC', { path })
  try {
    const cells = Cell.fromBoc(Buffer.from(text, 'base64'))
    if (cells.length !== 1) throw new Error('roots')
    return cells[0]!
  } catch {
    throw new InvalidParamsError('must be a BoC with exactly one root cell', { path })
  }
}

/**
 * `parseBoc` as FastCells: the canonical BoCs dapps send are read without @ton/core (see readBoc.ts), the
 * rest through it, so what is accepted or refused does not change.
 */
export function parseFastBoc(text: string, path: string): FastCell {
  if (!base64.test(text)) throw new InvalidParamsError('must be a base64 BoC', { path })
  return readBoc(Buffer.from(text, 'base64')) ?? fromCoreCell(parseBoc(text, path))
}
