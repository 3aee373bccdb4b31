import { equalBytes } from '@noble/curves/utils.js'
import * as v from 'valibot'
import { InvalidParamsError, PolicyRefusedError, UnauthorizedError } from '../core/errors.js'
import { ownedSigner, type SolanaWallet } from './context.js'
import {
  addressOf,
  base64Decode,
  decodeBase58,
  encodeBase58,
  encodeBase64,
  encodeShortVec,
  parseAddress,
} from './encoding.js'
import {
  accountRefs,
  decodeTransaction,
  encodeTransaction,
  isSigner,
  isWritable,
  type SolanaTransaction,
} from './transaction.js'

/** The pre-versioned-transaction copy AppKit adds for old wallets: compared with the bytes, never signed. */
const legacyInstruction = v.looseObject({
  programId: v.string(),
  keys: v.array(v.looseObject({ pubkey: v.string(), isSigner: v.boolean(), isWritable: v.boolean() })),
  data: v.string(),
})

/** Fields of one transaction request: the serialized transaction plus the optional legacy copy. */
export const transactionFields = {
  transaction: v.pipe(
    v.string('must be a base64 (or base58) serialized transaction'),
    v.minLength(1, 'must not be empty'),
  ),
  pubkey: v.optional(v.string()),
  feePayer: v.optional(v.string()),
  recentBlockhash: v.optional(v.string()),
  instructions: v.optional(v.array(legacyInstruction)),
}

export const transactionParams = v.looseObject(transactionFields)

/** One transaction request's fields (the `solana_signAllTransactions` entries carry `transaction` alone). */
export type TransactionRequest = {
  transaction: string
  pubkey?: string | undefined
  feePayer?: string | undefined
  recentBlockhash?: string | undefined
  instructions?: v.InferOutput<typeof legacyInstruction>[] | undefined
}

export type TransactionEncoding = 'base64' | 'base58'

/** A decoded request, ready to review and sign. */
export type PreparedTransaction = {
  transaction: SolanaTransaction
  encoding: TransactionEncoding
  /** Signer slots this wallet fills, in slot order. */
  ourSlots: Array<{ slot: number; address: string }>
  /** The account the dapp named (`pubkey`), else our first signer. */
  account: string
  /** Where the transaction sits in the params (`transaction`, `transactions.3`), for error paths. */
  path: string
  /** The transaction as the dapp sent it (canonical: the decoders are strict). */
  text: string
}

const base64Syntax = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const base58Syntax = /^[1-9A-HJ-NP-Za-km-z]+$/

/**
 * A serialized transaction in base64 (what the WalletConnect reference and AppKit send) or base58 (what older
 * dapps send). Base64 is tried first; a string valid in both that decodes as a transaction only in base58
 * is read as base58. When neither decodes, the error is the base64 reading's, with its field path.
 */
export function decodeTransactionText(
  text: string,
  path: string,
): { transaction: SolanaTransaction; encoding: TransactionEncoding } {
  let firstError: unknown
  const base64Bytes = base64Decode(text)
  if (base64Bytes !== undefined) {
    try {
      return { transaction: decodeTransaction(base64Bytes, path), encoding: 'base64' }
    } catch (error) {
      firstError = error
    }
  } else if (base64Syntax.test(text)) {
    // Base64 in form but not canonical (bits left over after the padding): the base64 reading's error.
    firstError = new InvalidParamsError('must be base64', { path })
  }
  if (base58Syntax.test(text)) {
    try {
      return { transaction: decodeTransaction(decodeBase58(text, path), path), encoding: 'base58' }
    } catch (error) {
      firstError ??= error
    }
  }
  throw firstError ?? new InvalidParamsError('must be a base64 or base58 serialized transaction', { path })
}

/**
 * Decodes and checks one transaction request: the legacy copy (when sent) must describe exactly the
 * transaction's bytes, `pubkey` must be ours and a required signer, and at least one required signer must be
 * ours. `root` is the path prefix of the request's fields (`''` or `transactions.3`).
 */
export function prepareTransaction(
  wallet: SolanaWallet,
  params: TransactionRequest,
  root: string,
): PreparedTransaction {
  const path = fieldPath(root, 'transaction')
  const { transaction, encoding } = decodeTransactionText(params.transaction, path)
  checkLegacyCopy(transaction, params, root)
  const { message } = transaction
  const ourSlots: PreparedTransaction['ourSlots'] = []
  for (let slot = 0; slot < message.header.numRequiredSignatures; slot++) {
    const address = message.staticAddresses[slot]!
    if (wallet.signers.has(address)) ourSlots.push({ slot, address })
  }
  let account = ourSlots[0]?.address
  if (params.pubkey !== undefined) {
    parseAddress(params.pubkey, fieldPath(root, 'pubkey'))
    ownedSigner(wallet, params.pubkey)
    if (!ourSlots.some((slot) => slot.address === params.pubkey)) {
      throw new PolicyRefusedError(`${params.pubkey} is not a required signer of this transaction`, {
        rule: 'solana.not_a_signer',
      })
    }
    account = params.pubkey
  }
  if (account === undefined) {
    // None of the transaction's required signers is ours: nothing to sign, and nothing to show as ours.
    throw new UnauthorizedError(message.staticAddresses[0]!)
  }
  return { transaction, encoding, ourSlots, account, path, text: params.transaction }
}

