import { equalBytes } from '@noble/curves/utils.js'
import { type Ed25519Backend, ed25519 } from '../crypto/ed25519.js'
import { isValidTonMnemonic, tonMnemonicSeed } from './mnemonic.js'
import type { TonMnemonicOptions, TonSigner } from './types.js'

export type { TonMnemonicOptions, TonSigner } from './types.js'

/** Marks signers made by `tonKeys`, whose signatures need no second check. */
const trustedSigners = new WeakSet<TonSigner>()

export function isTrustedSigner(signer: TonSigner): boolean {
  return trustedSigners.has(signer)
}

/**
 * A signer for one seed. Without an explicit backend it signs with whichever is active at signing time, so a
 * backend the wallet injects after creating its keys (`createWalletRpc({ crypto })`) is the one used.
 */
function signerFromSeed(backend: Ed25519Backend | undefined, seed: Uint8Array): TonSigner {
  let keyBackend = backend ?? ed25519()
  let key = keyBackend.fromSeed(seed)
  const publicKey = Uint8Array.from(key.publicKey)
  const keyNow = () => {
    const current = backend ?? ed25519()
    if (current !== keyBackend) {
      key = current.fromSeed(seed)
      keyBackend = current
    }
    return key
  }
  const signer: TonSigner = Object.freeze({
    get publicKey() {
      return Uint8Array.from(publicKey)
    },
    sign: (message: Uint8Array) => keyNow().sign(message),
  })
  trustedSigners.add(signer)
  return signer
}

export const tonKeys = {
  /**
   * TON's own 24-word mnemonic (not BIP-39): PBKDF2-SHA512 x100000, about 70 ms, so it runs once here and
   * the resulting key is kept for the signer's lifetime. Errors never repeat the words.
   */
  async fromMnemonic(
    mnemonic: string | readonly string[],
    options: TonMnemonicOptions = {},
  ): Promise<TonSigner> {
    const words = (typeof mnemonic === 'string' ? mnemonic.trim().split(/\s+/) : [...mnemonic]).map((word) =>
      word.trim().toLowerCase(),
    )
    if (words.length !== 24) throw new TypeError(`a TON mnemonic has 24 words, got ${words.length}`)
    if (options.validate !== false && !(await isValidTonMnemonic(words, options.password))) {
      throw new TypeError('not a valid TON mnemonic (pass validate: false to derive from it anyway)')
    }
    return signerFromSeed(options.backend, await tonMnemonicSeed(words, options.password))
  },

  /**
   * A raw Ed25519 key: the 32-byte seed, or tweetnacl's 64-byte secret key (seed ++ public key), whose
   * public half must match the seed. `publicKey`, when given, must match too.
   */
  async fromSecretKey(
    secretKey: Uint8Array,
    options: { publicKey?: Uint8Array; backend?: Ed25519Backend } = {},
  ): Promise<TonSigner> {
    if (!(secretKey instanceof Uint8Array) || (secretKey.length !== 32 && secretKey.length !== 64)) {
      throw new TypeError('an Ed25519 secret key is 32 bytes (seed) or 64 bytes (seed ++ public key)')
    }
    const signer = signerFromSeed(options.backend, Uint8Array.from(secretKey.subarray(0, 32)))
    const claimed = [secretKey.length === 64 ? secretKey.subarray(32) : undefined, options.publicKey]
    for (const publicKey of claimed) {
      if (publicKey !== undefined && !equalBytes(publicKey, signer.publicKey)) {
        throw new TypeError('the public key does not belong to this secret key')
      }
    }
    return signer
  },

  /** A key pair as @ton/crypto's `KeyPair` or tweetnacl gives it. */
  fromKeyPair(
    pair: { publicKey: Uint8Array; secretKey: Uint8Array },
    options: { backend?: Ed25519Backend } = {},
  ) {
    return tonKeys.fromSecretKey(pair.secretKey, { publicKey: pair.publicKey, ...options })
  },
}
