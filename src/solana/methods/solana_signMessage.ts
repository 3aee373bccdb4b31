import * as v from 'valibot'
import { PolicyRefusedError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { item, type ReviewItem, type ReviewWarning } from '../../core/review.js'
import { decodeBase58, encodeBase58, encodeBase64, parseAddress } from '../encoding.js'
import { decodeMessage, decodeTransaction } from '../transaction.js'
import { ownedSigner, type SolanaWallet } from '../wallet.js'

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
  for (const decode of [decodeTransaction, decodeMessage]) {
    try {
      decode(message, 'message')
    } catch {
      continue
    }
    throw new PolicyRefusedError('the message is a serialized Solana transaction; sign it as a transaction', {
      rule: 'solana.sign_message.transaction',
    })
  }
}

function hasHiddenCharacters(text: string): boolean {
  for (const char of text) {
    const code = char.codePointAt(0)!
    if (code === 0x09 || code === 0x0a || code === 0x0d) continue
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true
    if (
      (code >= 0x200b && code <= 0x200f) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069)
    ) {
      return true
    }
  }
  return false
}

function messageItems(message: Uint8Array): { items: ReviewItem[]; warnings: ReviewWarning[] } {
  let text: string | undefined
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(message)
  } catch {
    text = undefined
  }
  // Printable text only: control and bidi characters (other than line breaks and tabs) could hide what is signed.
  if (text !== undefined && !hasHiddenCharacters(text)) {
    return { items: [item('Message', text)], warnings: [] }
  }
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

/** `solana_signMessage` → `{ signature: base58 }`: a detached Ed25519 signature over the message bytes. */
export const solana_signMessage = (wallet: SolanaWallet) =>
  defineMethod({
    params: solanaSignMessageParams,
    plan(_context, params) {
      parseAddress(params.pubkey, 'pubkey')
      const message = decodeBase58(params.message, 'message')
      ownedSigner(wallet, params.pubkey)
      assertPlainMessage(message)
      const { items, warnings } = messageItems(message)
      return {
        review: { account: params.pubkey, title: 'Sign message', items, warnings },
        plan: { pubkey: params.pubkey, message } satisfies Plan,
      }
    },
    async execute(_context, plan: Plan): Promise<SolanaSignMessageResult> {
      const signature = await ownedSigner(wallet, plan.pubkey).sign(plan.message)
      return { signature: encodeBase58(signature) }
    },
  })
