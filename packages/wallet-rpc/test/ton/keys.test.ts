import { keyPairFromSeed, sign as tonCryptoSign } from '@ton/crypto'
import { describe, expect, it } from 'vitest'
import { loadWebCryptoEd25519 } from '../../src/crypto/webCryptoEd25519.js'
import {
  ed25519,
  loadNodeEd25519,
  nobleEd25519,
  tonKeys,
  tweetnaclEd25519,
  walletContract,
} from '../../src/ton/index.js'
import { vectors } from './fixtures.js'

const hex = (text: string) => new Uint8Array(Buffer.from(text, 'hex'))
const toHex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

describe('Ed25519 backends', async () => {
  const node = await loadNodeEd25519()
  // Node's globalThis.crypto.subtle has Ed25519: the backend browsers choose, run here.
  const webCrypto = loadWebCryptoEd25519(nobleEd25519)
  const backends = [
    tweetnaclEd25519,
    nobleEd25519,
    ...(node ? [node] : []),
    ...(webCrypto ? [webCrypto] : []),
  ]

  it('WebCrypto, @noble/curves and tweetnacl are all here to compare', () => {
    expect(backends.map((backend) => backend.name)).toEqual([
      'tweetnacl',
      '@noble/curves',
      'node:crypto',
      'WebCrypto',
    ])
  })

  it('node:crypto is available on Node and chosen as the fast backend', async () => {
    expect(node?.name).toBe('node:crypto')
    expect((await ed25519()).name).toBe('node:crypto')
  })

  for (const backend of backends) {
    it(`${backend.name} reproduces RFC 8032 §7.1 tests 1-3`, async () => {
      for (const vector of vectors('ed25519-rfc8032.json').vectors) {
        const key = backend.fromSeed(hex(vector.secretKey))
        expect(toHex(key.publicKey)).toBe(vector.publicKey)
        expect(toHex(await key.sign(hex(vector.message)))).toBe(vector.signature)
        expect(backend.verify(key.publicKey, hex(vector.message), hex(vector.signature))).toBe(true)
      }
    })
  }

  it('node:crypto and tweetnacl give byte-identical signatures over 40 random keys and messages', () => {
    expect(node).toBeDefined()
    for (let round = 0; round < 40; round++) {
      const seed = crypto.getRandomValues(new Uint8Array(32))
      const message = crypto.getRandomValues(new Uint8Array(round % 97))
      const a = node!.fromSeed(seed)
      const b = tweetnaclEd25519.fromSeed(seed)
      expect(toHex(a.publicKey)).toBe(toHex(b.publicKey))
      const signature = a.sign(message) as Uint8Array
      expect(toHex(signature)).toBe(toHex(b.sign(message) as Uint8Array))
      // Each backend accepts the other's signature and rejects a flipped bit.
      expect(tweetnaclEd25519.verify(b.publicKey, message, signature)).toBe(true)
      const flipped = Uint8Array.from(signature)
      flipped[round % 64]! ^= 1
      expect(node!.verify(a.publicKey, message, flipped)).toBe(false)
    }
  })

  it('all agree with @ton/crypto sign() and the walletkit fixture signature', async () => {
    const fixture = vectors('mnemonic-wallets.json').rawSign
    const pair = keyPairFromSeed(Buffer.from(fixture.seed, 'hex'))
    const message = hex(fixture.messageHex)
    expect(Buffer.from(tonCryptoSign(Buffer.from(message), pair.secretKey)).toString('base64')).toBe(
      fixture.signature,
    )
    for (const backend of backends) {
      expect(Buffer.from(await backend.fromSeed(hex(fixture.seed)).sign(message)).toString('base64')).toBe(
        fixture.signature,
      )
    }
  })

  it('rejects seeds that are not 32 bytes and malformed signatures', () => {
    for (const backend of backends) {
      expect(() => backend.fromSeed(new Uint8Array(31))).toThrow(/32 bytes/)
      expect(backend.verify(new Uint8Array(32), new Uint8Array(1), new Uint8Array(63))).toBe(false)
    }
  })
})

describe('tonKeys', () => {
  const wallets = vectors('mnemonic-wallets.json').wallets

  it('derives the walletkit fixture keys and wallet addresses from the mnemonic', async () => {
    for (const fixture of wallets) {
      const signer = await tonKeys.fromMnemonic(fixture.mnemonic, { validate: fixture.validTonMnemonic })
      expect(toHex(signer.publicKey)).toBe(fixture.publicKey)
      const v4 = walletContract(signer.publicKey, { version: 'v4r2' })
      expect(v4.address.toString({ bounceable: false })).toBe(fixture.v4r2.nonBounceable)
      const v5 = walletContract(signer.publicKey, { version: 'v5r1' })
      expect(v5.address.toString({ bounceable: false })).toBe(fixture.v5r1.nonBounceable)
      const v5testnet = walletContract(signer.publicKey, { version: 'v5r1', networkGlobalId: -3 })
      expect(v5testnet.address.toRawString()).toBe(fixture.v5r1Testnet.raw)
      expect(v5testnet.address.toString({ bounceable: false, testOnly: true })).toBe(
        fixture.v5r1Testnet.testnetNonBounceable,
      )
    }
  })

  it('refuses a phrase that is not a valid TON mnemonic unless told otherwise, without echoing it', async () => {
    const phrase = wallets[0].mnemonic as string
    const failure = await tonKeys.fromMnemonic(phrase).catch((error: Error) => error)
    expect(failure).toBeInstanceOf(TypeError)
    expect((failure as Error).message).not.toContain('abandon')
    await expect(tonKeys.fromMnemonic('one two three')).rejects.toThrow(/24 words/)
  })

  it('signs with the seed only and never exposes it', async () => {
    const fixture = wallets[1]
    const signer = await tonKeys.fromSecretKey(hex(fixture.seed))
    const serialized = JSON.stringify(signer) + Object.keys(signer).join(',')
    expect(serialized).not.toContain(fixture.seed)
    expect(Object.keys(signer).sort()).toEqual(['publicKey', 'sign'])
    // A caller mutating the returned public key does not change the signer's.
    signer.publicKey.fill(0)
    expect(toHex(signer.publicKey)).toBe(fixture.publicKey)
  })

  it('accepts @ton/crypto key pairs and refuses mismatched halves', async () => {
    const pair = keyPairFromSeed(Buffer.from(wallets[1].seed, 'hex'))
    const signer = await tonKeys.fromKeyPair(pair)
    expect(toHex(signer.publicKey)).toBe(wallets[1].publicKey)
    const other = keyPairFromSeed(Buffer.alloc(32, 1))
    await expect(
      tonKeys.fromKeyPair({ publicKey: other.publicKey, secretKey: pair.secretKey }),
    ).rejects.toThrow(/does not belong/)
    await expect(tonKeys.fromSecretKey(new Uint8Array(33))).rejects.toThrow(/32 bytes/)
  })
})
