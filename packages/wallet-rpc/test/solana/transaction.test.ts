import { base64 } from '@scure/base'
import {
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit'
import { getTransferSolInstruction } from '@solana-program/system'
import { describe, expect, it } from 'vitest'
import { InvalidParamsError } from '../../src/core/errors.js'
import { decodeTransaction, encodeTransaction } from '../../src/solana/index.js'
import { harness, kitTransaction, ours, someBlockhash, stranger } from './helpers.js'

function pathOf(run: () => unknown): string | undefined {
  try {
    run()
  } catch (error) {
    if (error instanceof InvalidParamsError) return (error.data as { path?: string }).path
    throw error
  }
  return undefined
}

const lookupTable = address('AddressLookupTab1e1111111111111111111111111')

/** A v0 transaction whose destination is loaded from a lookup table, compiled by @solana/kit. */
function lookupTransaction() {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(ours(), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash({ blockhash: someBlockhash, lastValidBlockHeight: 1n }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [getTransferSolInstruction({ source: createNoopSigner(ours()), destination: stranger, amount: 9n })],
        m,
      ),
    (m) => compressTransactionMessageUsingAddressLookupTables(m, { [lookupTable]: [stranger] }),
  )
  return base64.decode(getBase64EncodedWireTransaction(compileTransaction(message)))
}

describe('decodeTransaction', () => {
  it('decodes and re-encodes @solana/kit transactions byte for byte (legacy, v0, v0 with a lookup table)', () => {
    const v0 = base64.decode(kitTransaction({ feePayer: ours() }).base64)
    const withLookup = lookupTransaction()
    for (const bytes of [v0, withLookup]) {
      expect(encodeTransaction(decodeTransaction(bytes, 'transaction'))).toEqual(bytes)
    }
    const decoded = decodeTransaction(withLookup, 'transaction')
    expect(decoded.message.version).toBe(0)
    expect(decoded.message.addressTableLookups).toHaveLength(1)
    expect(decoded.message.addressTableLookups[0]!.writableIndexes).toEqual([0])
  })

  it('every strict prefix of a transaction is refused with a path under `transaction`', () => {
    const bytes = lookupTransaction()
    for (let length = 0; length < bytes.length; length++) {
      expect(pathOf(() => decodeTransaction(bytes.subarray(0, length), 'transaction'))).toMatch(
        /^transaction/,
      )
    }
  })

  it('names the broken field', () => {
    const bytes = base64.decode(kitTransaction({ feePayer: ours() }).base64)
    // Layout: [1] count, [64] signature, [1] 0x80, [3] header, [1] key count, keys, blockhash, instructions.
    const trailing = new Uint8Array([...bytes, 0])
    expect(pathOf(() => decodeTransaction(trailing, 'transaction'))).toBe('transaction.message')
    const twoSlots = Uint8Array.from(bytes)
    twoSlots[0] = 2
    expect(pathOf(() => decodeTransaction(twoSlots, 'transaction'))).toMatch(/^transaction\./)
    const version1 = Uint8Array.from(bytes)
    version1[65] = 0x81
    expect(pathOf(() => decodeTransaction(version1, 'transaction'))).toBe('transaction.message.version')
    const noSigner = Uint8Array.from(bytes)
    noSigner[66] = 0
    expect(pathOf(() => decodeTransaction(noSigner, 'transaction'))).toBe('transaction.message.header')
    const keyCount = bytes[69]!
    const firstInstruction = 70 + 32 * keyCount + 32 + 1
    const badProgram = Uint8Array.from(bytes)
    badProgram[firstInstruction] = keyCount
    expect(pathOf(() => decodeTransaction(badProgram, 'transaction'))).toBe(
      'transaction.message.instructions.0.programIdIndex',
    )
    const badAccount = Uint8Array.from(bytes)
    badAccount[firstInstruction + 2] = 200
    expect(pathOf(() => decodeTransaction(badAccount, 'transaction'))).toBe(
      'transaction.message.instructions.0.accounts.0',
    )
    const duplicate = Uint8Array.from(bytes)
    duplicate.set(bytes.subarray(70, 102), 102)
    expect(pathOf(() => decodeTransaction(duplicate, 'transaction'))).toBe(
      'transaction.message.accountKeys.1',
    )
  })

  it('refuses non-minimal and over-long compact-u16 lengths', () => {
    expect(pathOf(() => decodeTransaction(new Uint8Array([0x81, 0x00]), 'transaction'))).toBe(
      'transaction.signatures',
    )
    expect(pathOf(() => decodeTransaction(new Uint8Array([0xff, 0xff, 0xff, 0x01]), 'transaction'))).toBe(
      'transaction.signatures',
    )
  })

  it('through handle(): malformed input answers -32602 with the path, never a review', async () => {
    const wallet = harness()
    const bytes = lookupTransaction()
    const truncated = base64.encode(bytes.subarray(0, bytes.length - 3))
    const response = await wallet.call('solana_signTransaction', { transaction: truncated })
    expect(response.error).toMatchObject({
      code: -32602,
      data: { path: expect.stringMatching(/^transaction\./) },
    })
    const notBase = await wallet.call('solana_signTransaction', { transaction: '%%%' })
    expect(notBase.error).toMatchObject({ code: -32602, data: { path: 'transaction' } })
    const wrongType = await wallet.call('solana_signTransaction', { transaction: 5 })
    expect(wrongType.error).toMatchObject({ code: -32602, data: { path: 'transaction' } })
    expect(wallet.reviews).toEqual([])
  })

  it('a lookup-table account without a provider is shown by table and index', async () => {
    const wallet = harness()
    await wallet.result('solana_signTransaction', { transaction: base64.encode(lookupTransaction()) })
    expect(JSON.stringify(wallet.reviews[0]!.items)).toContain(`lookup table ${lookupTable} entry 0`)
  })
})
