import { randomBytes } from '@noble/hashes/utils.js'
import type { BIP32API, BIP32Interface } from 'bip32'
import { bip32Factory } from '../../crypto/bip32Library.js'
import { isValidMnemonic, mnemonicToSeed } from '../../crypto/bip39.js'
import { ecc } from '../../crypto/secp256k1.js'
import { taggedHash } from '../encoding.js'
import type { KeyPath, KeyProvider } from '../types.js'

export type HdKeysOptions = {
  /** BIP-39 mnemonic (English word list). Give this or `seed`. */
  mnemonic?: string
  /** BIP-39 seed (16–64 bytes), e.g. from a wallet's own secure storage. */
  seed?: Uint8Array
  /** BIP-39 passphrase ("25th word"); only with `mnemonic`. */
  passphrase?: string
  /** Account index: the `account'` level of every path. Default 0. */
  account?: number
}

const hardened = 0x80000000
// BIP32Factory self-tests the backend, which would choose it at import: made at the first key instead.
let bip32: BIP32API | undefined

/**
 * A key provider for one BIP-32 account of a BIP-39 mnemonic or seed. The seed is computed once when the
 * provider is made; account, chain and leaf nodes are derived once and cached. The provider object has only
 * public keys and sign operations: the mnemonic, seed and private keys stay in this closure.
 */
export function hdKeys(options: HdKeysOptions): KeyProvider {
  const account = options.account ?? 0
  if (!Number.isInteger(account) || account < 0 || account >= hardened) {
    throw new TypeError('hdKeys: account must be a whole number below 2^31')
  }
  bip32 ??= bip32Factory(ecc)
  const root = bip32.fromSeed(seedOf(options))
  const chainNodes = new Map<string, BIP32Interface>()
  const leaves = new Map<string, BIP32Interface>()
  const taprootKeys = new Map<string, Uint8Array>()

  const leaf = (path: KeyPath): BIP32Interface => {
    if (path.account !== account) throw new RangeError('hdKeys: path outside this provider’s account')
    if (!Number.isInteger(path.index) || path.index < 0 || path.index >= hardened) {
      throw new RangeError('hdKeys: index must be a non-hardened child number')
    }
    const chainKey = `${path.purpose}/${path.coinType}/${path.change}`
    const leafKey = `${chainKey}/${path.index}`
    let node = leaves.get(leafKey)
    if (node) return node
    let chain = chainNodes.get(chainKey)
    if (!chain) {
      chain = root
        .deriveHardened(path.purpose)
        .deriveHardened(path.coinType)
        .deriveHardened(account)
        .derive(path.change)
      chainNodes.set(chainKey, chain)
    }
    node = chain.derive(path.index)
    leaves.set(leafKey, node)
    return node
  }

  const privateKeyOf = (path: KeyPath): Uint8Array => {
    const privateKey = leaf(path).privateKey
    if (!privateKey) throw new Error('hdKeys: no private key')
    return privateKey
  }

  return {
    kind: 'hd',
    account,
    publicKey: (path) => leaf(path).publicKey,
    signEcdsa: async (path, hash) => ecc.sign(hash, privateKeyOf(path)),
    signEcdsaRecoverable: async (path, hash) => ecc.signRecoverable(hash, privateKeyOf(path)),
    signTaproot: async (path, hash, auxRand) => {
      const key = `${path.purpose}/${path.coinType}/${path.change}/${path.index}`
      let tweaked = taprootKeys.get(key)
      if (!tweaked) {
        tweaked = taprootTweakedKey(privateKeyOf(path), leaf(path).publicKey)
        taprootKeys.set(key, tweaked)
      }
      return ecc.signSchnorr(hash, tweaked, auxRand ?? randomBytes(32))
    },
  }
}

/** BIP-86 / BIP-341 key-path private key: negate to an even-Y key, then add TapTweak(xonly(P)). */
export function taprootTweakedKey(privateKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  const evenKey = publicKey[0] === 0x03 ? ecc.privateNegate(privateKey) : privateKey
  const tweaked = ecc.privateAdd(evenKey, taggedHash('TapTweak', publicKey.subarray(1, 33)))
  if (tweaked === null) throw new Error('taproot tweak out of range')
  return tweaked
}

function seedOf(options: HdKeysOptions): Uint8Array {
  if ((options.mnemonic === undefined) === (options.seed === undefined)) {
    throw new TypeError('hdKeys: give exactly one of mnemonic or seed')
  }
  if (options.seed !== undefined) {
    if (options.passphrase !== undefined) throw new TypeError('hdKeys: a passphrase goes with a mnemonic')
    if (options.seed.length < 16 || options.seed.length > 64)
      throw new TypeError('hdKeys: seed must be 16–64 bytes')
    return Uint8Array.from(options.seed)
  }
  // The message never repeats the words.
  if (!isValidMnemonic(options.mnemonic!)) throw new TypeError('hdKeys: invalid BIP-39 mnemonic')
  return mnemonicToSeed(options.mnemonic!, options.passphrase ?? '')
}
