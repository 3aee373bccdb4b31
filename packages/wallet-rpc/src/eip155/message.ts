import type { Address, SignableMessage } from 'viem'
import type { RequestContext } from '../core/namespace.js'
import { item, type ReviewDraft, type ReviewItem, type ReviewWarning } from '../core/review.js'
import { signInSection, signInWarnings } from '../core/signIn.js'
import { hasHiddenCharacters } from '../core/text.js'
import { decodeUtf8, decodeUtf8Strict } from '../core/utf8.js'
import { isData } from './schemas.js'
import { looksLikeSiwe, parseSiweMessage, type SiweMessage } from './siwe.js'
import { bytesToHex, hexToBytes } from './viemUtils.js'

/**
 * A message to sign with the EIP-191 prefix. A 0x hex string is signed as the bytes it encodes (MetaMask,
 * eth-sig-util and viem's own JSON-RPC accounts send hex), an odd-length one left-padded with a zero nibble
 * as eth-sig-util does (`0x123` is the bytes 01 23); anything else as UTF-8.
 */
export type PersonalMessage = { signable: SignableMessage; bytes: Uint8Array }

const oddHex = /^0x[0-9a-fA-F](?:[0-9a-fA-F]{2})*$/
// Made at first use, not at import: a runtime without TextEncoder then fails with namespace creation's clear
// error (core/globals.ts) instead of at load.
let utf8: InstanceType<typeof TextEncoder> | undefined
const utf8Encoder = () => (utf8 ??= new TextEncoder())

export function personalMessage(message: string): PersonalMessage {
  if (isData(message)) return { signable: { raw: message }, bytes: hexToBytes(message) }
  if (oddHex.test(message)) return personalMessage(`0x0${message.slice(2)}`)
  return { signable: message, bytes: utf8Encoder().encode(message) }
}

/** The message as the user should read it: its text when it is printable UTF-8, else its hex. */
export function messageItems(message: PersonalMessage, text = printableText(message.bytes)): ReviewItem[] {
  if (text !== undefined) return [item('Message', text)]
  return [item('Message (hex)', bytesToHex(message.bytes)), item('Length', `${message.bytes.length} bytes`)]
}

/** Warning-code prefix of every Sign-In with Ethereum check (`siwe.domain_mismatch`, …). */
export const siweWarningPrefix = 'siwe'

/**
 * The review of an EIP-191 message signed by `signer`: its text, and when it is a Sign-In with Ethereum
 * message, a "Sign-in" section and the checks of EIP-4361 against the request (origin, account, chain,
 * validity). A message that mentions signing in with an Ethereum account but does not parse strictly is a
 * `danger` itself: wallets that show such a message as plain text are what look-alike phishing relies on.
 */
export function messageReview(
  context: RequestContext,
  signer: Address,
  message: PersonalMessage,
  title: string,
): ReviewDraft {
  const printable = printableText(message.bytes)
  const items = messageItems(message, printable)
  // Not only printable text: a look-alike hidden behind a control character or a bad byte is still flagged.
  const text = printable ?? decodeUtf8(message.bytes)
  if (!looksLikeSiwe(text)) return { account: signer, title, items, warnings: [] }
  const parsed = parseSiweMessage(text)
  if (!parsed.ok) {
    const warning: ReviewWarning = {
      code: `${siweWarningPrefix}.malformed`,
      severity: 'danger',
      message: `This message looks like a Sign-In with Ethereum request but is not a valid one (${parsed.reason}); the site it names cannot be checked.`,
    }
    return { account: signer, title, items, warnings: [warning] }
  }
  const signIn = parsed.message
  const warnings = signInWarnings(context, signIn, bindingsOf(context, signer, signIn), siweWarningPrefix)
  return {
    account: signer,
    title: `Sign in to ${signIn.domain}`,
    items: [signInSection(signIn), ...items],
    warnings,
    signIn,
  }
}

function bindingsOf(context: RequestContext, signer: Address, signIn: SiweMessage) {
  return {
    signer,
    accountMatches: signIn.account.toLowerCase() === signer.toLowerCase(),
    requestChain: context.reference,
    // Both are decimal strings (the parser and the router checked); leading zeros do not make another chain.
    chainMatches: /^[0-9]+$/.test(context.reference) && BigInt(signIn.chain) === BigInt(context.reference),
  }
}

function printableText(bytes: Uint8Array): string | undefined {
  const text = decodeUtf8Strict(bytes)
  return text === undefined || hasHiddenCharacters(text) ? undefined : text
}
