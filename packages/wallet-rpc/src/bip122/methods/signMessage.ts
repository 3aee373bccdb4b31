import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import * as v from 'valibot'
import { InvalidParamsError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { item, type ReviewDraft, type ReviewWarning } from '../../core/review.js'
import { hasHiddenCharacters } from '../../core/text.js'
import { bip137Signature, bitcoinMessageHash } from '../message/bip137.js'
import {
  type Bip322Sighash,
  bip322MessageHash,
  segwitV0Sighash,
  serializeWitness,
  taprootSighash,
} from '../message/bip322.js'
import { ownedAddress } from '../ownership.js'
import { encodeDerSignature } from '../transaction/scripts.js'
import { SIGHASH_ALL } from '../transaction/sighash.js'
import type { Account, AccountAddress, Bip122Wallet } from '../types.js'

/**
 * `signMessage {account, message, address?, protocol?}` → `{address, signature, messageHash}`.
 *
 * - `address` defaults to the address `account` names (dapps send the signing address as `account`).
 * - `ecdsa` (the default): BIP-137 compact signature, 65 bytes hex, header for the address type
 *   (31+ P2PKH, 35+ P2SH-P2WPKH, 39+ P2WPKH). `messageHash` = the magic-prefixed double SHA-256.
 *   Taproot has no BIP-137 form: without `protocol` a P2TR address signs BIP-322; asking `ecdsa` for one is -32602.
 * - `bip322`: BIP-322 simple signature = the serialized witness, hex, no `smp` prefix (what bip322-js verifies).
 *   P2WPKH and P2SH-P2WPKH sign BIP-143 SIGHASH_ALL, P2TR signs BIP-341 SIGHASH_DEFAULT (64 bytes). For
 *   P2SH-P2WPKH this is the witness-only form bip322-js and Xverse produce and verify (BIP-322 itself would
 *   want the `ful` form there, which today's dapp verifiers do not read). P2PKH
 *   gets the legacy BIP-137 signature, as BIP-322 allows. `messageHash` = the BIP-322 tagged message hash.
 * The message is the UTF-8 encoding of the string.
 */
export const signMessageParams = v.object({
  account: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  message: v.string(),
  address: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  protocol: v.optional(v.picklist(['ecdsa', 'bip322'])),
})

export type SignMessageParams = v.InferOutput<typeof signMessageParams>

type Scheme = 'bip137' | 'bip322'

type SignMessagePlan = {
  account: Account
  owner: AccountAddress
  scheme: Scheme
  messageHash: Uint8Array
}

export type SignMessageResult = { address: string; signature: string; messageHash: string }

export const signMessage = (wallet: Bip122Wallet) =>
  defineMethod({
    params: signMessageParams,
    async plan(context, params) {
      const account = await wallet.resolveAccount(context.chainId, params.account)
      const owner = await ownedAddress(
        account,
        params.address ?? params.account,
        params.address ? 'address' : 'account',
      )
      const scheme = schemeFor(owner, params.protocol)
      const message = utf8ToBytes(params.message)
      const messageHash = scheme === 'bip322' ? bip322MessageHash(message) : bitcoinMessageHash(message)
      return {
        review: reviewOf(account, owner, scheme, params.message, message.length),
        plan: { account, owner, scheme, messageHash } satisfies SignMessagePlan,
      }
    },
    async execute(_context, plan): Promise<SignMessageResult> {
      const signature = await sign(plan)
      return {
        address: plan.owner.address,
        signature: bytesToHex(signature),
        messageHash: bytesToHex(plan.messageHash),
      }
    },
  })

function schemeFor(owner: AccountAddress, protocol: 'ecdsa' | 'bip322' | undefined): Scheme {
  if (owner.addressType === 'p2tr') {
    if (protocol === 'ecdsa') {
      throw new InvalidParamsError('ecdsa (BIP-137) has no taproot form; use protocol "bip322"', {
        path: 'protocol',
      })
    }
    return 'bip322'
  }
  // BIP-322 lets P2PKH use the legacy format.
  if (protocol !== 'bip322' || owner.addressType === 'p2pkh') return 'bip137'
  return 'bip322'
}

async function sign({ account, owner, scheme, messageHash }: SignMessagePlan): Promise<Uint8Array> {
  if (scheme === 'bip137') {
    const { signature, recoveryId } = await account.signEcdsaRecoverable(owner, messageHash)
    return bip137Signature(owner.addressType, signature, recoveryId)
  }
  const sighash = bip322Sighash(owner)(messageHash)
  if (owner.addressType === 'p2tr') return serializeWitness([await account.signTaproot(owner, sighash)])
  const signature = await account.signEcdsa(owner, sighash)
  return serializeWitness([encodeDerSignature(signature, SIGHASH_ALL), owner.publicKey])
}

/** BIP-322 sighash functions per address record: each holds its address's serialized virtual transactions. */
const sighashes = new WeakMap<AccountAddress, Bip322Sighash>()

function bip322Sighash(owner: AccountAddress): Bip322Sighash {
  let sighash = sighashes.get(owner)
  if (sighash === undefined) {
    sighash =
      owner.addressType === 'p2tr'
        ? taprootSighash(owner.scriptPubKey)
        : // The key hash is the witness program of P2WPKH (`0014‖h`), or of the P2SH-P2WPKH redeem script.
          segwitV0Sighash(owner.scriptPubKey, (owner.redeemScript ?? owner.scriptPubKey).subarray(2, 22))
    sighashes.set(owner, sighash)
  }
  return sighash
}

const previewLimit = 2000
function reviewOf(
  account: Account,
  owner: AccountAddress,
  scheme: Scheme,
  message: string,
  byteLength: number,
): ReviewDraft {
  const warnings: ReviewWarning[] = []
  if (hasHiddenCharacters(message)) {
    warnings.push({
      code: 'message.hidden_characters',
      severity: 'caution',
      message: 'The message contains invisible or direction-changing characters.',
    })
  }
  if (message.length > previewLimit) {
    warnings.push({
      code: 'message.truncated',
      severity: 'info',
      message: `Only the first ${previewLimit} characters of the message are shown.`,
    })
  }
  return {
    account: account.id,
    title: 'Sign message',
    items: [
      item('Address', owner.address),
      item('Protocol', scheme === 'bip322' ? 'BIP-322 (simple)' : 'BIP-137 (Bitcoin Signed Message)'),
      item('Message', message.length > previewLimit ? `${message.slice(0, previewLimit)}…` : message),
      item('Message size', `${byteLength} bytes`),
    ],
    warnings,
  }
}
