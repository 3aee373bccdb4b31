import type { Address, Hex } from 'viem'
import { ecc } from '../crypto/secp256k1.js'
import {
  bytesToHex,
  hexToBytes,
  keccak256,
  parseTransaction,
  publicKeyToAddress,
  serializeTransaction,
} from './viemUtils.js'

/** secp256k1's n / 2: a larger s is the malleated twin of a low-s signature (EIP-2), never an honest one. */
const halfCurveOrder = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

/**
 * The address whose key made `signature` over `hash`: exactly r ‖ s ‖ v as 65 bytes of hex, v one of
 * 0, 1, 27, 28, s low; undefined for anything else (a longer v, blanks, a `0X` prefix, r or s out of range).
 */
export function recoverSigner(hash: Uint8Array, signature: Hex): Address | undefined {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return undefined
  const v = Number.parseInt(signature.slice(130), 16)
  const yParity = v === 0 || v === 27 ? 0 : v === 1 || v === 28 ? 1 : undefined
  if (yParity === undefined || BigInt(`0x${signature.slice(66, 130)}`) > halfCurveOrder) return undefined
  try {
    const publicKey = ecc.recover(hash, hexToBytes(signature).subarray(0, 64), yParity, false)
    return publicKey === null ? undefined : publicKeyToAddress(bytesToHex(publicKey))
  } catch {
    return undefined
  }
}

/**
 * The sender of a signed serialized transaction (viem's `recoverTransactionAddress`, which only viem's root
 * exports): the signer of the keccak-256 of the transaction serialized without its signature. Throws when
 * the bytes are not a signed transaction.
 */
export function recoverTransactionSender(serialized: Hex): Address {
  const transaction = parseTransaction(serialized)
  const { r, s, yParity } = transaction
  if (r === undefined || s === undefined || yParity === undefined) throw new Error('unsigned transaction')
  const unsigned = serializeTransaction({
    ...transaction,
    r: undefined,
    s: undefined,
    v: undefined,
    yParity: undefined,
    sidecars: undefined,
  } as never)
  const signature = `0x${r.slice(2).padStart(64, '0')}${s.slice(2).padStart(64, '0')}0${yParity}` as Hex
  const sender = recoverSigner(keccak256(unsigned, 'bytes'), signature)
  if (sender === undefined) throw new Error('the signature does not recover')
  return sender
}
