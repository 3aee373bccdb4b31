import fc from 'fast-check'
import { pad, toEventSelector, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  decodeBalanceChanges,
  eventTopics,
  nativeTransferAddress,
} from '../../../src/eip155/simulation/decodeBalanceChanges.js'

const me = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const other = '0x000000000000000000000000000000000000dead'
const token = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const topic = (address: string) => pad(address as `0x${string}`)
const word = (value: bigint) => toHex(value, { size: 32 }).slice(2)
const log = (address: string, topics: string[], data = '0x') => ({ address, topics, data })
const transfer = (from: string, to: string, amount: bigint, address = token) =>
  log(address, [eventTopics.transfer, topic(from), topic(to)], `0x${word(amount)}`)

describe('event topics', () => {
  it('are the keccak256 of the event signatures', () => {
    expect(eventTopics).toEqual({
      transfer: toEventSelector('Transfer(address,address,uint256)'),
      approval: toEventSelector('Approval(address,address,uint256)'),
      approvalForAll: toEventSelector('ApprovalForAll(address,address,bool)'),
      transferSingle: toEventSelector('TransferSingle(address,address,address,uint256,uint256)'),
      transferBatch: toEventSelector('TransferBatch(address,address,address,uint256[],uint256[])'),
      deposit: toEventSelector('Deposit(address,uint256)'),
      withdrawal: toEventSelector('Withdrawal(address,uint256)'),
    })
  })
})

