import { decodeUtf8 } from '../../core/utf8.js'

/** Solidity's `Panic(uint256)` codes (docs: "Panic via assert and Error via require"). */
const panicCodes: Record<string, string> = {
  '0': 'generic compiler panic',
  '1': 'assertion failed',
  '17': 'arithmetic overflow or underflow',
  '18': 'division or modulo by zero',
  '33': 'invalid enum value',
  '34': 'invalid storage byte array encoding',
  '49': 'pop on an empty array',
  '50': 'array index out of bounds',
  '65': 'out of memory',
  '81': 'call to an uninitialized function',
}

const errorSelector = '08c379a0'
const panicSelector = '4e487b71'
/** A reason longer than this is cut: it is shown to the user, and a contract chooses its length. */
const maxReasonLength = 200

/**
 * The revert data of a failed call in words: `Error(string)`'s message (control characters removed, cut at
 * 200 characters), `Panic(uint256)`'s meaning, or a custom error's selector in hex. Never throws.
 */
export function revertReason(data: unknown): string {
  if (typeof data !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(data)) return 'no revert data'
  const hex = data.slice(2).toLowerCase()
  if (hex === '') return 'reverted without a reason'
  const selector = hex.slice(0, 8)
  if (selector === errorSelector) {
    const message = decodeErrorString(hex.slice(8))
    if (message !== undefined) return message === '' ? 'Error("")' : message
  }
  if (selector === panicSelector && hex.length === 8 + 64) {
    const code = BigInt(`0x${hex.slice(8)}`)
    return `Panic(0x${code.toString(16)}): ${panicCodes[code.toString()] ?? 'unknown panic code'}`
  }
  if (hex.length < 8) return `malformed revert data 0x${hex}`
  const arguments_ = (hex.length - 8) / 2
  return `custom error 0x${selector}${arguments_ > 0 ? ` with ${arguments_} bytes of arguments` : ''}`
}

/** The string of an ABI-encoded `(string)` tuple, or undefined when the encoding does not hold. */
function decodeErrorString(body: string): string | undefined {
  const word = (index: number) =>
    body.length >= (index + 1) * 64 ? BigInt(`0x${body.slice(index * 64, (index + 1) * 64)}`) : undefined
  const offset = word(0)
  if (offset !== 32n) return undefined
  const length = word(1)
  if (length === undefined || length > BigInt(body.length / 2 - 64)) return undefined
  const bytes = new Uint8Array(Number(length))
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(body.slice(128 + i * 2, 130 + i * 2), 16)
  const text = decodeUtf8(bytes)
  return printable(text)
}

/** Control and formatting characters removed (a reason must not rewrite the dialog), then cut. */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '')
  return clean.length > maxReasonLength ? `${clean.slice(0, maxReasonLength)}…` : clean
}
