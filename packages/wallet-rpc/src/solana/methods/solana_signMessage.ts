import * as v from 'valibot'
import { PolicyRefusedError } from '../../core/errors.js'
import { defineMethod, type RequestContext } from '../../core/namespace.js'
import { item, type ReviewDraft, type ReviewItem, type ReviewWarning } from '../../core/review.js'
import { signInSection, signInWarnings } from '../../core/signIn.js'
import { hasHiddenCharacters } from '../../core/text.js'
import { decodeUtf8, decodeUtf8Strict } from '../../core/utf8.js'
import { ownedSigner, type SolanaWallet } from '../context.js'
import { decodeBase58, encodeBase58, encodeBase64, parseAddress } from '../encoding.js'
import { looksLikeSiws, parseSiwsMessage, siwsChains } from '../siws.js'
import { decodeMessage, decodeTransaction } from '../transaction.js'

/** `{ message: base58, pubkey: base58 }`. */
export const solanaSignMessageParams = v.looseObject({
  message: v.string('must be a base58 string'),
  pubkey: v.string('must be a base58 public key'),
})

export type SolanaSignMessageResult = { signature: string }

type Plan = { pubkey: string; message: Uint8Array }

/**
 * Refuses bytes that are, or could be, something else to sign: the off-chain message domain (0xff first),
 * or anything that decodes as a transaction or a transaction message, so a "message" can never be a blind
 * signature over a transaction.
 */
function assertPlainMessage(message: Uint8Array): void {
  if (message[0] === 0xff) {
    throw new PolicyRefusedError('a message starting with 0xff is reserved for off-chain message formats', {
      rule: 'solana.sign_message.offchain_prefix',
    })
  }
  if (decodesAsTransactionOrMessage(message)) {
    throw new PolicyRefusedError('the message is a serialized Solana transaction; sign it as a transaction', {
      rule: 'solana.sign_message.transaction',
    })
  }
}

/**
 * Whether `bytes` decode as a wire transaction or a bare message. Text is neither, and proving that with the
 * decoders costs two thrown errors (14–16 µs in Node, half an Ed25519 signature), so a header check that
 * cannot pass for either goes first (0.01 µs); only bytes it cannot rule out reach the decoders, which alone
 * decide.
 */
export function decodesAsTransactionOrMessage(bytes: Uint8Array): boolean {
  return (
    (mayBeTransaction(bytes) && decodes(decodeTransaction, bytes)) ||
    (mayBeMessage(bytes, 0) && decodes(decodeMessage, bytes))
  )
}

function decodes(decode: (bytes: Uint8Array, root: string) => unknown, bytes: Uint8Array): boolean {
  try {
    decode(bytes, 'message')
    return true
  } catch {
    return false
  }
}

/** False only when decodeTransaction must fail: no signature slot, too few bytes for them, or no message after. */
function mayBeTransaction(bytes: Uint8Array): boolean {
  const count = readShortVec(bytes, 0)
  if (count === undefined || count.value === 0) return false
  return mayBeMessage(bytes, count.next + 64 * count.value)
}

/**
 * False only when decodeMessage's rules must refuse a message at `start`: its header (version, signer
 * counts against the account keys, read-only counts), at most 256 keys, and room for the keys, the recent
 * blockhash and the instruction count.
 */
function mayBeMessage(bytes: Uint8Array, start: number): boolean {
  const first = bytes[start]
  if (first === undefined) return false
  const versioned = (first & 0x80) !== 0
  if (versioned && first !== 0x80) return false
  const headerEnd = start + (versioned ? 4 : 3)
  if (headerEnd > bytes.length) return false
  const signers = versioned ? bytes[start + 1]! : first
  const readonlySigned = bytes[headerEnd - 2]!
  const readonlyUnsigned = bytes[headerEnd - 1]!
  const keys = readShortVec(bytes, headerEnd)
  if (keys === undefined || keys.value > 256) return false
  if (signers === 0 || signers > keys.value || readonlySigned >= signers) return false
  if (readonlyUnsigned > keys.value - signers) return false
  return keys.next + 32 * keys.value + 32 + 1 + (versioned ? 1 : 0) <= bytes.length
}

