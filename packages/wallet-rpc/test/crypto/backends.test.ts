import { readFileSync } from 'node:fs'
import { bytesToHex } from '@noble/hashes/utils.js'
import { generateMnemonic, mnemonicToSeedSync as scureSeed } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { mnemonicToSeedSync as bip39PackageSeed } from 'bip39'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { bip122, hdKeys } from '../../src/bip122/index.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import { activeBackends, useCrypto } from '../../src/crypto/backends.js'
import { isValidMnemonic, mnemonicToSeed } from '../../src/crypto/bip39.js'
import { loadNodeEd25519, tweetnaclEd25519 } from '../../src/crypto/ed25519.js'
import { nodeWasmSecp256k1, portableSecp256k1 } from '../../src/crypto/secp256k1.js'
import { nodeSha256, portableSha256, type Sha256Backend } from '../../src/crypto/sha256.js'
import { eip155, mnemonicKeys } from '../../src/eip155/index.js'
import { ton, tonKeys } from '../../src/ton/index.js'

const mnemonic =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about'
const mainnet = 'bip122:000000000019d6689c085ae165831e93'
const unusedAtImport = activeBackends()
// Creating namespaces chooses their backends.
bip122({ keys: hdKeys({ mnemonic }) })
ton({ keys: await tonKeys.fromSecretKey(new Uint8Array(32).fill(1)) })
const defaults = activeBackends()

afterEach(() => {
  // Back to what this process chooses by itself, whatever a test injected.
  useCrypto({
    secp256k1: nodeWasmSecp256k1() ?? portableSecp256k1,
    ed25519: loadNodeEd25519() ?? tweetnaclEd25519,
    sha256: nodeSha256() ?? portableSha256,
  })
})

/** Wraps every function of a backend so the test sees how often the library called it. */
function counted<T extends object>(backend: T): { backend: T; calls: () => number } {
  let calls = 0
  const wrapped = Object.fromEntries(
    Object.entries(backend).map(([key, value]) => [
      key,
      typeof value === 'function'
        ? (...args: unknown[]) => {
            calls++
            return value(...args)
          }
        : value,
    ]),
  )
  return { backend: wrapped as T, calls: () => calls }
}

