import { equalBytes } from '@noble/curves/utils.js'
import { isValidMnemonic, mnemonicToSeed } from '../crypto/bip39.js'
import { ed25519 } from '../crypto/ed25519.js'
import { nobleHmac, nobleSha512 } from '../crypto/nobleHashes.js'
import { addressOf } from './encoding.js'
import type { SolanaKeys, SolanaMnemonicOptions, SolanaSigner } from './types.js'

export type { SolanaKeys, SolanaMnemonicOptions, SolanaSigner } from './types.js'

/** The derivation path of account `a`: Phantom's and Solflare's default (`m/44'/501'/0'/0'` first). */
export const solanaPath = (account: number) => `m/44'/501'/${account}'/0'` as const

const hardened = 0x80000000

/**
 * SLIP-0010 for Ed25519: only hardened children exist; each step is HMAC-SHA512 over 0x00 ‖ key ‖ index.
 * Returns the 32-byte private key (seed) at `path`.
 */
export function slip10Ed25519(seed: Uint8Array, path: string): Uint8Array {
  const segments = path.split('/')
  if (segments[0] !== 'm') throw new TypeError('a SLIP-0010 path starts with m')
  const hmac = nobleHmac()
  const sha512 = nobleSha512()
  let node = hmac(sha512, new TextEncoder().encode('ed25519 seed'), seed)
  for (const segment of segments.slice(1)) {
    const match = /^(\d+)'$/.exec(segment)
    const index = match ? Number(match[1]) : Number.NaN
    if (!Number.isInteger(index) || index >= hardened) {
      throw new TypeError(`SLIP-0010 Ed25519 derives hardened indexes only, got ${segment}`)
    }
    const data = new Uint8Array(37)
    data.set(node.subarray(0, 32), 1)
    new DataView(data.buffer).setUint32(33, index + hardened)
    node = hmac(sha512, node.subarray(32), data)
  }
  return node.slice(0, 32)
}

/** Signers this module built, whose signatures need no second check. */
const trustedSigners = new WeakSet<SolanaSigner>()

function signerFromSeed(seed: Uint8Array): SolanaSigner {
  const key = ed25519().fromSeed(seed)
  const publicKey = Uint8Array.from(key.publicKey)
  const signer: SolanaSigner = Object.freeze({
    get publicKey() {
      return Uint8Array.from(publicKey)
    },
    sign: (message: Uint8Array) => key.sign(message),
  })
  trustedSigners.add(signer)
  return signer
}

function accountIndexes(account: SolanaMnemonicOptions['account']): readonly number[] {
  const indexes = typeof account === 'number' ? [account] : (account ?? [0])
  for (const index of indexes) {
    if (!Number.isInteger(index) || index < 0 || index >= hardened) {
      throw new TypeError('account must be a whole number below 2^31')
    }
  }
  return indexes
}

export const solanaKeys = {
  /** Keys from a BIP-39 mnemonic at `m/44'/501'/account'/0'`. Errors never repeat the words. */
  fromMnemonic(mnemonic: string, options: SolanaMnemonicOptions = {}): SolanaKeys {
    if (!isValidMnemonic(mnemonic)) throw new TypeError('invalid BIP-39 mnemonic')
    const indexes = accountIndexes(options.account)
    const seed = mnemonicToSeed(mnemonic, options.passphrase)
    try {
      return indexes.map((index) => {
        const key = slip10Ed25519(seed, solanaPath(index))
        try {
          return signerFromSeed(key)
        } finally {
          key.fill(0)
        }
      })
    } finally {
      seed.fill(0)
    }
  },

  /**
   * A 64-byte Solana secret key (seed ‖ public key: the `id.json` of `solana-keygen`, Phantom's export) or
   * a 32-byte seed. The public half of a 64-byte key must match its seed.
   */
  fromSecretKey(secretKey: Uint8Array): SolanaKeys {
    if (!(secretKey instanceof Uint8Array) || (secretKey.length !== 32 && secretKey.length !== 64)) {
      throw new TypeError('a Solana secret key is 64 bytes (seed ‖ public key) or a 32-byte seed')
    }
    const signer = signerFromSeed(Uint8Array.from(secretKey.subarray(0, 32)))
    if (secretKey.length === 64 && !equalBytes(secretKey.subarray(32), signer.publicKey)) {
      throw new TypeError('the public key half does not belong to this secret key')
    }
    return [signer]
  },

  /** External signers (hardware, MPC, remote); each signature is verified before it is used. */
  external(...signers: readonly SolanaSigner[]): SolanaKeys {
    return signers.map(checkedSigner)
  },
}

/**
 * Wraps a signer this library did not build so that nothing it returns is passed on unchecked: a signature
 * must be 64 bytes and verify under the signer's public key over exactly the bytes we asked it to sign. A
 * faulty or compromised signer must not make the wallet hand a dapp a signature of another key or message.
 */
export function checkedSigner(signer: SolanaSigner): SolanaSigner {
  if (trustedSigners.has(signer)) return signer
  const publicKey = Uint8Array.from(signer.publicKey)
  if (publicKey.length !== 32) throw new TypeError('a Solana signer public key is 32 bytes')
  const checked: SolanaSigner = Object.freeze({
    get publicKey() {
      return Uint8Array.from(publicKey)
    },
    async sign(message: Uint8Array) {
      const copy = Uint8Array.from(message)
      const signature = await signer.sign(copy)
      if (!(signature instanceof Uint8Array) || !ed25519().verify(publicKey, message, signature)) {
        throw new Error(`the external signer for ${addressOf(publicKey)} returned an invalid signature`)
      }
      return Uint8Array.from(signature)
    },
  })
  return checked
}
