import { readFileSync } from 'node:fs'
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js'
import { mnemonicNew, mnemonicToPrivateKey, mnemonicValidate } from '@ton/crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { noblePbkdf2Async, nobleSha512 } from '../../src/crypto/nobleHashes.js'
import { pbkdf2Sha512 } from '../../src/crypto/pbkdf2.js'
import { isValidTonMnemonic, tonMnemonicSeed } from '../../src/ton/mnemonic.js'

const vectors = JSON.parse(
  readFileSync(new URL('../../test-vectors/ton/mnemonic-wallets.json', import.meta.url), 'utf8'),
) as { wallets: Array<{ mnemonic: string; validTonMnemonic: boolean; seed: string }> }

afterEach(() => vi.unstubAllGlobals())

describe('TON mnemonic (tonlib scheme on @noble/hashes and the runtime PBKDF2)', () => {
  it('reproduces the published vectors (seed, and the validity flag)', async () => {
    for (const wallet of vectors.wallets) {
      const words = wallet.mnemonic.split(' ')
      expect(bytesToHex(await tonMnemonicSeed(words))).toBe(wallet.seed)
      expect(await isValidTonMnemonic(words)).toBe(wallet.validTonMnemonic)
    }
  })

  // Made by @ton/crypto's mnemonicNew(24, 'hunter2'). Not drawn in the test: finding a mnemonic that needs a
  // password takes that function anywhere from one to thirty seconds, which a loaded CI machine cannot bound.
  const passwordMnemonics = [
    'term later tattoo mad garden siege grape favorite clinic increase candy dilemma depend shoot sail public anchor trial canyon year suspect want put awkward',
    'human legal trial guard arrange unhappy trap trade obvious inner survey during position talk father great child spot praise seminar jelly distance forget park',
  ]

  it('agrees with @ton/crypto on fresh mnemonics without a password', async () => {
    for (let i = 0; i < 3; i++) {
      const words = await mnemonicNew(24)
      const theirs = await mnemonicToPrivateKey(words)
      expect(bytesToHex(await tonMnemonicSeed(words))).toBe(bytesToHex(theirs.secretKey.subarray(0, 32)))
      expect(await isValidTonMnemonic(words)).toBe(await mnemonicValidate(words))
    }
    const notWords = 'abandon '.repeat(23).concat('zzz').split(' ')
    expect(await isValidTonMnemonic(notWords)).toBe(false)
  })

  it.each(passwordMnemonics)(
    'agrees with @ton/crypto on mnemonic %# that needs a password',
    async (mnemonic) => {
      const words = mnemonic.split(' ')
      const theirs = await mnemonicToPrivateKey(words, 'hunter2')
      expect(bytesToHex(await tonMnemonicSeed(words, 'hunter2'))).toBe(
        bytesToHex(theirs.secretKey.subarray(0, 32)),
      )
      expect(await isValidTonMnemonic(words, 'hunter2')).toBe(await mnemonicValidate(words, 'hunter2'))
      expect(await isValidTonMnemonic(words, 'hunter2')).toBe(true)
      // Without its password it is not a valid mnemonic, for both.
      expect(await isValidTonMnemonic(words, '')).toBe(await mnemonicValidate(words))
      expect(await isValidTonMnemonic(words, '')).toBe(false)
    },
  )

  it('PBKDF2-SHA512 gives the same bytes through OpenSSL, WebCrypto and @noble/hashes', async () => {
    const password = utf8ToBytes('password')
    const salt = utf8ToBytes('salt')
    const openssl = bytesToHex(await pbkdf2Sha512(password, salt, 1000))
    // Where neither exists (Hermes), the bundle holds @noble/hashes (nobleHashes.browser.ts); Node's copy
    // requires it at first use, so it is loaded here while `process` still works.
    noblePbkdf2Async()
    nobleSha512()
    vi.stubGlobal('process', { ...process, getBuiltinModule: undefined })
    const webCrypto = bytesToHex(await pbkdf2Sha512(password, salt, 1000))
    vi.stubGlobal('crypto', undefined)
    const noble = bytesToHex(await pbkdf2Sha512(password, salt, 1000))
    expect(new Set([openssl, webCrypto, noble]).size).toBe(1)
    // RFC 6070 is SHA-1 only; this is the widely published PBKDF2-HMAC-SHA512("password", "salt", 1) value.
    expect(bytesToHex(await pbkdf2Sha512(password, salt, 1))).toBe(
      '867f70cf1ade02cff3752599a3a53dc4af34c7a669815ae5d513554e1c8cf252c02d470a285a0501bad999bfe943c08f050235d7d68b1da55e63f73b60a57fce',
    )
  })
})
