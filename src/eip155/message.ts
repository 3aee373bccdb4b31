import { bytesToHex, hexToBytes, type SignableMessage } from 'viem'
import { item, type ReviewItem } from '../core/review.js'
import { isData } from './schemas.js'

/**
 * A message to sign with the EIP-191 prefix. A 0x hex string is signed as the bytes it encodes (MetaMask,
 * eth-sig-util and viem's own JSON-RPC accounts send hex), an odd-length one left-padded with a zero nibble
 * as eth-sig-util does (`0x123` is the bytes 01 23); anything else as UTF-8.
 */
export type PersonalMessage = { signable: SignableMessage; bytes: Uint8Array }

const utf8 = new TextEncoder()
const oddHex = /^0x[0-9a-fA-F](?:[0-9a-fA-F]{2})*$/
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

export function personalMessage(message: string): PersonalMessage {
  if (isData(message)) return { signable: { raw: message }, bytes: hexToBytes(message) }
  if (oddHex.test(message)) return personalMessage(`0x0${message.slice(2)}`)
  return { signable: message, bytes: utf8.encode(message) }
}

/** The message as the user should read it: its text when it is printable UTF-8, else its hex. */
export function messageItems(message: PersonalMessage): ReviewItem[] {
  const text = printableText(message.bytes)
  if (text !== undefined) return [item('Message', text)]
  return [item('Message (hex)', bytesToHex(message.bytes)), item('Length', `${message.bytes.length} bytes`)]
}

// Control characters other than tab/newline/carriage return would hide or reorder what the user reads.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const controlCharacters = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u202a-\u202e\u2066-\u2069]/

function printableText(bytes: Uint8Array): string | undefined {
  try {
    const text = strictUtf8.decode(bytes)
    return controlCharacters.test(text) ? undefined : text
  } catch {
    return undefined
  }
}
