import {
  type Address,
  bytesToHex,
  type Hex,
  hashMessage,
  hashTypedData,
  hexToBytes,
  isAddressEqual,
  keccak256,
  parseSignature,
  parseTransaction,
  serializeTransaction,
  type TransactionSerializable,
} from 'viem'
import { type LocalAccount, publicKeyToAddress } from 'viem/accounts'
import { ecc } from '../crypto/secp256k1.js'

/**
 * Wraps an account this library did not build (an HSM, a remote or MPC signer, a hardware wallet behind
 * `toAccount`) so that nothing it returns is passed on unchecked: every signature must recover to the
 * account's address over the hash we asked for, and a signed transaction must carry exactly the fields we
 * asked it to sign. A faulty or compromised signer must not make the wallet hand a dapp a signature for
 * another key, or broadcast a transaction the user did not approve.
 */
export function checkedAccount<Account extends LocalAccount>(account: Account): Account {
  const { address } = account
  const checked: LocalAccount = {
    ...account,
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

/** The address whose key made `signature` (r ‖ s ‖ v, 65 bytes hex) over `hash`, or undefined. */
function recoverSigner(hash: Uint8Array, signature: Hex): Address | undefined {
  let parsed: ReturnType<typeof parseSignature>
  try {
    parsed = parseSignature(signature)
  } catch {
    return undefined
  }
  if (parsed.yParity !== 0 && parsed.yParity !== 1) return undefined
  const compact = hexToBytes(`0x${word(parsed.r)}${word(parsed.s)}`)
  try {
    const publicKey = ecc.recover(hash, compact, parsed.yParity, false)
    return publicKey === null ? undefined : publicKeyToAddress(bytesToHex(publicKey))
  } catch {
    return undefined // r or s out of range
  }
}

function assertSignedBy(address: Address, hash: Uint8Array, signature: Hex, what: string): void {
  const signer = typeof signature === 'string' ? recoverSigner(hash, signature) : undefined
  if (signer === undefined || !isAddressEqual(signer, address)) {
    throw new Error(`external signer returned a ${what} signature that does not recover to ${address}`)
  }
}

/** The raw transaction must be the requested one (same unsigned serialization), signed by `address`. */
function assertTransaction(address: Address, requested: TransactionSerializable, raw: Hex): void {
  let parsed: ReturnType<typeof parseTransaction>
  try {
    parsed = parseTransaction(raw)
  } catch {
    throw new Error('external signer returned a transaction that does not parse')
  }
  const { r, s, v, yParity, ...fields } = parsed as typeof parsed & { v?: bigint; yParity?: number }
  const unsigned = serializeTransaction(fields as TransactionSerializable)
  if (unsigned !== serializeTransaction(requested)) {
    throw new Error('external signer returned a transaction other than the one it was asked to sign')
  }
  if (r === undefined || s === undefined) throw new Error('external signer returned an unsigned transaction')
  // v is 27/28, or 35 + 2·chainId + parity (EIP-155): odd means parity 0 either way.
  const parity = yParity ?? Number((v ?? 0n) % 2n === 0n)
  const signature: Hex = `0x${word(r)}${word(s)}${parity === 0 ? '1b' : '1c'}`
  assertSignedBy(address, hexToBytes(keccak256(unsigned)), signature, 'transaction')
}

/** A 32-byte word of r or s as 64 hex digits (viem may trim leading zeros). */
const word = (hex: Hex): string => hex.slice(2).padStart(64, '0')
