// solana: signMessage and the transaction methods, checked with @noble/curves Ed25519 over the bytes the
// request carries (see internal/solana.ts), independently of the wallet code.
import { equalBytes } from '@noble/curves/utils.js'
import { base58 } from '@scure/base'
import {
  base58Signature,
  isEmptySignature,
  readWireTransaction,
  transactionBytes,
  verifyEd25519,
  type WireTransaction,
} from './internal/solana.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type VerifySolanaOptions = {
  /** The account expected to have signed, when the params do not name one (`pubkey`). */
  pubkey?: string
}

/** `solana_signMessage` `{ message: base58, pubkey }` → `{ signature: base58 }`. Never throws. */
export function verifySolanaSignMessage(params: unknown, result: unknown): VerifyResult {
  return guarded(() => {
    if (!isRecord(params) || typeof params.message !== 'string' || typeof params.pubkey !== 'string') {
      fail('params are not { message, pubkey }')
    }
    if (!isRecord(result)) fail('result is not an object')
    const signature = base58Signature(result.signature, 'result.signature')
    let message: Uint8Array
    try {
      message = base58.decode(params.message)
    } catch {
      fail('params.message is not base58')
    }
    if (!verifyEd25519(signature, message, params.pubkey))
      fail(`the signature is not ${params.pubkey}'s over the message`)
  })
}

/**
 * `solana_signTransaction` `{ transaction, pubkey? }` → `{ signature?, transaction? }`. The signed transaction
 * must carry exactly the requested message, keep every signature the request already had, and every
 * signature it added must verify under its slot's key; `signature` must be the named signer's (or, without
 * a name, one of the added ones). Never throws.
 */
export function verifySolanaSignTransaction(
  params: unknown,
  result: unknown,
  options: VerifySolanaOptions = {},
): VerifyResult {
  return guarded(() => {
    if (!isRecord(params)) fail('params are not an object')
    if (!isRecord(result)) fail('result is not an object')
    const requested = readWireTransaction(transactionBytes(params.transaction, 'params.transaction'))
    const pubkey = typeof params.pubkey === 'string' ? params.pubkey : options.pubkey
    if (result.signature === undefined && result.transaction === undefined) {
      fail('result has neither signature nor transaction')
    }
    let added: string[] = []
    if (result.transaction !== undefined) {
      added = checkSigned(
        requested,
        readWireTransaction(transactionBytes(result.transaction, 'result.transaction')),
      )
      if (pubkey !== undefined && !added.includes(pubkey) && !alreadySigned(requested, pubkey)) {
        fail(`${pubkey} did not sign the transaction`)
      }
    }
    if (result.signature !== undefined) {
      const signature = base58Signature(result.signature, 'result.signature')
      const candidates = pubkey !== undefined ? [pubkey] : added.length > 0 ? added : requested.signers
      if (!candidates.some((signer) => verifyEd25519(signature, requested.message, signer))) {
        fail(`result.signature is not ${pubkey ?? 'a required signer'}'s over the transaction message`)
      }
    }
  })
}

/** `solana_signAllTransactions` `{ transactions }` → `{ transactions }`, each checked as above. Never throws. */
export function verifySolanaSignAllTransactions(params: unknown, result: unknown): VerifyResult {
  return guarded(() => {
    if (!isRecord(params) || !Array.isArray(params.transactions)) fail('params are not { transactions }')
    if (!isRecord(result) || !Array.isArray(result.transactions)) fail('result is not { transactions }')
    const answered: unknown[] = result.transactions
    if (answered.length !== params.transactions.length) {
      fail(`${answered.length} transactions answered for ${params.transactions.length} requested`)
    }
    params.transactions.forEach((transaction, index) => {
      const one = verifySolanaSignTransaction({ transaction }, { transaction: answered[index] })
      if (!one.valid) fail(`transactions.${index}: ${one.reason}`)
    })
  })
}

/**
 * `solana_signAndSendTransaction` → `{ signature }`: the transaction id, i.e. the fee payer's signature over
 * the requested message (checkable without the chain). Never throws.
 */
export function verifySolanaSignAndSendTransaction(params: unknown, result: unknown): VerifyResult {
  return guarded(() => {
    if (!isRecord(params)) fail('params are not an object')
    if (!isRecord(result)) fail('result is not an object')
    const requested = readWireTransaction(transactionBytes(params.transaction, 'params.transaction'))
    const signature = base58Signature(result.signature, 'result.signature')
    if (!verifyEd25519(signature, requested.message, requested.signers[0]!)) {
      fail("result.signature is not the fee payer's signature over the transaction message")
    }
  })
}

/** The signers whose slots the wallet filled; fails on any other change. */
function checkSigned(requested: WireTransaction, signed: WireTransaction): string[] {
  if (!equalBytes(requested.message, signed.message)) fail('the signed transaction carries another message')
  const added: string[] = []
  signed.signatures.forEach((signature, slot) => {
    const before = requested.signatures[slot]!
    const signer = signed.signers[slot]!
    if (!isEmptySignature(before)) {
      if (!equalBytes(before, signature))
        fail(`the signature of ${signer} that was already present was changed`)
      return
    }
    if (isEmptySignature(signature)) return
    if (!verifyEd25519(signature, signed.message, signer))
      fail(`the signature in ${signer}'s slot does not verify`)
    added.push(signer)
  })
  if (added.length === 0) fail('the wallet added no signature')
  return added
}

function alreadySigned(requested: WireTransaction, pubkey: string): boolean {
  const slot = requested.signers.indexOf(pubkey)
  return slot >= 0 && !isEmptySignature(requested.signatures[slot]!)
}
