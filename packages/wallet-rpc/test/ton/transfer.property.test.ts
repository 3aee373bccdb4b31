import {
  Address,
  beginCell,
  type Cell,
  external,
  internal,
  type MessageRelaxed,
  storeMessage,
} from '@ton/core'
import { keyPairFromSeed } from '@ton/crypto'
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fastBoc, fromCoreCell } from '../../src/ton/cells.js'
import { loadNodeEd25519, normalizedMessageHash, walletContract } from '../../src/ton/index.js'
import { type FastMessage, fastExternalMessage, fastUnsignedTransfer } from '../../src/ton/transfer.js'
import { fixtureSeedHex } from './fixtures.js'

/**
 * The FastCell signing path (cells.ts, transfer.ts) against @ton/ton's wallet contracts and @ton/core's
 * cells on random transfers: destinations, amounts, bounce flags, and bodies of random shape (inline or in a
 * reference, nested references). Same signed body, same external message BoC, same two hashes.
 */
const seed = new Uint8Array(Buffer.from(fixtureSeedHex, 'hex'))
const pair = keyPairFromSeed(Buffer.from(seed))
const key = loadNodeEd25519()!.fromSeed(seed)

/** A random ordinary cell tree, at most `depth` deep. */
const cellArbitrary = (depth: number): fc.Arbitrary<Cell> =>
  fc
    .tuple(
      fc.array(fc.boolean(), { maxLength: depth === 3 ? 900 : 300 }),
      depth === 0 ? fc.constant([]) : fc.array(cellArbitrary(depth - 1), { maxLength: 2 }),
    )
    .map(([bits, refs]) => {
      const builder = beginCell()
      for (const bit of bits) builder.storeBit(bit)
      for (const ref of refs) builder.storeRef(ref)
      return builder.endCell()
    })

const message: fc.Arbitrary<MessageRelaxed> = fc
  .record({
    workchain: fc.constantFrom(0, -1),
    hash: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    value: fc.bigInt({ min: 1n, max: (1n << 120n) - 1n }),
    bounce: fc.boolean(),
    body: fc.option(cellArbitrary(3), { nil: undefined }),
  })
  .map(({ workchain, hash, value, bounce, body }) =>
    internal({
      to: new Address(workchain, Buffer.from(hash)),
      value,
      bounce,
      ...(body === undefined ? {} : { body }),
    }),
  )

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

/** What ton_sendMessage gives the fast path for a message `internal({ to, value, bounce, body })` made. */
const fastMessage = ({ info, body }: MessageRelaxed): FastMessage => {
  if (info.type !== 'internal' || !Address.isAddress(info.dest)) throw new Error('internal messages only')
  return { to: info.dest, value: info.value.coins, bounce: info.bounce, body: fromCoreCell(body) }
}

describe('FastCell transfers against @ton/ton and @ton/core', () => {
  it('hashes and serialises random cells as @ton/core does', () => {
    fc.assert(
      fc.property(cellArbitrary(3), (cell) => {
        const fast = fromCoreCell(cell)
        expect(hex(fast.hash)).toBe(cell.hash().toString('hex'))
        expect(hex(fastBoc(fast))).toBe(cell.toBoc().toString('hex'))
      }),
      { numRuns: 200 },
    )
  })

  for (const version of ['v4r2', 'v5r1'] as const) {
    it(`${version}: the signed body, external BoC and hashes @ton/ton and @ton/core give`, () => {
      const contract = walletContract(pair.publicKey, { version })
      const reference: {
        createTransfer(args: {
          seqno: number
          secretKey: Buffer
          messages: MessageRelaxed[]
          sendMode: number
          timeout: number
        }): Cell
      } =
        version === 'v4r2'
          ? WalletContractV4.create({ workchain: 0, publicKey: pair.publicKey })
          : WalletContractV5R1.create({ workchain: 0, publicKey: pair.publicKey })
      fc.assert(
        fc.property(
          fc.array(message, { minLength: 1, maxLength: version === 'v4r2' ? 4 : 6 }),
          fc.nat({ max: 0xffffffff }),
          fc.integer({ min: 1, max: 0xffffffff }),
          (messages, seqno, validUntil) => {
            const request = { seqno, validUntil, sendMode: 3, messages: messages.map(fastMessage) }
            const unsigned = fastUnsignedTransfer(contract, request)!
            const signed = fastExternalMessage(contract, unsigned, key.sign(unsigned.hash) as Uint8Array)
            const body = reference.createTransfer({
              seqno,
              secretKey: pair.secretKey,
              messages,
              sendMode: 3,
              timeout: validUntil,
            })
            const ours = contract.externalMessage(body, false)
            const theirs = beginCell()
              .store(storeMessage(external({ to: contract.address, body })))
              .endCell()
            expect(hex(signed.boc)).toBe(theirs.toBoc().toString('hex'))
            expect(hex(signed.boc)).toBe(ours.toBoc().toString('hex'))
            expect(hex(signed.hash)).toBe(theirs.hash().toString('hex'))
            expect(hex(signed.normalizedHash())).toBe(hex(normalizedMessageHash(theirs)))
          },
        ),
        { numRuns: 60 },
      )
    })
  }

  it('hands an exotic body (or one holding an exotic cell) or a wallet without send mode +2 back to @ton/core', () => {
    const contract = walletContract(pair.publicKey, { version: 'v5r1' })
    const library = beginCell().storeUint(2, 8).storeBuffer(Buffer.alloc(32)).endCell({ exotic: true })
    const message = (body?: Cell): FastMessage => ({
      to: contract.address,
      value: 1n,
      bounce: true,
      body: body === undefined ? undefined : fromCoreCell(body),
    })
    const request = { seqno: 1, validUntil: 2, sendMode: 3 }
    expect(fastUnsignedTransfer(contract, { ...request, messages: [message()] })).toBeDefined()
    expect(fastUnsignedTransfer(contract, { ...request, messages: [message(library)] })).toBeUndefined()
    const holdsLibrary = beginCell().storeUint(1, 8).storeRef(library).endCell()
    expect(fastUnsignedTransfer(contract, { ...request, messages: [message(holdsLibrary)] })).toBeUndefined()
    expect(fastUnsignedTransfer(contract, { ...request, sendMode: 1, messages: [message()] })).toBeUndefined()
  })
})
