import { group, item, type ReviewItem } from '../core/review.js'
import { friendly } from './address.js'
import { CellSlice } from './cellSlice.js'
import type { FastCell } from './cells.js'
import { type Address, fromNano } from './tonCore.js'

/** Well-known message body opcodes (TEP-74 jettons, TEP-62 NFTs, wallet comments). */
const opcodes = {
  comment: 0x00000000,
  encryptedComment: 0x2167da4b,
  jettonTransfer: 0x0f8a7ea5,
  nftTransfer: 0x5fcc3d14,
} as const

type DecodedPayload = {
  /** What the review shows for the payload. */
  item: ReviewItem
  /** True when the payload is a call the wallet cannot explain to its user. */
  opaque: boolean
}

const hex32 = (op: number) => `0x${op.toString(16).padStart(8, '0')}`

function comment(slice: CellSlice): string | undefined {
  const text = slice.loadStringTail()
  return /^[^\p{Cc}]*$/u.test(text.replace(/[\n\t]/g, ' ')) ? text : undefined
}

function forwardPayload(slice: CellSlice): ReviewItem[] {
  // forward_payload:(Either Cell ^Cell)
  const body = slice.loadBit() ? new CellSlice(slice.loadRef()) : slice
  if (body.remainingBits < 32) return []
  const op = body.loadUint(32)
  if (op === opcodes.comment) {
    const text = comment(body)
    return text === undefined ? [] : [item('Forward comment', text)]
  }
  return [item('Forward payload op', hex32(op))]
}

const showAddress = (address: Address | null, chainId: string) =>
  address === null ? 'none' : friendly(address, chainId, true)

/**
 * The tail TEP-74 jetton and TEP-62 NFT transfers share after their own fields: response_destination,
 * custom_payload:(Maybe ^Cell), forward_ton_amount, forward_payload. `head` lists the fields before it.
 */
function transfer(
  title: string,
  queryId: bigint,
  head: ReviewItem[],
  slice: CellSlice,
  chainId: string,
): DecodedPayload {
  const responseDestination = slice.loadMaybeAddress()
  const hasCustomPayload = slice.loadBit()
  if (hasCustomPayload) slice.loadRef()
  const forwardTon = slice.loadCoins()
  return {
    item: group(title, [
      ...head,
      item('Excess to', showAddress(responseDestination, chainId)),
      item('Forward TON', `${fromNano(forwardTon)} TON`),
      ...forwardPayload(slice),
      ...(hasCustomPayload ? [item('Custom payload', 'present')] : []),
      item('Query id', queryId.toString()),
    ]),
    opaque: false,
  }
}

/**
 * What a message body does, in words: a text comment, a jetton or NFT transfer (TEP-74 / TEP-62), or an
 * opaque call named by its opcode. Never throws: a body that does not parse as what its opcode claims is
 * shown as opaque.
 */
export function decodePayload(body: FastCell, chainId: string): DecodedPayload {
  const hash = Buffer.from(body.hash).toString('hex')
  if (body.exotic) return { item: item('Payload', `exotic cell, cell hash ${hash}`), opaque: true }
  const slice = new CellSlice(body)
  if (slice.remainingBits < 32) {
    return { item: item('Payload', `${slice.remainingBits} bits, no opcode`), opaque: true }
  }
  const op = slice.loadUint(32)
  try {
    if (op === opcodes.comment) {
      const text = comment(slice)
      if (text !== undefined) return { item: item('Comment', text), opaque: false }
    } else if (op === opcodes.encryptedComment) {
      return { item: item('Payload', 'encrypted comment'), opaque: false }
    } else if (op === opcodes.jettonTransfer) {
      const queryId = slice.loadUintBig(64)
      const amount = slice.loadCoins()
      const destination = slice.loadAddress()
      return transfer(
        'Jetton transfer',
        queryId,
        [
          item('Jetton amount (base units)', amount.toString()),
          item('Recipient', friendly(destination, chainId, true)),
        ],
        slice,
        chainId,
      )
    } else if (op === opcodes.nftTransfer) {
      const queryId = slice.loadUintBig(64)
      const newOwner = slice.loadAddress()
      return transfer(
        'NFT transfer',
        queryId,
        [item('New owner', friendly(newOwner, chainId, true))],
        slice,
        chainId,
      )
    }
  } catch {
    // Falls through to the opaque description below.
  }
  return {
    item: item('Payload', `contract call, opcode ${hex32(op)}, cell hash ${hash}`),
    opaque: true,
  }
}