async function signMessageAnswers() {
  const wallet = createWalletRpc({
    namespaces: [bip122({ keys: hdKeys({ mnemonic }) })],
    approve: () => true,
  })
  const answers = []
  for (const protocol of ['ecdsa', 'bip322']) {
    answers.push(
      await wallet.handle({
        chainId: mainnet,
        request: {
          id: 1,
          method: 'signMessage',
          params: { account: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', message: 'backends', protocol },
        },
      }),
    )
  }
  return answers
}

describe('default backends', () => {
  it('are none at import, and the fast ones in Node once namespaces exist: libsecp256k1 WASM, OpenSSL', () => {
    expect(unusedAtImport).toEqual({ secp256k1: 'unused', ed25519: 'unused', sha256: 'unused' })
    expect(defaults).toEqual({ secp256k1: 'tiny-secp256k1', ed25519: 'node:crypto', sha256: 'node:crypto' })
    const wallet = createWalletRpc({ namespaces: [], approve: () => true })
    expect(wallet.backends()).toEqual(defaults)
  })
})

describe('injected backends', () => {
  it("a wallet's secp256k1 (here the portable code behind a native-module wrapper) signs every bip122 and eip155 request, with the same bytes", async () => {
    const before = await signMessageAnswers()
    const eip155Wallet = () =>
      createWalletRpc({
        namespaces: [eip155({ keys: mnemonicKeys({ mnemonic }), chains: [1] })],
        approve: () => true,
      })
    const personalSign = {
      chainId: 'eip155:1',
      request: {
        id: 2,
        method: 'personal_sign',
        params: ['0x68656c6c6f', '0x9858EfFD232B4033E47d90003D41EC34EcaEda94'],
      },
    }
    const eipBefore = await eip155Wallet().handle(personalSign)
    const native = counted({ ...portableSecp256k1.ecc })
    const wallet = createWalletRpc({
      namespaces: [],
      approve: () => true,
      crypto: { secp256k1: { name: 'native-secp256k1', ecc: native.backend } },
    })
    expect(wallet.backends().secp256k1).toBe('native-secp256k1')
    const callsAfterCheck = native.calls()
    expect(await signMessageAnswers()).toEqual(before)
    expect(await eip155Wallet().handle(personalSign)).toEqual(eipBefore)
    expect(JSON.stringify(eipBefore)).toContain('"result":"0x')
    expect(native.calls()).toBeGreaterThan(callsAfterCheck + 3)
  })

  it('keys made before the injection sign with the injected backend', async () => {
    const keys = await tonKeys.fromSecretKey(new Uint8Array(32).fill(7))
    const native = counted({ ...tweetnaclEd25519 })
    const signature = bytesToHex(await keys.sign(Uint8Array.of(1, 2, 3)))
    useCrypto({ ed25519: { ...native.backend, name: 'native-ed25519' } })
    const callsAfterCheck = native.calls()
    expect(bytesToHex(await keys.sign(Uint8Array.of(1, 2, 3)))).toBe(signature)
    expect(native.calls()).toBe(callsAfterCheck + 1)
    expect(activeBackends().ed25519).toBe('native-ed25519')
  })

  it('a backend that gets a known answer wrong is refused at construction and nothing changes', () => {
    const wrong = {
      ...portableSecp256k1.ecc,
      sign: (h: Uint8Array, d: Uint8Array) => portableSecp256k1.ecc.sign(d, h),
    }
    const before = activeBackends()
    expect(() =>
      createWalletRpc({
        namespaces: [],
        approve: () => true,
        crypto: {
          ed25519: { ...tweetnaclEd25519, name: 'fine-ed25519' },
          secp256k1: { name: 'broken', ecc: wrong },
        },
      }),
    ).toThrow(/secp256k1 backend "broken" does not reproduce the known answers/)
    expect(activeBackends()).toEqual(before)
    const badHash: Sha256Backend = { name: 'md5-in-disguise', hash: () => new Uint8Array(32) }
    expect(() => useCrypto({ sha256: badHash })).toThrow(/SHA-256 backend "md5-in-disguise"/)
    expect(() =>
      useCrypto({ ed25519: { ...tweetnaclEd25519, name: 'no-verify', verify: () => true } }),
    ).toThrow(/Ed25519 backend "no-verify"/)
    expect(() => useCrypto({ secp256k1: { name: 'empty' } as never })).toThrow(TypeError)
    expect(activeBackends()).toEqual(before)
  })

  it('an injected SHA-256 hashes what the namespaces hash (ton_signData, BIP-322)', async () => {
    const before = await signMessageAnswers()
    const native = counted({ ...portableSha256, name: 'native-sha256' })
    useCrypto({ sha256: native.backend })
    expect(await signMessageAnswers()).toEqual(before)
    expect(native.calls()).toBeGreaterThan(1)
    const keys = await tonKeys.fromSecretKey(new Uint8Array(32).fill(9))
    const wallet = createWalletRpc({
      namespaces: [ton({ keys })],
      approve: () => true,
      clock: () => 1_700_000_000_000,
    })
    const answer = await wallet.handle({
      chainId: 'ton:-239',
      origin: 'https://example.org',
      request: { id: 3, method: 'ton_signData', params: [{ type: 'text', text: 'hi' }] },
    })
    expect(JSON.stringify(answer)).toContain('"signature"')
  })
})

describe('BIP-39 (@scure/bip39, OpenSSL PBKDF2 in Node)', () => {
  const file = JSON.parse(
    readFileSync(new URL('../../test-vectors/crypto/bip39.json', import.meta.url), 'utf8'),
  )

  it('reproduces the reference vectors', () => {
    for (const vector of file.vectors) {
      expect(isValidMnemonic(vector.mnemonic)).toBe(true)
      expect(bytesToHex(mnemonicToSeed(vector.mnemonic, file.passphrase))).toBe(vector.seed)
    }
  })

  it('agrees with @scure/bip39 alone and with the bip39 package on random mnemonics and passphrases', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(128, 160, 192, 224, 256),
        fc.string({ maxLength: 20 }),
        (strength, passphrase) => {
          const words = generateMnemonic(wordlist, strength)
          const ours = bytesToHex(mnemonicToSeed(words, passphrase))
          expect(ours).toBe(bytesToHex(scureSeed(words, passphrase)))
          expect(ours).toBe(bip39PackageSeed(words, passphrase).toString('hex'))
        },
      ),
      { numRuns: 40 },
    )
  })

  it('refuses a bad checksum, an unknown word and a wrong length; tolerates extra whitespace', () => {
    expect(isValidMnemonic(mnemonic.replace(/about$/, 'abandon'))).toBe(false)
    expect(isValidMnemonic(mnemonic.replace(/about$/, 'aboutt'))).toBe(false)
    expect(isValidMnemonic('abandon abandon about')).toBe(false)
    expect(isValidMnemonic(`  ${mnemonic.replaceAll(' ', '  ')}\n`)).toBe(true)
    expect(() => hdKeys({ mnemonic: mnemonic.replace(/about$/, 'zoo') })).toThrow(
      'hdKeys: invalid BIP-39 mnemonic',
    )
  })
})
