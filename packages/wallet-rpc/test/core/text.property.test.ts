import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hasHiddenCharacters, printableLine } from '../../src/core/text.js'

// Each kind of character that hides or reorders text, with the Unicode category or block it comes from.
const hidden = [
  '\u0000', // C0 control
  '\u001b', // ESC (terminal escape sequences)
  '\u007f', // DEL
  '\u0085', // C1 control (NEL)
  '\u00ad', // soft hyphen (invisible)
  '\u061c', // Arabic letter mark
  '\u200b', // zero-width space
  '\u200e', // left-to-right mark
  '\u2028', // line separator
  '\u202e', // right-to-left override
  '\u2066', // left-to-right isolate
  '\ufeff', // zero-width no-break space (BOM)
  '\ud800', // lone high surrogate
  '\udfff', // lone low surrogate
]

describe('hasHiddenCharacters', () => {
  it('finds each hidden kind anywhere in a text, and allows tab, LF, CR and ordinary letters', () => {
    for (const character of hidden) {
      expect(hasHiddenCharacters(`pay ${character}100`)).toBe(true)
    }
    expect(hasHiddenCharacters('line one\nline two\r\n\tindented, émoji 👍, 中文, العربية')).toBe(false)
  })
})

describe('printableLine', () => {
  it('writes every hidden character, tab and line break out as \\u{…} and keeps the rest', () => {
    expect(printableLine('exe.\u202egpj')).toBe('exe.\\u{202E}gpj')
    expect(printableLine('a\nb\tc')).toBe('a\\u{A}b\\u{9}c')
    expect(printableLine('👍 ok')).toBe('👍 ok')
    expect(printableLine('x\ud800')).toBe('x\\u{D800}')
  })

  it('cuts at max characters and says so', () => {
    expect(printableLine('a'.repeat(300))).toBe(`${'a'.repeat(256)}…`)
    expect(printableLine('abcdef', 3)).toBe('abc…')
    expect(printableLine('abc', 3)).toBe('abc')
  })

  it('never returns a hidden character, a line break or more than 10 × max + 1 characters, for any text', () => {
    fc.assert(
      fc.property(
        fc
          .array(
            fc.oneof(
              fc.constantFrom(...hidden, '\n', '\t', '\r'),
              fc.string({ unit: 'grapheme', maxLength: 4 }),
              fc.string({ unit: 'binary', maxLength: 4 }),
            ),
          )
          .map((parts) => parts.join('')),
        fc.integer({ min: 1, max: 64 }),
        (text, max) => {
          const line = printableLine(text, max)
          expect(hasHiddenCharacters(line)).toBe(false)
          expect(line).not.toMatch(/[\n\r\t]/)
          expect(line.length).toBeLessThanOrEqual(10 * max + 1)
        },
      ),
    )
  })
})
