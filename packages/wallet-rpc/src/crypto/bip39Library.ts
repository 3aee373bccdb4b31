import type * as bip39 from '@scure/bip39'
import { requireFromHere } from './requireFromHere.js'

export type Bip39Library = Pick<typeof bip39, 'validateMnemonic' | 'mnemonicToSeedSync'> & {
  wordlist: string[]
}

let library: Bip39Library | undefined
let wordlist: string[] | undefined

/**
 * Node's copy: @scure/bip39 and its English word list are required when the first mnemonic is checked, not
 * at import (~4 ms of every cold start; a wallet that never takes a mnemonic never loads them). The package's
 * `browser` field swaps this file for `bip39Library.browser.ts`, which imports them statically.
 */
export function bip39Library(): Bip39Library {
  library ??= { ...requireFromHere<typeof bip39>('@scure/bip39'), wordlist: bip39Wordlist() }
  return library
}

/** BIP-39's English word list alone (TON mnemonics use it with their own checksum). */
export function bip39Wordlist(): string[] {
  wordlist ??= requireFromHere<{ wordlist: string[] }>('@scure/bip39/wordlists/english.js').wordlist
  return wordlist
}
