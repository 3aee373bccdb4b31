import { randomBytes } from '@noble/hashes/utils.js'
import { ecc } from '../../crypto/secp256k1.js'
import { purposeOfType } from '../account.js'
import { base58check } from '../encoding.js'
import type { AddressType, KeyPath, KeyProvider } from '../types.js'
import { taprootTweakedKey } from './hdKeys.js'

export type SingleKeyOptions = {
  /** The private key: 32 bytes, or WIF (compressed; mainnet or test networks). */
  privateKey: Uint8Array | string
  /** The one address this static wallet has. */
  addressType: AddressType
}

/**
 * A static wallet: one key, one address. The account model asks it only for `m/purpose'/coin'/0'/0/0` of
 * its address type; any other path is refused, so nothing can be signed for an address it does not have.
 */
export function singleKey(options: SingleKeyOptions): KeyProvider {
  const privateKey = privateKeyOf(options.privateKey)
  const publicKey = ecc.pointFromScalar(privateKey, true)
  if (publicKey === null) throw new TypeError('singleKey: invalid private key')
  const purpose = purposeOfType[options.addressType]
  let taprootKey: Uint8Array | undefined

  const check = (path: KeyPath): void => {
    if (path.purpose !== purpose || path.account !== 0 || path.change !== 0 || path.index !== 0) {
      throw new RangeError('singleKey: a static wallet has one key')
    }
  }

  return {
    kind: 'single',
    account: 0,
    addressType: options.addressType,
    publicKey: (path) => {
      check(path)
      return publicKey
    },
    signEcdsa: async (path, hash) => {
      check(path)
      return ecc.sign(hash, privateKey)
    },
    signEcdsaRecoverable: async (path, hash) => {
      check(path)
      return ecc.signRecoverable(hash, privateKey)
    },
    signTaproot: async (path, hash, auxRand) => {
      check(path)
      taprootKey ??= taprootTweakedKey(privateKey, publicKey)
      return ecc.signSchnorr(hash, taprootKey, auxRand ?? randomBytes(32))
    },
  }
}

function privateKeyOf(key: Uint8Array | string): Uint8Array {
  if (typeof key !== 'string') {
    if (key.length !== 32 || !ecc.isPrivate(key)) throw new TypeError('singleKey: invalid private key')
    return Uint8Array.from(key)
  }
  let payload: Uint8Array
  try {
    payload = base58check.decode(key)
  } catch {
    throw new TypeError('singleKey: invalid WIF')
  }
  // version ‖ key ‖ 0x01 (compressed). Uncompressed keys are not supported: no segwit address can use them.
  if (payload.length !== 34 || payload[33] !== 0x01 || (payload[0] !== 0x80 && payload[0] !== 0xef)) {
    throw new TypeError('singleKey: expected a compressed mainnet or testnet WIF')
  }
  const privateKey = payload.slice(1, 33)
  if (!ecc.isPrivate(privateKey)) throw new TypeError('singleKey: invalid private key')
  return privateKey
}
