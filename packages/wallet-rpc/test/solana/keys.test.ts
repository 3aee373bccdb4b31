import { readFileSync } from 'node:fs'
import { ed25519 as noble } from '@noble/curves/ed25519.js'
import { bytesToHex, hexToBytes } from '@noble/curves/utils.js'
import { base58 } from '@scure/base'
import { createKeyPairSignerFromPrivateKeyBytes } from '@solana/kit'
import { describe, expect, it } from 'vitest'
import { mnemonicToSeed } from '../../src/crypto/bip39.js'
import { checkedSigner, slip10Ed25519, solanaKeys, solanaPath } from '../../src/solana/index.js'
import { mnemonic } from './helpers.js'

type Chain = { path: string; privateKey: string; publicKey: string }
const file = JSON.parse(
  readFileSync(new URL('../../test-vectors/solana/slip10-ed25519.json', import.meta.url), 'utf8'),
) as { vectors: Array<{ seed: string; chains: Chain[] }> }

describe('SLIP-0010 Ed25519', () => {
  for (const vector of file.vectors) {
    for (const chain of vector.chains) {
      it(`${vector.seed.slice(0, 8)}… ${chain.path}`, () => {
        const key = slip10Ed25519(hexToBytes(vector.seed), chain.path)
        expect(bytesToHex(key)).toBe(chain.privateKey)
        expect(bytesToHex(noble.getPublicKey(key))).toBe(chain.publicKey)
      })
    }
  }

  it('refuses non-hardened steps', () => {
    expect(() => slip10Ed25519(new Uint8Array(16), "m/44'/501'/0")).toThrow(/hardened/)
  })
})

describe('solanaKeys', () => {
  it("fromMnemonic derives m/44'/501'/a'/0' and @solana/kit's key pair from the same seed agrees", async () => {
    const [first, second] = solanaKeys.fromMnemonic(mnemonic, { account: [0, 1] })
    const seed = mnemonicToSeed(mnemonic)
    for (const [index, signer] of [first!, second!].entries()) {
      const kit = await createKeyPairSignerFromPrivateKeyBytes(slip10Ed25519(seed, solanaPath(index)))
      expect(base58.encode(signer.publicKey)).toBe(kit.address)
    }
    expect(base58.encode(first!.publicKey)).not.toBe(base58.encode(second!.publicKey))
  })

  it('refuses an invalid mnemonic without repeating it', () => {
    const words = 'abandon '.repeat(12).trim()
    expect(() => solanaKeys.fromMnemonic(words)).toThrow('invalid BIP-39 mnemonic')
  })

  it('fromSecretKey takes the 64-byte seed ‖ public key form and checks its public half', () => {
    const seed = new Uint8Array(32).fill(3)
    const publicKey = noble.getPublicKey(seed)
    const [signer] = solanaKeys.fromSecretKey(new Uint8Array([...seed, ...publicKey]))
    expect(signer!.publicKey).toEqual(publicKey)
    const message = new Uint8Array([1, 2, 3])
    expect(noble.verify(signer!.sign(message) as Uint8Array, message, publicKey)).toBe(true)
    expect(() => solanaKeys.fromSecretKey(new Uint8Array([...seed, ...new Uint8Array(32)]))).toThrow(
      /public key/,
    )
    expect(() => solanaKeys.fromSecretKey(new Uint8Array(31))).toThrow(/64 bytes/)
  })

  it('an external signer is checked: a signature over other bytes or by another key is refused', async () => {
    const seed = new Uint8Array(32).fill(5)
    const publicKey = noble.getPublicKey(seed)
    const honest = checkedSigner({ publicKey, sign: (message) => noble.sign(message, seed) })
    const message = new Uint8Array([9, 9])
    expect(noble.verify(await honest.sign(message), message, publicKey)).toBe(true)
    const lying = checkedSigner({ publicKey, sign: () => noble.sign(new Uint8Array([0]), seed) })
    await expect(lying.sign(message)).rejects.toThrow(/invalid signature/)
    const short = checkedSigner({ publicKey, sign: () => new Uint8Array(10) })
    await expect(short.sign(message)).rejects.toThrow(/invalid signature/)
  })
})
