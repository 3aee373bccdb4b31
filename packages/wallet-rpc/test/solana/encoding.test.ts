import { base58, base64 } from '@scure/base'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { base64Decode, encodeBase58, encodeBase64, fromCharCodesPortable } from '../../src/solana/encoding.js'

/** The signing path's own base58/base64 codecs against @scure/base's, byte for byte and verdict for verdict. */
const scureDecode = (text: string) => {
  try {
    return base64.decode(text)
  } catch {
    return undefined
  }
}

describe('solana encoding codecs against @scure/base', () => {
  it('base58: the same string for any bytes, leading zeros included', () => {
    const bytes = fc.tuple(fc.nat(4), fc.uint8Array({ maxLength: 100 })).map(([zeros, rest]) => {
      const out = new Uint8Array(zeros + rest.length)
      out.set(rest, zeros)
      return out
    })
    fc.assert(
      fc.property(bytes, (input) => {
        expect(encodeBase58(input)).toBe(base58.encode(input))
      }),
      { numRuns: 2000 },
    )
    for (const length of [32, 64]) {
      expect(encodeBase58(new Uint8Array(length).fill(255))).toBe(
        base58.encode(new Uint8Array(length).fill(255)),
      )
      expect(encodeBase58(new Uint8Array(length))).toBe('1'.repeat(length))
    }
  })

  it('the string maker without a TextDecoder (Hermes) gives the same text, past its chunk size too', () => {
    const codes = fc.uint8Array({ min: 0, max: 127, maxLength: 200 })
    fc.assert(
      fc.property(codes, fc.nat(20), (input, from) => {
        const start = Math.min(from, input.length)
        expect(fromCharCodesPortable(input, start)).toBe(
          new TextDecoder('latin1').decode(input.subarray(start)),
        )
      }),
    )
    const long = new Uint8Array(20_000).map((_, i) => 48 + (i % 75))
    expect(fromCharCodesPortable(long)).toBe(new TextDecoder('latin1').decode(long))
    expect(fromCharCodesPortable(long, 5, 19_000)).toBe(String.fromCharCode(...long.subarray(5, 19_000)))
  })

  it('base64: the same string for any bytes, and the bytes back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (input) => {
        const text = encodeBase64(input)
        expect(text).toBe(base64.encode(input))
        expect(base64Decode(text)).toEqual(input)
      }),
      { numRuns: 2000 },
    )
  })

  it('base64 decodings share chunks without overlapping: each keeps its bytes while later ones are made', () => {
    const inputs = Array.from({ length: 600 }, (_, i) =>
      Uint8Array.from({ length: (i * 37) % 1500 }, (_, j) => (i * 31 + j * 7) & 255),
    )
    const decoded = inputs.map((input) => base64Decode(encodeBase64(input)))
    decoded.forEach((bytes, i) => {
      expect(bytes).toEqual(inputs[i])
    })
  })

  it('base64 decoding accepts and refuses what @scure/base does', () => {
    const near = fc.string({ unit: fc.constantFrom(...'AQgw/+z9=éā\n -_'.split('')), maxLength: 16 })
    fc.assert(
      fc.property(fc.oneof(near, fc.uint8Array({ maxLength: 12 }).map(encodeBase64)), (text) => {
        expect(base64Decode(text), JSON.stringify(text)).toEqual(scureDecode(text))
      }),
      { numRuns: 5000 },
    )
    // Non-canonical: the bits the padding leaves over are not zero.
    for (const text of ['QR==', 'QUJ=', 'Q===', '=QQQ', 'QQ=Q', 'QQ', 'QQQQ=']) {
      expect(base64Decode(text), text).toBeUndefined()
      expect(scureDecode(text), text).toBeUndefined()
    }
  })
})
