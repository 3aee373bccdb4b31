import { utf8ToBytes } from '@noble/hashes/utils.js'
import { bip39Wordlist } from '../crypto/bip39Library.js'
import { nobleHmac, nobleSha512 } from '../crypto/nobleHashes.js'
import { pbkdf2Sha512 } from '../crypto/pbkdf2.js'

/**
 * TON's own mnemonic scheme (tonlib, keys/Mnemonic.cpp; the same as @ton/crypto's `mnemonicToPrivateKey` and
 * `mnemonicValidate`), on @noble/hashes (in Node loaded at the first mnemonic) and the runtime's PBKDF2
 * rather than @ton/crypto, whose browser build reads `window.crypto` (absent in an extension's service worker)
 * and needs WebCrypto (absent in Hermes). The word list is BIP-39's English one. test/ton/mnemonic.test.ts
 * cross-checks @ton/crypto.
 */
const iterations = 100_000

/** `hmac_sha512(key = the words joined by spaces, data = password)`. */
const entropyOf = (words: readonly string[], password: string) =>
  nobleHmac()(nobleSha512(), utf8ToBytes(words.join(' ')), utf8ToBytes(password))

const pbkdf2 = (entropy: Uint8Array, salt: string, rounds: number) =>
  pbkdf2Sha512(entropy, utf8ToBytes(salt), rounds)

/** "Basic seed": PBKDF2(entropy, "TON seed version", 100000 / 256) starts with a zero byte. */
async function isBasicSeed(entropy: Uint8Array): Promise<boolean> {
  return (await pbkdf2(entropy, 'TON seed version', Math.max(1, Math.floor(iterations / 256))))[0] === 0
}

/** "Password seed": PBKDF2(entropy, "TON fast seed version", 1) starts with a one byte. */
async function isPasswordSeed(entropy: Uint8Array): Promise<boolean> {
  return (await pbkdf2(entropy, 'TON fast seed version', 1))[0] === 1
}

/** Whether `words` (lowercase, trimmed) form a valid TON mnemonic for `password` (tonlib's rules). */
export async function isValidTonMnemonic(words: readonly string[], password = ''): Promise<boolean> {
  const wordlist = bip39Wordlist()
  if (!words.every((word) => wordlist.includes(word))) return false
  if (password.length > 0) {
    const passless = entropyOf(words, '')
    if (!(await isPasswordSeed(passless)) || (await isBasicSeed(passless))) return false
  }
  return isBasicSeed(entropyOf(words, password))
}

/** The Ed25519 seed (32 bytes) of a TON mnemonic: the first half of PBKDF2(entropy, "TON default seed"). */
export async function tonMnemonicSeed(words: readonly string[], password = ''): Promise<Uint8Array> {
  const seed = await pbkdf2(entropyOf(words, password), 'TON default seed', iterations)
  const key = seed.slice(0, 32)
  seed.fill(0)
  return key
}
