import { Address, beginCell, type Cell, comment } from '@ton/core'
import { describe, expect, it } from 'vitest'
import { fromCoreCell } from '../../src/ton/cells.js'
import { decodePayload as decodeFastCell } from '../../src/ton/payloadReview.js'
import { bounceableDestination, plainDestination } from './fixtures.js'

const owner = Address.parse(plainDestination)
const excess = Address.parse(bounceableDestination)
const decodePayload = (cell: Cell, chainId: string) => decodeFastCell(fromCoreCell(cell), chainId)

describe('payload decoding for reviews', () => {
  it('text comment', () => {
    expect(decodePayload(comment('Invoice #12'), 'ton:-239')).toEqual({
      item: { label: 'Comment', value: 'Invoice #12' },
      opaque: false,
    })
  })

  it('jetton transfer (TEP-74): amount, recipient, excess, forward TON and comment', () => {
    const body = beginCell()
      .storeUint(0x0f8a7ea5, 32)
      .storeUint(77, 64)
      .storeCoins(1_000_000n)
      .storeAddress(owner)
      .storeAddress(excess)
      .storeBit(0)
      .storeCoins(5n)
      .storeBit(1)
      .storeRef(comment('for coffee'))
      .endCell()
    const decoded = decodePayload(body, 'ton:-239')
    expect(decoded.opaque).toBe(false)
    expect(decoded.item).toEqual({
      label: 'Jetton transfer',
      items: [
        { label: 'Jetton amount (base units)', value: '1000000' },
        { label: 'Recipient', value: owner.toString({ bounceable: true, urlSafe: true }) },
        { label: 'Excess to', value: excess.toString({ bounceable: true, urlSafe: true }) },
        { label: 'Forward TON', value: '0.000000005 TON' },
        { label: 'Forward comment', value: 'for coffee' },
        { label: 'Query id', value: '77' },
      ],
    })
  })

  it('NFT transfer (TEP-62): new owner on testnet shows the test-only form', () => {
    const body = beginCell()
      .storeUint(0x5fcc3d14, 32)
      .storeUint(1, 64)
      .storeAddress(owner)
      .storeAddress(null)
      .storeBit(0)
      .storeCoins(0n)
      .storeBit(0)
      .endCell()
    const decoded = decodePayload(body, 'ton:-3')
    expect(decoded.opaque).toBe(false)
    expect(decoded.item).toMatchObject({
      label: 'NFT transfer',
      items: [
        { label: 'New owner', value: owner.toString({ bounceable: true, testOnly: true, urlSafe: true }) },
        { label: 'Excess to', value: 'none' },
        { label: 'Forward TON', value: '0 TON' },
        { label: 'Query id', value: '1' },
      ],
    })
  })

  it('opaque calls, truncated transfers and short bodies are flagged, never thrown', () => {
    const unknown = decodePayload(beginCell().storeUint(0x12345678, 32).endCell(), 'ton:-239')
    expect(unknown.opaque).toBe(true)
    expect((unknown.item as { value: string }).value).toMatch(
      /^contract call, opcode 0x12345678, cell hash [0-9a-f]{64}$/,
    )
    const truncated = decodePayload(
      beginCell().storeUint(0x0f8a7ea5, 32).storeUint(1, 10).endCell(),
      'ton:-239',
    )
    expect(truncated.opaque).toBe(true)
    expect(decodePayload(beginCell().storeUint(1, 8).endCell(), 'ton:-239')).toEqual({
      item: { label: 'Payload', value: '8 bits, no opcode' },
      opaque: true,
    })
    expect(decodePayload(beginCell().storeUint(0x2167da4b, 32).endCell(), 'ton:-239').opaque).toBe(false)
    const library = beginCell().storeUint(2, 8).storeBuffer(Buffer.alloc(32, 1)).endCell({ exotic: true })
    expect(decodePayload(library, 'ton:-239')).toEqual({
      item: { label: 'Payload', value: `exotic cell, cell hash ${library.hash().toString('hex')}` },
      opaque: true,
    })
    const inExoticRef = beginCell().storeUint(0x0f8a7ea5, 32).storeUint(1, 64).storeRef(library).endCell()
    expect(decodePayload(inExoticRef, 'ton:-239').opaque).toBe(true)
  })
})