/** A compact-u16 at `offset` by WireReader.shortVec's rules, or undefined where it would throw. */
function readShortVec(bytes: Uint8Array, offset: number): { value: number; next: number } | undefined {
  let value = 0
  for (let position = 0; position < 3; position++) {
    const byte = bytes[offset + position]
    if (byte === undefined) return undefined
    value |= (byte & 0x7f) << (7 * position)
    if ((byte & 0x80) === 0) {
      if ((byte === 0 && position > 0) || value > 0xffff) return undefined
      return { value, next: offset + position + 1 }
    }
  }
  return undefined
}

function messageItems(message: Uint8Array): { items: ReviewItem[]; warnings: ReviewWarning[] } {
  const text = printableText(message)
  if (text !== undefined) return { items: [item('Message', text)], warnings: [] }
  return {
    items: [item('Message (base64)', encodeBase64(message))],
    warnings: [
      {
        code: 'solana.sign_message.binary',
        severity: 'caution',
        message: 'The app asks you to sign bytes the wallet cannot show as text. Sign only if you trust it.',
      },
    ],
  }
}

/** Printable text only: control and bidi characters (other than line breaks and tabs) could hide what is signed. */
function printableText(message: Uint8Array): string | undefined {
  const text = decodeUtf8Strict(message)
  return text === undefined || hasHiddenCharacters(text) ? undefined : text
}

/** Warning-code prefix of every Sign In With Solana check (`siws.domain_mismatch`, …). */
export const siwsWarningPrefix = 'siws'

/**
 * The review of a message signed by `pubkey`: its text, and when it is a Sign In With Solana message, a
 * "Sign-in" section and the same checks as Sign-In with Ethereum (origin, account, cluster, validity). A
 * message that mentions signing in with a Solana account but does not parse strictly is a `danger` itself.
 */
function messageReview(context: RequestContext, pubkey: string, message: Uint8Array): ReviewDraft {
  const { items, warnings } = messageItems(message)
  const text = printableText(message) ?? decodeUtf8(message)
  if (!looksLikeSiws(text)) return { account: pubkey, title: 'Sign message', items, warnings }
  const parsed = parseSiwsMessage(text)
  if (!parsed.ok) {
    const malformed: ReviewWarning = {
      code: `${siwsWarningPrefix}.malformed`,
      severity: 'danger',
      message: `This message looks like a Sign In With Solana request but is not a valid one (${parsed.reason}); the site it names cannot be checked.`,
    }
    return { account: pubkey, title: 'Sign message', items, warnings: [...warnings, malformed] }
  }
  const signIn = parsed.message
  const namedChain = signIn.chain === undefined ? undefined : siwsChains[signIn.chain]
  const signInChecks = signInWarnings(
    context,
    signIn,
    {
      signer: pubkey,
      accountMatches: signIn.account === pubkey,
      requestChain: context.chainId,
      chainMatches: namedChain === undefined || namedChain === context.chainId,
    },
    siwsWarningPrefix,
  )
  if (signIn.nonce === undefined) {
    signInChecks.push({
      code: `${siwsWarningPrefix}.no_nonce`,
      severity: 'caution',
      message: 'This sign-in carries no nonce, so the site cannot tell this signature from a replayed one.',
    })
  }
  return {
    account: pubkey,
    title: `Sign in to ${signIn.domain}`,
    items: [signInSection(signIn), ...items],
    warnings: [...warnings, ...signInChecks],
    signIn,
  }
}

/** `solana_signMessage` → `{ signature: base58 }`: a detached Ed25519 signature over the message bytes. */
export const solana_signMessage = (wallet: SolanaWallet) =>
  defineMethod({
    params: solanaSignMessageParams,
    plan(context, params) {
      parseAddress(params.pubkey, 'pubkey')
      const message = decodeBase58(params.message, 'message')
      ownedSigner(wallet, params.pubkey)
      assertPlainMessage(message)
      return {
        review: messageReview(context, params.pubkey, message),
        plan: { pubkey: params.pubkey, message } satisfies Plan,
      }
    },
    async execute(_context, plan: Plan): Promise<SolanaSignMessageResult> {
      const signature = await ownedSigner(wallet, plan.pubkey).sign(plan.message)
      return { signature: encodeBase58(signature) }
    },
  })
