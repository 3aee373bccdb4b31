import type { Address, Hex } from 'viem'
import { HDKey } from 'viem/accounts'
import { isValidMnemonic, mnemonicToSeed } from '../crypto/bip39.js'
import { privateKeyAccount } from './account.js'
import { checkedAccount } from './checkedAccount.js'
import type { Eip155Keys, Eip155Signer, MnemonicKeysOptions } from './types.js'
import { hexToBytes } from './viemUtils.js'

export type { Eip155Keys, Eip155Signer, MnemonicKeysOptions } from './types.js'

/** The BIP-44 path of Ethereum address `index`. */
export const ethereumPath = (index: number) => `m/44'/60'/0'/0/${index}` as const

/**
 * Keys derived from a BIP-39 mnemonic at `m/44'/60'/0'/0/i`. The seed (PBKDF2, ~22 ms) and each derived key
 * are computed once, on first use, and cached for the life of the provider. They sign through
 * `privateKeyAccount` (`account.ts`): the WASM secp256k1 backend where it loads, with viem's results.
 */
export function mnemonicKeys(options: MnemonicKeysOptions): Eip155Keys {
  if (!isValidMnemonic(options.mnemonic)) throw new Error('invalid BIP-39 mnemonic')
  const indices =
    typeof options.addressIndex === 'number' ? [options.addressIndex] : (options.addressIndex ?? [0])
  for (const index of indices) {
    if (!Number.isInteger(index) || index < 0 || index >= 2 ** 31) {
      throw new Error('addressIndex must be a whole number below 2^31')
    }
  }
  const { mnemonic, passphrase } = options
  return lazyKeys(() => {
    const root = HDKey.fromMasterSeed(mnemonicToSeed(mnemonic, passphrase))
    return indices.map((index) => {
      const child = root.derive(ethereumPath(index))
      if (!child.privateKey) throw new Error(`no private key at ${ethereumPath(index)}`)
      // A plain private-key account: unlike viem's HD account it carries no handle back to the HD tree.
      return privateKeyAccount(child.privateKey)
    })
  })
}

/** Keys from raw 32-byte private keys (`0x`-prefixed hex), signing through `privateKeyAccount`. */
export function privateKeyKeys(...privateKeys: readonly Hex[]): Eip155Keys {
  const accounts = privateKeys.map((privateKey, index) => {
    try {
      // Exactly 64 digits: viem's hexToBytes would left-pad an odd-length string into a different key.
      if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) throw new Error()
      return privateKeyAccount(hexToBytes(privateKey))
    } catch {
      // Not rethrown as the cause: a parser's message may print the key in full.
      throw new Error(`private key #${index} is not a valid secp256k1 private key`)
    }
  })
  return lazyKeys(() => accounts)
}

/**
 * Keys from viem accounts, including custom external signers built with `toAccount`. Whatever they return
 * is checked before it is used (`checkedAccount`): signatures must recover to the account's address, signed
 * transactions must be the requested ones.
 */
export function accountKeys(...accounts: readonly Eip155Signer[]): Eip155Keys {
  return lazyKeys(() => accounts.map(checkedAccount))
}

function lazyKeys(load: () => readonly Eip155Signer[]): Eip155Keys {
  let loaded: { addresses: readonly Address[]; byAddress: Map<string, Eip155Signer> } | undefined
  const get = () => {
    if (loaded === undefined) {
      const accounts = load()
      const byAddress = new Map(accounts.map((account) => [account.address.toLowerCase(), account]))
      loaded = { addresses: Object.freeze(accounts.map((account) => account.address)), byAddress }
    }
    return loaded
  }
  return {
    async addresses() {
      return get().addresses
    },
    async signer(address) {
      return get().byAddress.get(address.toLowerCase())
    },
  }
}
