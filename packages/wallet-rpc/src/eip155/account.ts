import type { Hex, Signature, TypedDataDefinition } from 'viem'
import { type LocalAccount, privateKeyToAccount, toAccount } from 'viem/accounts'
import {
  ecc,
  PORTABLE_SECP256K1,
  type Secp256k1,
  type Secp256k1Backend,
  secp256k1Backend,
} from '../crypto/secp256k1.js'
import { typedDataDigest } from './eip712.js'
import {
  bytesToHex,
  getAddress,
  hashMessage,
  hexToBytes,
  keccak256,
  serializeTransaction,
} from './viemUtils.js'

/**
 * A viem `LocalAccount` for a private key this wallet holds, signing with the shared secp256k1 backend
 * (libsecp256k1 as WASM where it loads, else @noble/curves) instead of viem's pure-JS signer. Both give
 * viem's deterministic signatures (RFC 6979 nonce, low-S), so every method returns the bytes
 * `privateKeyToAccount` would: `test/eip155/account.test.ts` proves it for both backends. The key is
 * copied into this closure; nothing on the account object exposes it. `curve` is a parameter so tests can
 * run the portable backend too.
 */
export function secp256k1Account(privateKey: Uint8Array, curve: Secp256k1 = ecc): LocalAccount<'privateKey'> {
  if (!curve.isPrivate(privateKey)) throw new Error('not a valid secp256k1 private key')
  const key = privateKey.slice()
  const publicKey = curve.pointFromScalar(key, false)
  if (publicKey === null) throw new Error('not a valid secp256k1 private key')
  const address = getAddress(bytesToHex(keccak256(publicKey.subarray(1), 'bytes').subarray(12)))

  // viem's `sign` (accounts/utils/sign.ts): v is 27 or 28 and yParity the recovery id.
  const sign = (hash: Uint8Array): Signature => {
    const { signature, recoveryId } = curve.signRecoverable(hash, key)
    return {
      r: bytesToHex(signature.subarray(0, 32)),
      s: bytesToHex(signature.subarray(32)),
      v: recoveryId === 0 ? 27n : 28n,
      yParity: recoveryId,
    }
  }
  // r ‖ s ‖ v, as viem's `serializeSignature`.
  const signToHex = (hash: Uint8Array): Hex => {
    const { signature, recoveryId } = curve.signRecoverable(hash, key)
    return `${bytesToHex(signature)}${recoveryId === 0 ? '1b' : '1c'}`
  }

  const account = toAccount({
    address,
    async sign({ hash }) {
      return signToHex(hexToBytes(hash))
    },
    async signMessage({ message }) {
      return signToHex(hashMessage(message, 'bytes'))
    },
    async signTypedData(typedData) {
      return signToHex(typedDataDigest(typedData as TypedDataDefinition))
    },
    // viem's `signTransaction` (accounts/utils/signTransaction.ts) step for step, only `sign` is ours.
    async signTransaction(transaction, { serializer = serializeTransaction } = {}) {
      // EIP-4844: the signed payload is the transaction without its sidecars (network wrapper).
      const signable = transaction.type === 'eip4844' ? { ...transaction, sidecars: false } : transaction
      const signature = sign(keccak256(await serializer(signable), 'bytes'))
      return await serializer(transaction, signature)
    },
  })
  return { ...account, publicKey: bytesToHex(publicKey), source: 'privateKey' }
}

/**
 * The account for a key this wallet holds: `secp256k1Account` over any backend but the portable one (WASM
 * is about 3x faster than viem's signer; a wallet may inject a native one); with the portable backend,
 * viem's own `privateKeyToAccount`, whose pure-JS signer is faster. The same bytes either way. Without an
 * explicit `backend`, each signature uses whichever backend is active then (one injected after the keys
 * were made included).
 */
export function privateKeyAccount(
  privateKey: Uint8Array,
  backend?: Secp256k1Backend,
): LocalAccount<'privateKey'> {
  const viemAccount = () => privateKeyToAccount(bytesToHex(privateKey))
  if (backend !== undefined)
    return backend.name === PORTABLE_SECP256K1 ? viemAccount() : secp256k1Account(privateKey, backend.ecc)
  const ours = secp256k1Account(privateKey, ecc)
  let viems: LocalAccount<'privateKey'> | undefined
  const signer = () => {
    if (secp256k1Backend.name !== PORTABLE_SECP256K1) return ours
    viems ??= viemAccount()
    return viems
  }
  const account: LocalAccount<'privateKey'> = {
    ...ours,
    sign: (parameters) => signer().sign!(parameters),
    signMessage: (parameters) => signer().signMessage(parameters),
    signTypedData: (parameters) => signer().signTypedData(parameters),
    signTransaction: (transaction, options) => signer().signTransaction(transaction, options),
  }
  ownAccounts.add(account)
  return account
}

/** The accounts `privateKeyAccount` made: their `sign({ hash })` is the same key and the same signature format. */
const ownAccounts = new WeakSet<object>()

/**
 * An EIP-712 signature of `definition`, whose digest the caller computed already (`typedDataDigest`): a key of
 * this wallet signs that digest instead of hashing it again; any other account (an external signer, which may
 * show the typed data on its own screen) gets the typed data itself.
 */
export function signTypedDataDigest(
  account: LocalAccount,
  definition: TypedDataDefinition,
  digest: Uint8Array,
): Promise<Hex> {
  return ownAccounts.has(account)
    ? account.sign!({ hash: bytesToHex(digest) })
    : account.signTypedData(definition)
}