describe('decodeBalanceChanges', () => {
  it('nets transfers per asset: in and out of one token, native first, zero nets dropped', () => {
    const decoded = decodeBalanceChanges(
      [
        transfer(me, other, 10n),
        transfer(other, me, 3n),
        transfer(me, other, 5n, nativeTransferAddress),
        transfer(me, me, 99n, '0x1111111111111111111111111111111111111111'),
        transfer(other, other, 7n), // not the account's
      ],
      '0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    )
    expect(decoded.changes).toEqual([
      { kind: 'native', asset: undefined, amount: 5n, direction: 'out' },
      { kind: 'fungible', asset: token, amount: 7n, direction: 'out' },
    ])
    expect(decoded.unrecognized).toBe(0)
  })

  it('ERC-721 Transfer (4 topics), ERC-1155 TransferSingle and TransferBatch, WETH Deposit/Withdrawal', () => {
    const operator = topic(other)
    const batchData = `0x${[64n, 160n, 2n, 1n, 2n, 2n, 4n, 6n].map(word).join('')}`
    const decoded = decodeBalanceChanges(
      [
        log(token, [eventTopics.transfer, topic(other), topic(me), word(42n).padStart(66, '0x')]),
        log(
          token,
          [eventTopics.transferSingle, operator, topic(me), topic(other)],
          `0x${word(5n)}${word(3n)}`,
        ),
        log(token, [eventTopics.transferBatch, operator, topic(other), topic(me)], batchData),
        log(other, [eventTopics.deposit, topic(me)], `0x${word(8n)}`),
        log(other, [eventTopics.withdrawal, topic(me)], `0x${word(3n)}`),
      ],
      me,
    )
    expect(decoded.changes).toEqual([
      { kind: 'nft', asset: token, tokenId: 42n, amount: 1n, direction: 'in' },
      { kind: 'multi', asset: token, tokenId: 5n, amount: 3n, direction: 'out' },
      { kind: 'multi', asset: token, tokenId: 1n, amount: 4n, direction: 'in' },
      { kind: 'multi', asset: token, tokenId: 2n, amount: 6n, direction: 'in' },
      { kind: 'fungible', asset: other, amount: 5n, direction: 'in' },
    ])
  })

  it('approvals of the account only: ERC-20 amount (last wins), ERC-721 by id, ApprovalForAll on and off', () => {
    const decoded = decodeBalanceChanges(
      [
        log(token, [eventTopics.approval, topic(me), topic(other)], `0x${word(5n)}`),
        log(token, [eventTopics.approval, topic(me), topic(other)], `0x${word(2n ** 256n - 1n)}`),
        log(token, [eventTopics.approval, topic(other), topic(me)], `0x${word(5n)}`),
        log(other, [eventTopics.approval, topic(me), topic(token), word(9n).padStart(66, '0x')]),
        log(other, [
          eventTopics.approval,
          topic(me),
          topic(`0x${'0'.repeat(40)}`),
          word(9n).padStart(66, '0x'),
        ]),
        log(other, [eventTopics.approvalForAll, topic(me), topic(token)], `0x${word(1n)}`),
        log(token, [eventTopics.approvalForAll, topic(me), topic(other)], `0x${word(0n)}`),
      ],
      me,
    )
    expect(decoded.approvals).toEqual([
      { kind: 'fungible', asset: token, spender: other, amount: 2n ** 256n - 1n, granted: true },
      { kind: 'nft', asset: other, spender: token, amount: 9n, granted: true },
      { kind: 'all', asset: other, spender: token, amount: undefined, granted: true },
      { kind: 'all', asset: token, spender: other, amount: undefined, granted: false },
    ])
  })

  it('hostile logs are skipped, and counted when they name the account', () => {
    const short = log(token, [eventTopics.transfer, topic(me), topic(other)], '0x01')
    const tooManyTopics = log(token, [
      eventTopics.transfer,
      topic(me),
      topic(other),
      topic(other),
      topic(other),
    ])
    const dirtyAddress = log(
      token,
      [eventTopics.transfer, `0x${'ff'.repeat(12)}${me.slice(2)}`, topic(other)],
      `0x${word(1n)}`,
    )
    const badBatch = log(
      token,
      [eventTopics.transferBatch, topic(other), topic(me), topic(other)],
      `0x${[64n, 2n ** 255n, 1n, 1n].map(word).join('')}`,
    )
    const mismatchedBatch = log(
      token,
      [eventTopics.transferBatch, topic(other), topic(me), topic(other)],
      `0x${[64n, 128n, 1n, 1n, 2n, 1n, 1n].map(word).join('')}`,
    )
    const unknownEvent = log(token, [`0x${'ab'.repeat(32)}`, topic(me)])
    const decoded = decodeBalanceChanges(
      [
        null,
        42,
        'log',
        { address: token },
        { address: 'nope', topics: [], data: '0x' },
        { address: token, topics: ['0x12'], data: '0x' },
        { address: token, topics: [eventTopics.transfer], data: '0xabc' },
        short,
        tooManyTopics,
        dirtyAddress,
        badBatch,
        mismatchedBatch,
        unknownEvent,
        transfer(me, other, 2n ** 256n - 1n),
      ],
      me,
    )
    expect(decoded.changes).toEqual([
      { kind: 'fungible', asset: token, amount: 2n ** 256n - 1n, direction: 'out' },
    ])
    // short, badBatch, mismatchedBatch, unknownEvent name the account (tooManyTopics is not a log; the dirty
    // topic is not an address); the rest are not logs at all.
    expect(decoded.unrecognized).toBe(4)
  })

  it('stops at maxLogs and counts the rest; a batch is cut at 256 entries', () => {
    const many = Array.from({ length: 10 }, () => transfer(me, other, 1n))
    expect(decodeBalanceChanges(many, me, { maxLogs: 4 })).toMatchObject({
      changes: [{ amount: 4n, direction: 'out' }],
      notDecoded: 6,
    })
    const entries = 300
    const ids = Array.from({ length: entries }, (_, index) => BigInt(index))
    const data = `0x${[64n, BigInt(64 + 32 * (entries + 1)), BigInt(entries), ...ids, BigInt(entries), ...ids.map(() => 1n)].map(word).join('')}`
    const decoded = decodeBalanceChanges(
      [log(token, [eventTopics.transferBatch, topic(other), topic(other), topic(me)], data)],
      me,
    )
    expect(decoded.changes).toHaveLength(256)
    expect(decoded.batchEntriesCut).toBe(44)
  })

  it('never throws, whatever the logs (property)', () => {
    const hex = (bytes: number) => fc.uint8Array({ maxLength: bytes }).map((array) => toHex(array))
    const topicLike = fc.oneof(
      fc.constantFrom(...Object.values(eventTopics), topic(me), topic(other)),
      fc.uint8Array({ minLength: 32, maxLength: 32 }).map((array) => toHex(array)),
      fc.string(),
    )
    const logLike = fc.oneof(
      fc.record({
        address: fc.oneof(fc.constantFrom(token, nativeTransferAddress, me), fc.string()),
        topics: fc.array(topicLike, { maxLength: 6 }),
        data: fc.oneof(hex(400), fc.constantFrom('0x', '0x0', 'zz')),
      }),
      fc.anything(),
    )
    fc.assert(
      fc.property(fc.array(logLike, { maxLength: 30 }), fc.integer({ min: 0, max: 40 }), (logs, maxLogs) => {
        const decoded = decodeBalanceChanges(logs, me, { maxLogs })
        for (const change of decoded.changes) expect(change.amount > 0n).toBe(true)
      }),
      { numRuns: 500 },
    )
  })
})
