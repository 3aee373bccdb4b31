import { base64 as portableBase64 } from '@scure/base'

/**
 * Base64 for PSBTs, which carry parent transactions and reach megabytes: with the runtime's native codec
 * where it has one (`Uint8Array.fromBase64`/`toBase64` in current browsers, Buffer in Node: 10–20× faster
 * than JavaScript), else @scure/base (Hermes). Decoding is strict whatever the codec: the bytes must encode
 * back to the very text, which only the canonical decoding does (padding, zero pad bits, no whitespace).
 */
type Codec = { decode(text: string): Uint8Array; encode(bytes: Uint8Array): string }

type NativeBase64 = {
  fromBase64?: (text: string) => Uint8Array
  prototype: { toBase64?: () => string }
}
type NodeBuffer = {
  from(text: string, encoding: 'base64'): Uint8Array
  from(buffer: ArrayBufferLike, offset: number, length: number): { toString(encoding: 'base64'): string }
}

let chosen: Codec | undefined

function chooseCodec(): Codec {
  const native = Uint8Array as unknown as NativeBase64
  if (typeof native.fromBase64 === 'function' && typeof native.prototype.toBase64 === 'function') {
    const fromBase64 = native.fromBase64
    return {
      decode: (text) => fromBase64(text),
      encode: (bytes) => (bytes as unknown as { toBase64(): string }).toBase64(),
    }
  }
  const runtime = globalThis as { process?: { versions?: { node?: string } }; Buffer?: NodeBuffer }
  // Node's own Buffer only: a browser app's Buffer polyfill is JavaScript, no faster than @scure/base.
  const buffer = typeof runtime.process?.versions?.node === 'string' ? runtime.Buffer : undefined
  if (buffer !== undefined) {
    return {
      decode: (text) => {
        const bytes = buffer.from(text, 'base64')
        return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      },
      encode: (bytes) => buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64'),
    }
  }
  return {
    decode: (text) => {
      try {
        return portableBase64.decode(text)
      } catch {
        return new Uint8Array(0) // refused below: it does not encode back to the text
      }
    },
    encode: (bytes) => portableBase64.encode(bytes),
  }
}

/** The bytes of canonical base64 `text`, or undefined when `text` is not canonical base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  chosen ??= chooseCodec()
  let bytes: Uint8Array
  try {
    bytes = chosen.decode(text)
  } catch {
    return undefined
  }
  return chosen.encode(bytes) === text ? bytes : undefined
}

export function encodeBase64(bytes: Uint8Array): string {
  chosen ??= chooseCodec()
  return chosen.encode(bytes)
}
