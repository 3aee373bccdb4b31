import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'

/**
 * The portable UTF-8 decoder (what React Native runs when its TextDecoder ignores or refuses `fatal`) against
 * Node's WHATWG TextDecoder, on bytes that are mostly not UTF-8 and on encoded text: the same text, the same
 * U+FFFD replacements, the same verdict on validity.
 */
const nodeStrict = new TextDecoder('utf-8', { fatal: true })
const nodeLenient = new TextDecoder('utf-8')
const nodeStrictAnswer = (bytes: Uint8Array) => {
  try {
    return nodeStrict.decode(bytes)
  } catch {
    return undefined
  }
}

// Lead bytes, continuation bytes and the boundaries of every range the decoder treats specially.
const interesting = [0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef]
const edgeByte = fc.constantFrom(...interesting, 0xf0, 0xf4, 0xf5, 0xfe, 0xff, 0xbb)
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 40 }),
  fc.array(edgeByte, { maxLength: 12 }).map((list) => Uint8Array.from(list)),
  fc
    .tuple(fc.string({ unit: 'binary', maxLength: 12 }), fc.array(edgeByte, { maxLength: 4 }), fc.nat(12))
    .map(([text, extra, at]) => {
      const encoded = [...new TextEncoder().encode(text)]
      encoded.splice(at, 0, ...extra)
      return Uint8Array.from(encoded)
    }),
)
// Well-formed text of every plane, lone surrogates included (TextEncoder writes them as U+FFFD), and a BOM.
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => `\ufeff${s}`),
)

describe('decodeUtf8Portable', () => {
  it('answers as Node fatal and non-fatal TextDecoder on arbitrary bytes', async () => {
    const { decodeUtf8Portable } = await import('../../src/core/utf8.js')
    fc.assert(
      fc.property(bytes, (input) => {
        expect(decodeUtf8Portable(input, true)).toBe(nodeStrictAnswer(input))
        expect(decodeUtf8Portable(input, false)).toBe(nodeLenient.decode(input))
      }),
      { numRuns: 20_000 },
    )
  })

  it('decodes every encoded text as Node does', async () => {
    const { decodeUtf8Portable } = await import('../../src/core/utf8.js')
    fc.assert(
      fc.property(text, (input) => {
        const encoded = new TextEncoder().encode(input)
        expect(decodeUtf8Portable(encoded, true)).toBe(nodeStrict.decode(encoded))
      }),
      { numRuns: 5_000 },
    )
  })

  it('known cases: overlong, surrogate, above U+10FFFF, truncated, long input', async () => {
    const { decodeUtf8Portable } = await import('../../src/core/utf8.js')
    const cases = [
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xf0, 0x9f, 0x98],
      [0xef, 0xbb, 0xbf, 0x41],
      [0x41, 0xef, 0xbb, 0xbf],
    ].map((list) => Uint8Array.from(list))
    const long = new TextEncoder().encode('ä😀x'.repeat(5000))
    for (const input of [...cases, long]) {
      expect(decodeUtf8Portable(input, true)).toBe(nodeStrictAnswer(input))
      expect(decodeUtf8Portable(input, false)).toBe(nodeLenient.decode(input))
    }
  })
})

describe('decodeUtf8 / decodeUtf8Strict on a runtime whose TextDecoder does not honour fatal', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.resetModules()
  })

  // fast-text-encoding 1.0.6's answers: it throws on `{ fatal: true }`; a looser polyfill ignores it.
  const refusing = class {
    constructor(_label?: string, options?: { fatal?: boolean }) {
      if (options?.fatal)
        throw new Error("Failed to construct 'TextDecoder': the 'fatal' option is unsupported.")
    }
    decode() {
      return 'polyfill'
    }
  }
  const ignoring = class {
    decode() {
      return 'polyfill'
    }
  }

  for (const [name, polyfill] of [
    ['refuses', refusing],
    ['ignores', ignoring],
    ['is absent', undefined],
  ] as const) {
    it(`falls back to the portable decoder when the option ${name === 'is absent' ? 'and TextDecoder are absent' : `is one it ${name}`}`, async () => {
      vi.stubGlobal('TextDecoder', polyfill)
      vi.resetModules()
      const { decodeUtf8, decodeUtf8Strict } = await import('../../src/core/utf8.js')
      const invalid = Uint8Array.from([0x61, 0xc3, 0x28])
      expect(decodeUtf8Strict(invalid)).toBeUndefined()
      expect(decodeUtf8(invalid)).toBe(nodeLenient.decode(invalid))
      const valid = new TextEncoder().encode('héllo 😀')
      expect(decodeUtf8Strict(valid)).toBe('héllo 😀')
    })
  }

  it("uses the runtime's decoder when it honours fatal", async () => {
    const { decodeUtf8, decodeUtf8Strict } = await import('../../src/core/utf8.js')
    expect(decodeUtf8Strict(Uint8Array.from([0xff]))).toBeUndefined()
    expect(decodeUtf8(Uint8Array.from([0xff]))).toBe('\ufffd')
  })
})
