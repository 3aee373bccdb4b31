import { bip39Library } from './bip39Library.js'

type NodeCrypto = typeof import('node:crypto')

/**
 * BIP-39 with @scure/bip39 (Uint8Array-native: the `bip39` package needs a `Buffer` global and, without
 * one, calls every valid mnemonic invalid). The seed's PBKDF2-HMAC-SHA512 (2048 rounds) runs in OpenSSL
 * where Node is (about 4x faster than pure JS), else in @noble/hashes: the same bytes
 * (test/crypto/backends.test.ts).
 */

/** NFKD and single spaces, as BIP-39 hashes the phrase; surrounding and repeated whitespace is dropped. */
export function normalizeMnemonic(mnemonic: string): string {
  return mnemonic.normalize('NFKD').trim().split(/\s+/).join(' ')
}

/** Whether the phrase is a BIP-39 English mnemonic with a valid checksum. */
export function isValidMnemonic(mnemonic: string): boolean {
  if (typeof mnemonic !== 'string') return false
  const { validateMnemonic, wordlist } = bip39Library()
  return validateMnemonic(normalizeMnemonic(mnemonic), wordlist)
}

/** The 64-byte BIP-39 seed of a (valid) mnemonic and passphrase. */
export function mnemonicToSeed(mnemonic: string, passphrase = ''): Uint8Array {
  const phrase = normalizeMnemonic(mnemonic)
  const crypto = (
    globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
  ).process?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined
  if (typeof crypto?.pbkdf2Sync !== 'function') return bip39Library().mnemonicToSeedSync(phrase, passphrase)
  const salt = `mnemonic${passphrase.normalize('NFKD')}`
  const seed = crypto.pbkdf2Sync(phrase, salt, 2048, 64, 'sha512')
  return new Uint8Array(seed.buffer, seed.byteOffset, seed.byteLength)
}
