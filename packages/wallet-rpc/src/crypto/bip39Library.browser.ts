import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import type { Bip39Library } from './bip39Library.js'

const library: Bip39Library = { mnemonicToSeedSync, validateMnemonic, wordlist }

/** Bundles' copy (the package's `browser` field): @scure/bip39 and its English word list, imported statically. */
export function bip39Library(): Bip39Library {
  return library
}

/** BIP-39's English word list alone (TON mnemonics use it with their own checksum). */
export function bip39Wordlist(): string[] {
  return wordlist
}
