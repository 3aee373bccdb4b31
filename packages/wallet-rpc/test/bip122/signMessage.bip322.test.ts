/**
 * Our own BIP-322 construction against the published vectors and against bip322-js, byte for byte where the
 * signature is deterministic (ECDSA, RFC 6979) and by verification where it is not (Schnorr aux randomness).
 */
import { readFileSync } from 'node:fs'
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import { BIP322, Signer, Verifier } from 'bip322-js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BIP122_MAINNET, bip122Chains, outputScriptOf } from '../../src/bip122/chains.js'
import { sha256d } from '../../src/bip122/encoding.js'
import { singleKey } from '../../src/bip122/keys/singleKey.js'
import { bitcoinMessageHash } from '../../src/bip122/message/bip137.js'
import { bip322MessageHash, toSignTransaction, toSpendTxid } from '../../src/bip122/message/bip322.js'
import { bip122 } from '../../src/bip122/namespace.js'
import type { AddressType } from '../../src/bip122/types.js'
import { createWalletRpc } from '../../src/createWalletRpc.js'
import {
  bip322jsVerifies,
  bip322MessageHashIndependent,
  bitcoinMessageHashIndependent,
  nobleVerifies,
} from './signMessage.independent.js'

type SimpleRow = {
  message: string
  address: string
  type: string
  signatures: string[]
  rfc6979?: string
  privateKeyWif?: string
}
type Bip322Vectors = {
  privateKeyWif: string
  addressesOfThatKey: Record<'p2wpkh' | 'p2tr' | 'p2sh-p2wpkh' | 'p2pkh', string>
  tx_hashes: Array<
    Record<'message' | 'address' | 'message_hash' | 'to_spend_tx_hash' | 'to_sign_tx_hash', string>
  >
  simple: SimpleRow[]
  error: Array<{ description: string; message: string; address: string; signature: string }>
}
type Bip137Vectors = {
  magicHash: Array<{ message: string; hash: string }>
  sign: {
    privateKeyHex: string
    message: string
    signatures: Array<{ type: string; address: string; signature: string }>
  }
  verify: Array<{ address: string; message: string; signature: string; valid: boolean }>
}
const vectors = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../test-vectors/bip122/${name}`, import.meta.url), 'utf8'))
const bip322 = vectors('bip322.json') as Bip322Vectors
const bip137 = vectors('bip137.json') as Bip137Vectors
const mainnet = bip122Chains[BIP122_MAINNET]!
const display = (internal: Uint8Array) => bytesToHex(Uint8Array.from(internal).reverse())

async function signWith(
  privateKey: string | Uint8Array,
  addressType: AddressType,
  message: string,
  protocol?: 'ecdsa' | 'bip322',
) {
  const namespace = bip122({ keys: singleKey({ privateKey, addressType }), chains: { [BIP122_MAINNET]: {} } })
  const wallet = createWalletRpc({ namespaces: [namespace], approve: () => true })
  const [account] = await wallet.accounts(BIP122_MAINNET)
  const response = await wallet.handle({
    chainId: BIP122_MAINNET,
    request: {
      id: 1,
      method: 'signMessage',
      params: protocol ? { account, message, protocol } : { account, message },
    },
  })
  if (!('result' in response)) throw new Error(JSON.stringify(response))
  return response.result as { address: string; signature: string; messageHash: string }
}

describe('BIP-322 virtual transactions (basic-test-vectors.json tx_hashes)', () => {
  it.each(bip322.tx_hashes)('$message', (row) => {
    const script = outputScriptOf(row.address!, mainnet, 'address')
    const messageHash = bip322MessageHash(utf8ToBytes(row.message!))
    expect(bytesToHex(messageHash)).toBe(row.message_hash)
    const toSpend = toSpendTxid(messageHash, script)
    expect(display(toSpend)).toBe(row.to_spend_tx_hash)
    expect(display(sha256d(toSignTransaction(toSpend)))).toBe(row.to_sign_tx_hash)
    // bip322-js builds the same to_spend.
    expect(BIP322.buildToSpendTx(row.message!, Buffer.from(script)).getId()).toBe(row.to_spend_tx_hash)
    expect(bytesToHex(BIP322.hashMessage(row.message!))).toBe(row.message_hash)
  })
})

describe('simple signatures equal the vectors and bip322-js', () => {
  const wif = bip322.privateKeyWif as string
  it.each(bip322.simple.filter((row) => row.type === 'p2wpkh'))(
    'P2WPKH "$message" is the RFC 6979 vector, byte for byte',
    async (row) => {
      const answer = await signWith(wif, 'p2wpkh', row.message, 'bip322')
      expect(answer.address).toBe(row.address)
      expect(Buffer.from(answer.signature, 'hex').toString('base64')).toBe(row.rfc6979)
      expect(Buffer.from(answer.signature, 'hex').toString('base64')).toBe(
        Signer.sign(wif, row.address, row.message),
      )
      expect(nobleVerifies(answer, row.message)).toBe(true)
    },
  )

  it.each(['', 'Hello World', 'UTF-8 support: öäüéàè 测试文本 😄'])(
    'P2SH-P2WPKH and P2PKH "%s" equal bip322-js Signer.sign',
    async (message) => {
      for (const type of ['p2sh-p2wpkh', 'p2pkh'] as const) {
        const answer = await signWith(wif, type, message, 'bip322')
        expect(answer.address).toBe(bip322.addressesOfThatKey[type])
        expect(Buffer.from(answer.signature, 'hex').toString('base64')).toBe(
          Signer.sign(wif, answer.address, message),
        )
        expect(bip322jsVerifies(answer.address, message, answer.signature)).toBe(true)
        expect(nobleVerifies(answer, message)).toBe(true)
      }
    },
  )

  it.each(
    bip322.simple.filter(
      (row: { type: string; privateKeyWif?: string }) => row.type === 'p2tr' && row.privateKeyWif,
    ),
  )('P2TR "$message" with the vector key verifies (64-byte SIGHASH_DEFAULT)', async (row) => {
    const answer = await signWith(row.privateKeyWif!, 'p2tr', row.message, 'bip322')
    expect(answer.address).toBe(row.address)
    expect(answer.signature).toMatch(/^0140[0-9a-f]{128}$/)
    expect(bip322jsVerifies(row.address, row.message, answer.signature)).toBe(true)
    expect(nobleVerifies(answer, row.message)).toBe(true)
    expect(bip322jsVerifies(row.address, `${row.message}!`, answer.signature)).toBe(false)
  })
})

describe('random messages: our BIP-322 signature equals bip322-js', () => {
  const wif = bip322.privateKeyWif as string
  const types = ['p2wpkh', 'p2sh-p2wpkh', 'p2tr'] as const
  // One wallet per address type, kept across runs, so each address's templates serve many messages in turn.
  const wallets = new Map(
    types.map((addressType) => [
      addressType,
      createWalletRpc({
        namespaces: [
          bip122({ keys: singleKey({ privateKey: wif, addressType }), chains: { [BIP122_MAINNET]: {} } }),
        ],
        approve: () => true,
      }),
    ]),
  )
  const messages = fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 400 }),
    fc.string({ maxLength: 20 }).map((text) => `${text}\ud800${text}`), // a lone surrogate: signed as U+FFFD
  )

  it('P2WPKH and P2SH-P2WPKH byte for byte (RFC 6979), P2TR by Verifier.verifySignature (random aux)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...types), messages, async (addressType, message) => {
        const address = bip322.addressesOfThatKey[addressType]
        const response = await wallets.get(addressType)!.handle({
          chainId: BIP122_MAINNET,
          request: {
            id: 1,
            method: 'signMessage',
            params: { account: address, message, protocol: 'bip322' },
          },
        })
        if (!('result' in response)) throw new Error(JSON.stringify(response))
        const answer = response.result as { address: string; signature: string; messageHash: string }
        expect(answer.address).toBe(address)
        expect(answer.messageHash).toBe(bytesToHex(BIP322.hashMessage(message)))
        const base64 = Buffer.from(answer.signature, 'hex').toString('base64')
        if (addressType === 'p2tr') expect(Verifier.verifySignature(address, message, base64)).toBe(true)
        else expect(base64).toBe(Signer.sign(wif, address, message))
        expect(Verifier.verifySignature(address, `${message}.`, base64)).toBe(false)
      }),
      { numRuns: 150 },
    )
  })
})

/** The checkers every signMessage test relies on must accept the published signatures and refuse the bad ones. */
describe('sanity of the independent checkers on the published vectors', () => {
  const hexOf = (base64: string) => Buffer.from(base64.replace(/^smp/, ''), 'base64').toString('hex')
  const asAnswer = (address: string, signature: string, messageHash: string) => ({
    address,
    signature,
    messageHash,
  })

  it('every simple signature verifies with bip322-js and, where SIGHASH_ALL/DEFAULT as we sign, with noble', () => {
    for (const row of bip322.simple) {
      for (const signature of row.signatures) {
        const hex = hexOf(signature)
        expect(bip322jsVerifies(row.address, row.message, hex)).toBe(true)
        // noble checks only what signMessage emits: P2WPKH, and P2TR with a 64-byte SIGHASH_DEFAULT signature.
        if (row.type === 'p2tr' && hex.length !== 2 + 2 + 128) continue
        const answer = asAnswer(row.address, hex, bip322MessageHashIndependent(row.message))
        expect(nobleVerifies(answer, row.message)).toBe(true)
        expect(nobleVerifies(answer, `${row.message}!`)).toBe(false)
      }
    }
  })

  it.each(bip322.error)('refuses: $description', (row) => {
    const hex = hexOf(row.signature)
    // bip322-js refuses by returning false, or by throwing for a type it cannot verify (P2WSH).
    const bip322jsAccepts = (() => {
      try {
        return bip322jsVerifies(row.address, row.message, hex)
      } catch {
        return false
      }
    })()
    expect(bip322jsAccepts).toBe(false)
    expect(
      nobleVerifies(asAnswer(row.address, hex, bip322MessageHashIndependent(row.message)), row.message),
    ).toBe(false)
  })

  it.each(bip137.verify)('BIP-137 $address "$message" → $valid', (row) => {
    const hex = hexOf(row.signature)
    expect(bip322jsVerifies(row.address, row.message, hex, true)).toBe(row.valid)
    // noble recovers compressed keys only (headers 31–42), the only ones signMessage produces.
    if (Number.parseInt(hex.slice(0, 2), 16) >= 31) {
      const answer = asAnswer(row.address, hex, bitcoinMessageHashIndependent(row.message))
      expect(nobleVerifies(answer, row.message)).toBe(row.valid)
    }
  })
})

describe('BIP-137 (bitcoinjs-message fixtures)', () => {
  it.each(bip137.magicHash)('magic hash of "$message"', (row) => {
    expect(bytesToHex(bitcoinMessageHash(utf8ToBytes(row.message)))).toBe(row.hash)
  })

  const compressed = bip137.sign.signatures.filter(
    (row: { type: string }) => row.type !== 'p2pkh-uncompressed',
  )
  it.each(compressed)(
    'd=1 $type signature is the fixture, byte for byte',
    async (row: Record<string, string>) => {
      const answer = await signWith(
        hexToBytes(bip137.sign.privateKeyHex),
        row.type as AddressType,
        bip137.sign.message,
        'ecdsa',
      )
      expect(answer.address).toBe(row.address)
      expect(Buffer.from(answer.signature, 'hex').toString('base64')).toBe(row.signature)
      expect(bip322jsVerifies(answer.address, bip137.sign.message, answer.signature, true)).toBe(true)
      expect(nobleVerifies(answer, bip137.sign.message)).toBe(true)
    },
  )
})
