/**
 * Text a third party chose (a dapp's message or statement, a gateway's error code, a chain's name, a token's
 * symbol) as the wallet shows or reports it. Some characters hide or reorder what the user reads: they are
 * found before text is shown as is, and written out visibly when it is quoted.
 */

/**
 * Controls other than tab/LF/CR, bidi marks, overrides and isolates (U+202E turns "gpj.exe" into what reads as
 * "exe.jpg"), zero-width and other invisible format characters, line and paragraph separators, and lone
 * surrogates (encoded as U+FFFD, so the bytes differ from the text).
 */
const hiddenCharacter =
  /(?![\t\n\r])\p{Cc}|[\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]|\p{Cs}/u

/** Every character `printableLine` writes out: the hidden ones and line breaks and tabs, which a one-line field must not hold. */
const notOnOneLine = new RegExp(`[\\t\\n\\r]|${hiddenCharacter.source}`, 'gu')

/** True when `text` holds a character that hides or reorders what is read (tab, LF and CR are allowed). */
export function hasHiddenCharacters(text: string): boolean {
  return hiddenCharacter.test(text)
}

/**
 * `text` as one bounded, visible line: at most `max` characters of it, followed by "…" when cut, with every
 * control, bidi, invisible and line-break character written as `\u{…}`. For a third party's short text the
 * wallet passes on (an error code, a chain or token name) where the reader must see exactly what was sent.
 */
export function printableLine(text: string, max = 256): string {
  const cut = text.length > max ? text.slice(0, max) : text
  const visible = cut.replace(
    notOnOneLine,
    (character) => `\\u{${character.codePointAt(0)!.toString(16).toUpperCase()}}`,
  )
  return cut.length === text.length ? visible : `${visible}…`
}
