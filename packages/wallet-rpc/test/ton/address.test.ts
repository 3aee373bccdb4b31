import { Address } from '@ton/core'
import { describe, expect, it } from 'vitest'
import { WalletRpcError } from '../../src/core/errors.js'
import { friendly, parseAnyAddress, parseDestination } from '../../src/ton/address.js'
import { vectors } from './fixtures.js'

const fixture = vectors('addresses.json')

function refusal(call: () => unknown) {
  try {
    call()
  } catch (error) {
    if (error instanceof WalletRpcError) return { code: error.code, data: error.data }
    throw error
  }
  throw new Error('expected a refusal')
}

describe('TEP-2 address forms (test-vectors/ton/addresses.json)', () => {
  for (const forms of fixture.addresses) {
    it(`${forms.raw}: every friendly form parses to the raw address with its own bounce and test flags`, () => {
      const raw = Address.parse(forms.raw)
      const cases = [
        [forms.bounceable, true, false],
        [forms.nonBounceable, false, false],
        [forms.testnetBounceable, true, true],
        [forms.testnetNonBounceable, false, true],
        ...(forms.bounceableStandardBase64 ? [[forms.bounceableStandardBase64, true, false]] : []),
      ] as const
      for (const [text, bounceable, testOnly] of cases) {
        const destination = parseDestination(text, 'ton:-3', 'address')
        expect(destination.address.equals(raw)).toBe(true)
        expect(destination).toMatchObject({ bounceable, testOnly })
        expect(parseAnyAddress(text, 'from').equals(raw)).toBe(true)
      }
      expect(friendly(raw, 'ton:-239', true)).toBe(forms.bounceable)
      expect(friendly(raw, 'ton:-239', false)).toBe(forms.nonBounceable)
      expect(friendly(raw, 'ton:-3', true)).toBe(forms.testnetBounceable)
      expect(friendly(raw, 'ton:-3', false)).toBe(forms.testnetNonBounceable)
    })

    it(`${forms.raw}: test-only forms are refused on mainnet`, () => {
      expect(
        refusal(() => parseDestination(forms.testnetBounceable, 'ton:-239', 'messages.0.address')),
      ).toEqual({
        code: -32602,
        data: {
          rule: 'ton.testnet_address_on_mainnet',
          reason: 'messages.0.address is a testnet-only address and this request is for mainnet',
        },
      })
    })
  }

  for (const { value, why } of fixture.invalidFriendly) {
    it(`refuses ${value} as a destination (${why})`, () => {
      expect(refusal(() => parseDestination(value, 'ton:-239', 'messages.0.address'))).toMatchObject({
        code: -32602,
        data: { path: 'messages.0.address' },
      })
    })
  }

  it('accepts raw addresses for `from` only', () => {
    expect(parseAnyAddress(fixture.addresses[0].raw, 'from').toRawString()).toBe(fixture.addresses[0].raw)
    expect(refusal(() => parseAnyAddress('not an address', 'from'))).toEqual({
      code: -32602,
      data: { path: 'from', reason: 'not a TON address' },
    })
  })
})
