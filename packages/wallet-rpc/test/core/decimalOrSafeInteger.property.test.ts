import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sendTransferParams } from '../../src/bip122/methods/sendTransfer.js'
import { InvalidParamsError } from '../../src/core/errors.js'
import { parseParams } from '../../src/core/schema.js'
import { tonSendMessageParams } from '../../src/ton/methods/ton_sendMessage.js'

// The accepted deviation "amount as a JSON number": a safe, non-negative integer means exactly its decimal
// string (the same rules apply after conversion); any other number is -32602 at the field's path, saying
// to send a decimal string. Checked for both schemas that use it.

const transfer = (amount: unknown) => ({ account: 'a', recipientAddress: 'b', amount })
const message = (amount: unknown) => ({ messages: [{ address: 'x', amount }] })

const schemas = [
  {
    name: 'bip122 sendTransfer.amount',
    parse: (amount: unknown) => parseParams(sendTransferParams, transfer(amount)).amount,
    path: 'amount',
  },
  {
    name: 'ton ton_sendMessage messages.0.amount',
    parse: (amount: unknown) => parseParams(tonSendMessageParams, message(amount)).messages[0]!.amount,
    path: 'messages.0.amount',
  },
]

function refusal(parse: () => unknown): InvalidParamsError {
  try {
    parse()
  } catch (error) {
    if (error instanceof InvalidParamsError) return error
    throw error
  }
  throw new Error('accepted')
}

const notSafeWhole = fc
  .double({ noNaN: true })
  .filter((value) => !(Number.isSafeInteger(value) && value >= 0))

describe.each(schemas)('$name', ({ parse, path }) => {
  it('a safe integer number ≥ 1 parses to its decimal string, exactly as the string does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (value) => {
        expect(parse(value)).toBe(String(value))
        expect(parse(String(value))).toBe(String(value))
      }),
    )
  })

  it('any other number is -32602 at the path, telling the dapp to send a decimal string', () => {
    fc.assert(
      fc.property(notSafeWhole, (value) => {
        const error = refusal(() => parse(value))
        expect(error.code).toBe(-32602)
        expect(error.data).toMatchObject({ path, reason: expect.stringMatching(/send a decimal string$/) })
      }),
    )
  })

  it('the edges: 2^53 - 1 is accepted, 2^53 is refused, 1.5 and -1 are refused, 0 fails the string rules', () => {
    expect(parse(Number.MAX_SAFE_INTEGER)).toBe('9007199254740991')
    for (const value of [2 ** 53, 1.5, -1, Number.POSITIVE_INFINITY]) {
      expect(refusal(() => parse(value)).data).toMatchObject({ path })
    }
  })

  it('a BigInt (what the WalletConnect SDK makes of a number past 2^53 - 1) is refused the same way', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), (value) => {
        expect(refusal(() => parse(value)).data).toMatchObject({
          path,
          reason: expect.stringMatching(/send a decimal string$/),
        })
      }),
    )
  })

  it('a string is never converted: what the dapp wrote is what is checked', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        let parsed: unknown
        try {
          parsed = parse(value)
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidParamsError)
          return
        }
        expect(parsed).toBe(value)
      }),
    )
  })
})

describe('bip122 sendTransfer.amount', () => {
  it('the number 0 is refused like the string "0"', () => {
    expect(refusal(() => schemas[0]!.parse(0)).data).toMatchObject({ path: 'amount' })
  })
})