// Module functions, not closures made per request: on the signing path each closure is an allocation (and
// under tsx, whose esbuild keeps names, a property definition too).

/** `field` under the request's `root` (`''` or `transactions.3`). */
function fieldPath(root: string, field: string): string {
  return root === '' ? field : `${root}.${field}`
}

function differs(root: string, field: string, what: string): never {
  throw new InvalidParamsError(`${what} differs from the serialized transaction`, {
    path: fieldPath(root, field),
  })
}

function checkLegacyCopy(transaction: SolanaTransaction, params: TransactionRequest, root: string): void {
  const { message } = transaction
  if (params.feePayer !== undefined && params.feePayer !== message.staticAddresses[0]) {
    differs(root, 'feePayer', 'the fee payer')
  }
  if (
    params.recentBlockhash !== undefined &&
    params.recentBlockhash !== encodeBase58(message.recentBlockhash)
  ) {
    differs(root, 'recentBlockhash', 'the recent blockhash')
  }
  if (params.instructions === undefined) return
  if (params.instructions.length !== message.instructions.length)
    differs(root, 'instructions', 'the instruction count')
  const refs = accountRefs(message)
  params.instructions.forEach((legacy, index) => {
    const compiled = message.instructions[index]!
    const path = `instructions.${index}`
    if (legacy.programId !== message.staticAddresses[compiled.programIdIndex]) {
      differs(root, `${path}.programId`, 'the program id')
    }
    let data: Uint8Array
    try {
      data = decodeBase58(legacy.data, fieldPath(root, `${path}.data`))
    } catch {
      differs(root, `${path}.data`, 'the instruction data')
    }
    if (!equalBytes(data!, compiled.data)) differs(root, `${path}.data`, 'the instruction data')
    if (legacy.keys.length !== compiled.accountIndexes.length)
      differs(root, `${path}.keys`, 'the account count')
    legacy.keys.forEach((key, position) => {
      const accountIndex = compiled.accountIndexes[position]!
      const ref = refs[accountIndex]!
      // A legacy copy cannot name an account loaded from a lookup table: only legacy transactions have one.
      if (!(ref instanceof Uint8Array) || key.pubkey !== addressOf(ref)) {
        differs(root, `${path}.keys.${position}.pubkey`, 'the account')
      }
      // web3.js merges flags across instructions when it compiles, so the message may grant more, never less.
      if (key.isSigner && !isSigner(message, accountIndex))
        differs(root, `${path}.keys.${position}.isSigner`, 'the signer flag')
      if (key.isWritable && !isWritable(message, accountIndex)) {
        differs(root, `${path}.keys.${position}.isWritable`, 'the writable flag')
      }
    })
  })
}

/**
 * Fills our signer slots over the message bytes as received and keeps every other slot (a sponsor's
 * signature, a co-signer's) untouched. Returns the signed transaction and the signature of `account`.
 */
export async function signPrepared(
  wallet: SolanaWallet,
  prepared: PreparedTransaction,
): Promise<{ signed: SolanaTransaction; signature: Uint8Array }> {
  const signatures = prepared.transaction.signatures.map((signature) => new Uint8Array(signature))
  let accountSignature: Uint8Array | undefined
  for (const { slot, address } of prepared.ourSlots) {
    const answer = ownedSigner(wallet, address).sign(prepared.transaction.message.bytes)
    // A copy (a Buffer from node:crypto becomes a plain Uint8Array); no extra turn for a synchronous signer.
    const signature = new Uint8Array(answer instanceof Uint8Array ? answer : await answer)
    if (signature.length !== 64) throw new Error(`signer ${address} returned ${signature.length} bytes`)
    signatures[slot] = signature
    if (address === prepared.account) accountSignature = signature
  }
  const signed = { signatures, message: prepared.transaction.message }
  return { signed, signature: accountSignature! }
}

/** Where encodeSigned assembles the bytes it encodes; reused, as it is encoded within the call. */
let headScratch = new Uint8Array(256)

/**
 * The signed transaction in the encoding `prepared` came in. Only the signature slots differ from the bytes
 * received, so in base64 every character past the quantum holding the last slot byte is the request's own:
 * only the slots (and the message bytes completing their last quantum) are encoded, the rest is copied
 * (byte-identical to `encodeBase64(encodeTransaction(signed))`; the decoder is canonical).
 */
export function encodeSigned(prepared: PreparedTransaction, signed: SolanaTransaction): string {
  const message = signed.message.bytes
  const count = encodeShortVec(signed.signatures.length)
  const slotsEnd = count.length + 64 * signed.signatures.length
  const changed = Math.ceil(slotsEnd / 3) * 3
  if (prepared.encoding === 'base58' || changed >= slotsEnd + message.length) {
    const bytes = encodeTransaction(signed)
    return prepared.encoding === 'base58' ? encodeBase58(bytes) : encodeBase64(bytes)
  }
  // Scratch (encoded at once), not a new array: see allocateBytes.
  if (headScratch.length < changed) headScratch = new Uint8Array(changed)
  const head = headScratch.subarray(0, changed)
  head.set(count)
  let offset = count.length
  for (const signature of signed.signatures) {
    head.set(signature, offset)
    offset += 64
  }
  head.set(message.subarray(0, changed - slotsEnd), slotsEnd)
  return encodeBase64(head) + prepared.text.slice((changed / 3) * 4)
}
