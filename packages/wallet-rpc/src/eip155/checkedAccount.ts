import type { Address, Hex, TransactionSerializable } from 'viem'
import type { LocalAccount } from 'viem/accounts'
import { recoverSigner } from './recoverSigner.js'
import {
  hashMessage,
  hashTypedData,
  hexToBytes,
  isAddressEqual,
  keccak256,
  parseTransaction,
  serializeTransaction,
} from './viemUtils.js'

/**
 * Wraps an account this library did not build (an HSM, a remote or MPC signer, a hardware wallet behind
 * `toAccount`) so that nothing it returns is passed on unchecked: every signature must be r ‖ s ‖ v with a
 * low s and recover to the account's address over the hash we asked for, and a signed transaction must be,
 * byte for byte, the one we asked it to sign with that signature. A faulty or compromised signer must not
 * make the wallet hand a dapp a signature for another key, or broadcast a transaction the user did not approve.
 */
export function checkedAccount<Account extends LocalAccount>(account: Account): Account {
  const { address } = account
  // Not copied: `signAuthorization` (EIP-7702, refused by this namespace), which nothing here could check.
  const { signAuthorization: _unchecked, ...rest } = account
  const checked: LocalAccount = {
    ...rest,
    async signMessage(parameters) {
      const signature = await account.signMessage(parameters)
      assertSignedBy(address, hashMessage(parameters.message, 'bytes'), signature, 'message')
      return signature
    },
    async signTypedData(typedData) {
      const signature = await account.signTypedData(typedData)
      assertSignedBy(address, hexToBytes(hashTypedData(typedData)), signature, 'typed-data')
      return signature
    },
    async signTransaction(transaction, options) {
      const raw = await account.signTransaction(transaction, options)
      assertTransaction(address, transaction as TransactionSerializable, raw)
      return raw
    },
  }
  if (account.sign) {
    const sign = account.sign
    checked.sign = async (parameters) => {
      const signature = await sign(parameters)
      assertSignedBy(address, hexToBytes(parameters.hash), signature, 'hash')
      return signature
    }
  }
  return checked as Account
}

function assertSignedBy(address: Address, hash: Uint8Array, signature: Hex, what: string): void {
  const signer = typeof signature === 'string' ? recoverSigner(hash, signature) : undefined
  if (signer === undefined || !isAddressEqual(signer, address)) {
    throw new Error(`external signer returned a ${what} signature that does not recover to ${address}`)
  }
}

/**
 * The raw transaction must be exactly the requested one encoded with its signature, signed by `address`.
 * Comparing the bytes rather than the parsed fields also refuses what a parser forgives: a non-canonical
 * encoding (leading zeros), or a legacy `v` naming another chain.
 */
function assertTransaction(address: Address, requested: TransactionSerializable, raw: Hex): void {
  let parsed: ReturnType<typeof parseTransaction>
  try {
    parsed = parseTransaction(raw)
  } catch {
    throw new Error('external signer returned a transaction that does not parse')
  }
  const { r, s, yParity } = parsed
  if (r === undefined || s === undefined || yParity === undefined) {
    throw new Error('external signer returned an unsigned transaction')
  }
  // v 27/28: viem turns it into EIP-155's 35 + 2·chainId + parity for a legacy transaction with a chain id.
  if (raw !== serializeTransaction(requested, { r, s, yParity, v: yParity === 0 ? 27n : 28n })) {
    throw new Error('external signer returned a transaction other than the one it was asked to sign')
  }
  const signature: Hex = `0x${word(r)}${word(s)}${yParity === 0 ? '1b' : '1c'}`
  assertSignedBy(address, keccak256(serializeTransaction(requested), 'bytes'), signature, 'transaction')
}

/** A 32-byte word of r or s as 64 hex digits (viem may trim leading zeros). */
const word = (hex: Hex): string => hex.slice(2).padStart(64, '0')
