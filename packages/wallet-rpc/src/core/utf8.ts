/**
 * UTF-8 decoding that gives the WHATWG `TextDecoder('utf-8')` answer on every runtime. React Native's usual
 * decoders differ from it: `fast-text-encoding` refuses `{ fatal: true }` and does not replace bad bytes with
 * U+FFFD, and RN 0.74–0.84 have no native TextDecoder. Where the runtime's decoder honours `fatal` (Node,
 * browsers), it does the work; elsewhere the WHATWG algorithm below does (test/core/utf8.test.ts checks it
 * against Node's on valid and invalid bytes).
 */
type NativeDecoders = { strict: InstanceType<typeof TextDecoder>; lenient: InstanceType<typeof TextDecoder> }

let native: NativeDecoders | null | undefined

function nativeDecoders(): NativeDecoders | null {
  if (native !== undefined) return native
  native = null
  if (typeof TextDecoder !== 'function') return native
  let strict: InstanceType<typeof TextDecoder>
  try {
    strict = new TextDecoder('utf-8', { fatal: true })
  } catch {
    return native // a polyfill that refuses the option
  }
  try {
    strict.decode(new Uint8Array([0xff]))
    return native // a polyfill that accepts the option and ignores it
  } catch {
    native = { strict, lenient: new TextDecoder('utf-8') }
    return native
  }
}

/** The text of `bytes`, each maximal invalid subpart replaced by U+FFFD, a leading BOM dropped. */
export function decodeUtf8(bytes: Uint8Array): string {
  const decoders = nativeDecoders()
  return decoders !== null ? decoders.lenient.decode(bytes) : (decodeUtf8Portable(bytes, false) as string)
}

/** The text of `bytes`, a leading BOM dropped; undefined when they are not well-formed UTF-8. */
export function decodeUtf8Strict(bytes: Uint8Array): string | undefined {
  const decoders = nativeDecoders()
  if (decoders === null) return decodeUtf8Portable(bytes, true)
  try {
    return decoders.strict.decode(bytes)
  } catch {
    return undefined
  }
}

const replacement = 0xfffd
/** Longest argument list handed to `String.fromCharCode` at once (engines cap the argument count). */
const chunk = 4096

/**
 * The WHATWG Encoding standard's UTF-8 decoder (§ 9.1.1), with BOM removal as `TextDecoder` does it:
 * undefined at the first error when `fatal`, else U+FFFD per maximal invalid subpart. Exported for its tests.
 */
export function decodeUtf8Portable(bytes: Uint8Array, fatal: boolean): string | undefined {
  const units: number[] = []
  let text = ''
  let codePoint = 0
  let needed = 0
  let seen = 0
  let lower = 0x80
  let upper = 0xbf
  const flush = () => {
    text += String.fromCharCode.apply(null, units)
    units.length = 0
  }
  const emit = (value: number) => {
    if (value > 0xffff) {
      value -= 0x10000
      units.push(0xd800 | (value >> 10), 0xdc00 | (value & 0x3ff))
    } else units.push(value)
    if (units.length >= chunk) flush()
  }
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  while (i < bytes.length) {
    const byte = bytes[i] as number
    if (needed === 0) {
      i++
      if (byte <= 0x7f) emit(byte)
      else if (byte >= 0xc2 && byte <= 0xdf) {
        needed = 1
        codePoint = byte & 0x1f
      } else if (byte >= 0xe0 && byte <= 0xef) {
        if (byte === 0xe0) lower = 0xa0
        if (byte === 0xed) upper = 0x9f
        needed = 2
        codePoint = byte & 0x0f
      } else if (byte >= 0xf0 && byte <= 0xf4) {
        if (byte === 0xf0) lower = 0x90
        if (byte === 0xf4) upper = 0x8f
        needed = 3
        codePoint = byte & 0x07
      } else if (fatal) return undefined
      else emit(replacement)
      continue
    }
    if (byte < lower || byte > upper) {
      // The byte ends the broken sequence and is read again on its own (not consumed: no i++).
      codePoint = needed = seen = 0
      lower = 0x80
      upper = 0xbf
      if (fatal) return undefined
      emit(replacement)
      continue
    }
    i++
    lower = 0x80
    upper = 0xbf
    codePoint = (codePoint << 6) | (byte & 0x3f)
    if (++seen === needed) {
      emit(codePoint)
      codePoint = needed = seen = 0
    }
  }
  if (needed !== 0) {
    if (fatal) return undefined
    emit(replacement)
  }
  flush()
  return text
}
