import {
  Address,
  beginCell,
  Cell,
  comment,
  internal,
  loadMessage,
  loadOutList,
  type MessageRelaxed,
  storeStateInit,
} from '@ton/core'
import { keyPairFromSeed } from '@ton/crypto'
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton'
import { describe, expect, it } from 'vitest'
import {
  normalizedMessageHash,
  tweetnaclEd25519,
  v5r1WalletId,
  walletCodeHashes,
  walletContract,
} from '../../src/ton/index.js'
import { bounceableDestination, fixtureSeedHex, plainDestination, vectors } from './fixtures.js'

const pair = keyPairFromSeed(Buffer.from(fixtureSeedHex, 'hex'))
const key = tweetnaclEd25519.fromSeed(new Uint8Array(Buffer.from(fixtureSeedHex, 'hex')))
const publicKey = new Uint8Array(pair.publicKey)

/** The part of @ton/ton's two wallet classes the comparison uses, so either is called the same way. */
type ReferenceWallet = {
  init: { code: Cell; data: Cell }
  address: Address
  createTransfer(args: {
    seqno: number
    secretKey: Buffer
    messages: MessageRelaxed[]
    sendMode: number
    timeout: number
  }): Cell
}

/** @ton/ton's contracts, the independent implementation our layouts must match byte for byte. */
const reference = {
  v4r2: (walletId?: number): ReferenceWallet =>
    WalletContractV4.create({
      workchain: 0,
      publicKey: pair.publicKey,
      ...(walletId === undefined ? {} : { walletId }),
    }),
  v5r1: (networkGlobalId = -239, subwalletNumber = 0): ReferenceWallet =>
    WalletContractV5R1.create({
      publicKey: pair.publicKey,
      walletId: { networkGlobalId, context: { workchain: 0, subwalletNumber, walletVersion: 'v5r1' } },
    }),
}

const messages = [
  internal({ to: Address.parse(plainDestination), value: 100_000_000n, bounce: false }),
  internal({ to: Address.parse(bounceableDestination), value: 1n, bounce: true, body: comment('hi') }),
  internal({
    to: Address.parse(bounceableDestination),
    value: 5n,
    bounce: true,
    body: beginCell().storeUint(7, 32).endCell(),
  }),
]

describe('wallet contracts against @ton/ton 16.3', () => {
  it('uses the published v4R2 and v5R1 code', () => {
    expect(reference.v4r2().init.code.hash().toString('hex')).toBe(walletCodeHashes.v4r2)
    expect(reference.v5r1().init.code.hash().toString('hex')).toBe(walletCodeHashes.v5r1)
  })

  const cases = [
    { name: 'v4r2 default', ours: walletContract(publicKey, { version: 'v4r2' }), theirs: reference.v4r2() },
    {
      name: 'v4r2 wallet id 7',
      ours: walletContract(publicKey, { version: 'v4r2', walletId: 7 }),
      theirs: reference.v4r2(7),
    },
    {
      name: 'v5r1 mainnet id',
      ours: walletContract(publicKey, { version: 'v5r1' }),
      theirs: reference.v5r1(),
    },
    {
      name: 'v5r1 testnet id (Tonkeeper)',
      ours: walletContract(publicKey, { version: 'v5r1', networkGlobalId: -3 }),
      theirs: reference.v5r1(-3),
    },
    {
      name: 'v5r1 subwallet 5',
      ours: walletContract(publicKey, { version: 'v5r1', subwalletNumber: 5 }),
      theirs: reference.v5r1(-239, 5),
    },
  ] as const

  for (const { name, ours, theirs } of cases) {
    it(`${name}: same StateInit, address, and signed transfer bodies`, () => {
      const theirInit = beginCell().store(storeStateInit(theirs.init)).endCell()
      expect(Cell.fromBase64(ours.stateInitBoc).equals(theirInit)).toBe(true)
      expect(ours.address.equals(theirs.address)).toBe(true)
      // ton_getStateInit's hash is the address.
      expect(Cell.fromBase64(ours.stateInitBoc).hash().equals(ours.address.hash)).toBe(true)

      for (const [seqno, count] of [
        [0, 1],
        [1, 3],
        [41, 2],
      ] as const) {
        const request = { seqno, validUntil: 1_700_000_060, sendMode: 3, messages: messages.slice(0, count) }
        const unsigned = ours.unsignedTransfer(request)
        const body = ours.signedTransfer(unsigned, key.sign(new Uint8Array(unsigned.hash())) as Uint8Array)
        const theirBody = theirs.createTransfer({
          ...request,
          messages: [...request.messages],
          timeout: request.validUntil,
          secretKey: pair.secretKey,
        })
        expect(body.equals(theirBody)).toBe(true)
      }
    })
  }

  it('serializes the v5R1 wallet ids @ton/ton and Tonkeeper use', () => {
    expect(v5r1WalletId(-239, 0, 0)).toBe(2147483409)
    expect(v5r1WalletId(-3, 0, 0)).toBe(2147483645)
  })

  it('enforces the message limits and the v5R1 +2 send mode', () => {
    const v4 = walletContract(publicKey, { version: 'v4r2' })
    const v5 = walletContract(publicKey, { version: 'v5r1' })
    const five = Array.from({ length: 5 }, () => messages[0]!)
    expect(() => v4.unsignedTransfer({ seqno: 1, validUntil: 1, sendMode: 3, messages: five })).toThrow(
      /1 to 4/,
    )
    expect(() => v5.unsignedTransfer({ seqno: 1, validUntil: 1, sendMode: 3, messages: [] })).toThrow(
      /1 to 255/,
    )
    expect(() => v5.unsignedTransfer({ seqno: 1, validUntil: 1, sendMode: 1, messages: five })).toThrow(/\+2/)
    const many = Array.from({ length: 255 }, () => messages[0]!)
    // 255 is accepted, and all 255 actions are in the out-list ("sign", wallet_id, valid_until, seqno, ^OutList).
    const body = v5.unsignedTransfer({ seqno: 1, validUntil: 1, sendMode: 3, messages: many }).beginParse()
    body.skip(4 * 32)
    expect(loadOutList(body.loadRef().beginParse())).toHaveLength(255)
  })

  it('computes the TEP-467 normalized hash of the research golden messages', () => {
    for (const golden of vectors('external-messages.json').cases) {
      const cell = Cell.fromBase64(golden.boc)
      expect(cell.hash().toString('hex')).toBe(golden.externalHash)
      expect(Buffer.from(normalizedMessageHash(cell)).toString('hex')).toBe(golden.normalizedHash)
      expect(loadMessage(cell.beginParse()).init).not.toBeNull()
    }
  })
})
