import { readFileSync } from 'node:fs'
import { personalSign, SignTypedDataVersion, signTypedData } from '@metamask/eth-sig-util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { BIP32Factory } from 'bip32'
import { mnemonicToSeedSync } from 'bip39'
import * as ecc from 'tiny-secp256k1'
import { bytesToHex, getAddress, type Hex, hashTypedData, keccak256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { mnemonicKeys, privateKeyKeys } from '../../src/eip155/index.js'
import { errorOf, harness } from './helpers.js'

const load = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../test-vectors/eip155/${name}`, import.meta.url), 'utf8'))

const keyBuffer = (privateKey: string) => Buffer.from(privateKey.slice(2), 'hex')

describe('personal-sign.json (EIP-191)', () => {
  const vectors = load('personal-sign.json')
  for (const vector of vectors.cases) {
    it(vector.name, async () => {
      const { result } = harness({ keys: privateKeyKeys(vector.privateKey), chains: [1] })
      const signature = await result('personal_sign', [vector.message, vector.address])
      expect(signature).toBe(vector.signature)
      // Independent implementation: eth-sig-util reads a hex string as bytes, anything else as UTF-8.
      expect(personalSign({ privateKey: keyBuffer(vector.privateKey), data: vector.message })).toBe(signature)
    })
  }

  it('signs a hex param as bytes, never as its UTF-8 text', async () => {
    const { mustNotEqual } = vectors
    const address = '0xbe93f9bacbcffc8ee6663f2647917ed7a20a57bb'
    const { result } = harness({ keys: privateKeyKeys(mustNotEqual.privateKey), chains: [1] })
    const signature = await result('personal_sign', [mustNotEqual.message, address])
    expect(signature).not.toBe(mustNotEqual.wrongSignature)
    expect(signature).toBe(vectors.cases[1].signature)
  })
})

describe('personal_sign odd-length hex', () => {
  it('signs 0x123 as the bytes 01 23, as eth-sig-util does', async () => {
    const privateKey = '0x4646464646464646464646464646464646464646464646464646464646464646'
    const { result } = harness({ keys: privateKeyKeys(privateKey), chains: [1] })
    const address = privateKeyToAccount(privateKey).address
    const signature = await result('personal_sign', ['0x123', address])
    expect(signature).toBe(personalSign({ privateKey: keyBuffer(privateKey), data: '0x123' }))
    expect(signature).toBe(await result('personal_sign', ['0x0123', address]))
  })
})

describe('eip712-mail.json (EIP-712 Ether Mail)', () => {
  const vector = load('eip712-mail.json')
  it('hashes to the EIP signing hash', () => {
    expect(hashTypedData(vector.typedData)).toBe(vector.signingHash)
  })
  for (const [form, typedData] of [
    ['object', vector.typedData],
    ['JSON string', JSON.stringify(vector.typedData)],
  ] as const) {
    for (const method of ['eth_signTypedData_v4', 'eth_signTypedData_v3', 'eth_signTypedData']) {
      it(`${method} with typed data as ${form} gives the EIP signature`, async () => {
        const { result, reviews } = harness({ keys: privateKeyKeys(vector.privateKey), chains: [1] })
        const signature = await result(method, [vector.address, typedData])
        expect(signature).toBe(vector.signature)
        expect(
          signTypedData({
            privateKey: keyBuffer(vector.privateKey),
            data: vector.typedData,
            version: SignTypedDataVersion.V4,
          }),
        ).toBe(signature)
        expect(reviews[0]?.items).toContainEqual({ label: 'Digest', value: vector.signingHash })
      })
    }
  }
})

describe('eth-sig-util-typed-data.json (eth-sig-util V4 vector set)', () => {
  const vectors = load('eth-sig-util-typed-data.json')
  for (const vector of vectors.cases) {
    const independent = () =>
      signTypedData({
        privateKey: keyBuffer(vectors.privateKey),
        data: vector.typedData,
        version: SignTypedDataVersion.V4,
      })
    if (vector.walletRpc === undefined) {
      it(vector.name, async () => {
        const { result } = harness({ keys: privateKeyKeys(vectors.privateKey), chains: [1] })
        const signature = await result('eth_signTypedData_v4', [vectors.address, vector.typedData])
        expect(signature).toBe(vector.signature)
        expect(independent()).toBe(signature)
      })
    } else {
      it(`${vector.name}: refused with -32602 (documented divergence)`, async () => {
        const { call } = harness({ keys: privateKeyKeys(vectors.privateKey), chains: [1] })
        const response = await call('eth_signTypedData_v4', [vectors.address, vector.typedData])
        expect(errorOf(response).code).toBe(-32602)
        // eth-sig-util does sign it: the vector documents what MetaMask would have produced.
        expect(independent()).toBe(vector.signature)
      })
    }
  }
})

describe('eip155-example-tx.json (EIP-155) and viem-eip1559-tx.json', () => {
  for (const [file, chain] of [
    ['eip155-example-tx.json', 1],
    ['viem-eip1559-tx.json', 1],
  ] as const) {
    it(`${file}: eth_signTransaction on a signing-only chain reproduces the signed transaction`, async () => {
      const vector = load(file)
      const { result } = harness({ keys: privateKeyKeys(vector.privateKey), chains: [chain] })
      const raw = await result<Hex>('eth_signTransaction', [{ from: vector.address, ...vector.transaction }])
      expect(raw).toBe(vector.signedTransaction)
      if (vector.transactionHash) expect(keccak256(raw)).toBe(vector.transactionHash)
    })
  }
})

describe("bip44-addresses.json (m/44'/60'/0'/0/i)", () => {
  const bip32 = BIP32Factory(ecc)
  const vectors = load('bip44-addresses.json')
  for (const vector of vectors.cases) {
    it(`${vector.mnemonic.split(' ').slice(-1)[0]} passphrase "${vector.passphrase}"`, async () => {
      const indices = vector.addresses.map((entry: { index: number }) => entry.index)
      const keys = mnemonicKeys({
        mnemonic: vector.mnemonic,
        addressIndex: indices,
        ...(vector.passphrase ? { passphrase: vector.passphrase } : {}),
      })
      expect(await keys.addresses()).toEqual(
        vector.addresses.map((entry: { address: string }) => entry.address),
      )
      // Independent derivation: bitcoinjs bip32 + tiny-secp256k1 + noble keccak.
      const seed = mnemonicToSeedSync(vector.mnemonic, vector.passphrase)
      if (vector.seed) expect(seed.toString('hex')).toBe(vector.seed)
      const root = bip32.fromSeed(seed)
      for (const entry of vector.addresses) {
        const node = root.derivePath(entry.path)
        const uncompressed = ecc.pointCompress(node.publicKey, false)
        const address = getAddress(bytesToHex(keccak_256(uncompressed.slice(1)).slice(-20)))
        expect(address).toBe(entry.address)
        if (entry.privateKey) expect(bytesToHex(node.privateKey!)).toBe(entry.privateKey)
      }
    })
  }

  it('the wallet answers accounts() with the derived addresses', async () => {
    const { wallet } = harness({
      keys: mnemonicKeys({
        mnemonic:
          'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about',
        addressIndex: [0, 1],
      }),
      chains: [1, 31337],
    })
    expect(await wallet.accounts('eip155:31337')).toEqual([
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
      '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0',
    ])
  })

  it('an invalid mnemonic is refused without echoing it', () => {
    expect(() => mnemonicKeys({ mnemonic: 'abandon abandon abandon' })).toThrowError(
      /^invalid BIP-39 mnemonic$/,
    )
  })

  it('an invalid private key is refused without echoing it', () => {
    // At or above the curve order: noble's own error prints this value in decimal.
    const outOfRange = `0x${'ff'.repeat(32)}` as const
    expect(() => privateKeyKeys(outOfRange)).toThrowError(
      /^private key #0 is not a valid secp256k1 private key$/,
    )
  })
})
