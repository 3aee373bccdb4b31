import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import {
  bytesToHex,
  getAddress,
  type Hex,
  numberToHex,
  parseTransaction,
  type TransactionSerializable,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { loadSecp256k1 } from '../../src/crypto/secp256k1.js'
import { privateKeyAccount, secp256k1Account } from '../../src/eip155/account.js'
import { privateKeyKeys } from '../../src/eip155/index.js'

/**
 * Our keys sign with the shared secp256k1 backend; viem's `privateKeyToAccount` (@noble/curves) is the
 * independent implementation every result must equal byte for byte, on the vectors and on random input,
 * for the WASM backend and for the portable fallback alike.
 */
const load = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../test-vectors/eip155/${name}`, import.meta.url), 'utf8'))

const backends = [await loadSecp256k1('tiny-secp256k1'), await loadSecp256k1('@bitcoinerlab/secp256k1')]
const curveOrder = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const numRuns = 150

const both = (privateKey: Hex, curve: (typeof backends)[number]['ecc']) => ({
  ours: secp256k1Account(hexToKey(privateKey), curve),
  viem: privateKeyToAccount(privateKey),
})
const hexToKey = (privateKey: Hex) => Uint8Array.from(Buffer.from(privateKey.slice(2), 'hex'))

const privateKey = fc.bigInt({ min: 1n, max: curveOrder - 1n }).map((d) => numberToHex(d, { size: 32 }))
const bytesHex = (maxLength: number) => fc.uint8Array({ maxLength }).map((bytes) => bytesToHex(bytes))
const hash = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => bytesToHex(bytes))
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(bytesToHex(bytes)))
const chainId = fc.oneof(
  fc.constantFrom(1, 10, 56, 137, 8453, 31337, 11155111),
  fc.integer({ min: 1, max: 2 ** 32 }),
)
const uint = (bits: bigint) => fc.bigInt({ min: 0n, max: 2n ** bits - 1n })
const common = {
  to: fc.option(address, { nil: undefined }),
  value: uint(256n),
  nonce: fc.maxSafeNat(),
  gas: uint(64n),
  data: bytesHex(64),
}
const accessList = fc.array(fc.record({ address, storageKeys: fc.array(hash, { maxLength: 3 }) }), {
  maxLength: 3,
})
const transaction: fc.Arbitrary<TransactionSerializable> = fc.oneof(
  fc.record({
    ...common,
    type: fc.constant('legacy' as const),
    // Without a chain id: the pre-EIP-155 form (v = 27/28).
    chainId: fc.option(chainId, { nil: undefined }),
    gasPrice: uint(256n),
  }),
  fc.record({ ...common, type: fc.constant('eip2930' as const), chainId, gasPrice: uint(256n), accessList }),
  fc
    .record({
      ...common,
      type: fc.constant('eip1559' as const),
      chainId,
      accessList,
      // viem refuses a tip above the fee cap.
      fees: uint(256n).chain((cap) => fc.tuple(fc.constant(cap), fc.bigInt({ min: 0n, max: cap }))),
    })
    .map(({ fees: [maxFeePerGas, maxPriorityFeePerGas], ...rest }) => ({
      ...rest,
      maxFeePerGas,
      maxPriorityFeePerGas,
    })),
)
const mail = fc.record({
  domain: fc.record({
    name: fc.string(),
    version: fc.string({ maxLength: 4 }),
    chainId,
    verifyingContract: address,
  }),
  from: fc.record({ name: fc.string(), wallet: address }),
  to: fc.record({ name: fc.string(), wallet: address }),
  contents: fc.string({ unit: 'binary', maxLength: 80 }),
})
const mailTypes = load('eip712-mail.json').typedData.types

describe.each(backends)('secp256k1Account with $name', ({ ecc: curve }) => {
  describe('vectors', () => {
    it('personal-sign.json (EIP-191): signMessage gives each signature', async () => {
      for (const vector of load('personal-sign.json').cases) {
        const account = secp256k1Account(hexToKey(vector.privateKey), curve)
        expect(account.address.toLowerCase()).toBe(vector.address.toLowerCase())
        const message = /^0x(?:[0-9a-fA-F]{2})*$/.test(vector.message)
          ? { raw: vector.message }
          : vector.message
        expect(await account.signMessage({ message })).toBe(vector.signature)
      }
    })

    it('eip712-mail.json and eth-sig-util-typed-data.json: signTypedData gives each signature', async () => {
      const mailVector = load('eip712-mail.json')
      const mailAccount = secp256k1Account(hexToKey(mailVector.privateKey), curve)
      expect(await mailAccount.signTypedData(mailVector.typedData)).toBe(mailVector.signature)
      const set = load('eth-sig-util-typed-data.json')
      const account = secp256k1Account(hexToKey(set.privateKey), curve)
      const signed = set.cases.filter((vector: { walletRpc?: unknown }) => vector.walletRpc === undefined)
      expect(signed.length).toBeGreaterThan(0)
      for (const vector of signed)
        expect(await account.signTypedData(vector.typedData)).toBe(vector.signature)
    })

    it('eip155-example-tx.json (legacy, EIP-155 v) and viem-eip1559-tx.json: signTransaction gives the signed bytes', async () => {
      for (const file of ['eip155-example-tx.json', 'viem-eip1559-tx.json']) {
        const vector = load(file)
        const {
          r: _r,
          s: _s,
          v: _v,
          yParity: _yParity,
          ...unsigned
        } = parseTransaction(vector.signedTransaction)
        const account = secp256k1Account(hexToKey(vector.privateKey), curve)
        expect(account.address).toBe(vector.address)
        expect(await account.signTransaction(unsigned as TransactionSerializable)).toBe(
          vector.signedTransaction,
        )
      }
    })

    it('bip44-addresses.json: the address and public key of each listed private key', () => {
      for (const vector of load('bip44-addresses.json').cases) {
        for (const entry of vector.addresses.filter((entry: { privateKey?: Hex }) => entry.privateKey)) {
          const { ours, viem } = both(entry.privateKey, curve)
          expect(ours.address).toBe(entry.address)
          expect(ours.publicKey).toBe(viem.publicKey)
        }
      }
    })
  })

  describe('equals viem privateKeyToAccount on random input', () => {
    it('address, public key and sign({ hash })', async () => {
      await fc.assert(
        fc.asyncProperty(privateKey, hash, async (key, digest) => {
          const { ours, viem } = both(key, curve)
          expect(ours.address).toBe(viem.address)
          expect(ours.publicKey).toBe(viem.publicKey)
          expect(await ours.sign!({ hash: digest })).toBe(await viem.sign({ hash: digest }))
        }),
        { numRuns },
      )
    })

    it('signMessage: UTF-8 text, raw bytes and raw hex', async () => {
      const message = fc.oneof(
        fc.string({ unit: 'binary', maxLength: 200 }),
        fc.uint8Array({ maxLength: 200 }).map((raw) => ({ raw })),
        bytesHex(200).map((raw) => ({ raw })),
      )
      await fc.assert(
        fc.asyncProperty(privateKey, message, async (key, text) => {
          const { ours, viem } = both(key, curve)
          expect(await ours.signMessage({ message: text })).toBe(await viem.signMessage({ message: text }))
        }),
        { numRuns },
      )
    })

    it('signTypedData: the EIP-712 Mail shape with random values', async () => {
      await fc.assert(
        fc.asyncProperty(privateKey, mail, async (key, { domain, ...message }) => {
          const { ours, viem } = both(key, curve)
          const typedData = { types: mailTypes, primaryType: 'Mail', domain, message } as const
          expect(await ours.signTypedData(typedData)).toBe(await viem.signTypedData(typedData))
        }),
        { numRuns },
      )
    })

    it('signTransaction: legacy (with and without chain id), EIP-2930 and EIP-1559', async () => {
      await fc.assert(
        fc.asyncProperty(privateKey, transaction, async (key, tx) => {
          const { ours, viem } = both(key, curve)
          expect(await ours.signTransaction(tx)).toBe(await viem.signTransaction(tx))
        }),
        { numRuns },
      )
    })
  })

  it('refuses keys outside 1..n-1 and of the wrong length', () => {
    for (const bad of [
      new Uint8Array(32),
      hexToKey(numberToHex(curveOrder, { size: 32 })),
      new Uint8Array(32).fill(0xff),
      new Uint8Array(31).fill(1),
      new Uint8Array(33).fill(1),
    ]) {
      expect(() => secp256k1Account(bad, curve)).toThrowError(/^not a valid secp256k1 private key$/)
    }
  })

  it('keeps its own copy of the key and exposes none of it', async () => {
    const key = '0x4646464646464646464646464646464646464646464646464646464646464646'
    const bytes = hexToKey(key)
    const account = secp256k1Account(bytes, curve)
    bytes.fill(7)
    const digest = `0x${'ab'.repeat(32)}` as const
    expect(await account.sign!({ hash: digest })).toBe(await privateKeyToAccount(key).sign({ hash: digest }))
    expect(Object.keys(account).sort()).toEqual(
      [
        'address',
        'nonceManager',
        'publicKey',
        'sign',
        'signAuthorization',
        'signMessage',
        'signTransaction',
        'signTypedData',
        'source',
        'type',
      ].sort(),
    )
    expect(JSON.stringify(account)).not.toContain('4646464646')
  })
})

it('privateKeyKeys refuses a key that is not exactly 64 hex digits, without echoing it', () => {
  for (const bad of [`0x${'1'.repeat(63)}`, `0x${'1'.repeat(65)}`, `0x${'g'.repeat(64)}`, '1'.repeat(64)]) {
    expect(() => privateKeyKeys(bad as Hex)).toThrowError(
      /^private key #0 is not a valid secp256k1 private key$/,
    )
  }
})

it('privateKeyAccount signs with the WASM backend, and with viem’s own signer when only the portable one loaded', async () => {
  const key = `0x${'46'.repeat(32)}` as const
  const expected = await privateKeyToAccount(key).signMessage({ message: 'which signer' })
  for (const backend of backends) {
    let calls = 0
    const counted = {
      ...backend,
      ecc: {
        ...backend.ecc,
        signRecoverable: (...args: Parameters<typeof backend.ecc.signRecoverable>) => {
          calls++
          return backend.ecc.signRecoverable(...args)
        },
      },
    }
    const account = privateKeyAccount(hexToKey(key), counted)
    expect(await account.signMessage({ message: 'which signer' })).toBe(expected)
    expect(calls).toBe(backend.name === 'tiny-secp256k1' ? 1 : 0)
  }
})
