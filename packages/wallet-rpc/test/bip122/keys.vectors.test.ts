import { readFileSync } from 'node:fs'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { hmac } from '@noble/hashes/hmac.js'
import { sha256, sha512 } from '@noble/hashes/sha2.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { createBase58check } from '@scure/base'
import * as btc from '@scure/btc-signer'
import { describe, expect, it } from 'vitest'
import { createAccount } from '../../src/bip122/account.js'
import { BIP122_MAINNET, BIP122_REGTEST, BIP122_TESTNET, bip122Chains } from '../../src/bip122/chains.js'
import { hdKeys } from '../../src/bip122/keys/hdKeys.js'
import type { KeyProvider, Purpose } from '../../src/bip122/types.js'
import { networks } from './signMessage.independent.js'

type Row = {
  network: 'mainnet' | 'testnet' | 'regtest'
  path: string
  address: string
  publicKey?: string
  internalKey?: string
  outputKey?: string
  scriptPubKey?: string
}
const load = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../test-vectors/bip122/${name}`, import.meta.url), 'utf8')) as {
    mnemonic: string
    source: string
    license: string
    accountXpub?: { path: string; xpub?: string; zpub?: string }
    addresses: Row[]
  }

/**
 * BIP-32 public child derivation (CKDpub) from a published account xpub/zpub, with @noble/curves and
 * @noble/hashes only: an independent path to the same leaf keys hdKeys derives from the mnemonic.
 */
function publicChild(extendedKey: string, change: number, index: number): Uint8Array {
  const raw = createBase58check(sha256).decode(extendedKey)
  let chainCode = raw.slice(13, 45)
  let key = raw.slice(45, 78)
  for (const child of [change, index]) {
    const data = new Uint8Array(37)
    data.set(key)
    new DataView(data.buffer).setUint32(33, child)
    const digest = hmac(sha512, chainCode, data)
    const tweak = secp256k1.Point.BASE.multiply(BigInt(`0x${bytesToHex(digest.subarray(0, 32))}`))
    key = secp256k1.Point.fromBytes(key).add(tweak).toBytes(true)
    chainCode = digest.slice(32)
  }
  return key
}
const chainOf = { mainnet: BIP122_MAINNET, testnet: BIP122_TESTNET, regtest: BIP122_REGTEST }

const providers = new Map<number, KeyProvider>()
const keysFor = (mnemonic: string, account: number) => {
  let keys = providers.get(account)
  if (!keys) {
    keys = hdKeys({ mnemonic, account })
    providers.set(account, keys)
  }
  return keys
}

function parsePath(path: string) {
  const match = /^m\/(44|49|84|86)'\/([01])'\/(\d+)'\/([01])\/(\d+)$/.exec(path)
  if (!match) throw new Error(path)
  return {
    purpose: Number(match[1]) as Purpose,
    account: Number(match[3]),
    change: Number(match[4]) as 0 | 1,
    index: Number(match[5]),
  }
}

/** The same address from the same public key, encoded by @scure/btc-signer (independent of our encoder). */
function scureAddress(purpose: Purpose, publicKey: Uint8Array, network: Row['network']): string {
  const net = networks[network]
  if (purpose === 84) return btc.p2wpkh(publicKey, net).address!
  if (purpose === 49) return btc.p2sh(btc.p2wpkh(publicKey, net), net).address!
  if (purpose === 44) return btc.p2pkh(publicKey, net).address!
  return btc.p2tr(publicKey.subarray(1), undefined, net).address!
}

describe.each(['bip84.json', 'bip86.json', 'bip49.json', 'bip44.json'])('%s', (file) => {
  const vectors = load(file)
  it('names its source and licence', () => {
    expect(vectors.source).toMatch(/bitcoin\/bips|slips/)
    expect(vectors.license.length).toBeGreaterThan(0)
  })
  const xpub = vectors.accountXpub
  const extendedKey = xpub?.xpub ?? xpub?.zpub
  if (xpub && extendedKey) {
    it(`the published ${xpub.path} account key derives the same leaf keys (CKDpub)`, async () => {
      const rows = vectors.addresses.filter((row) => row.path.startsWith(`${xpub.path}/`))
      expect(rows.length).toBeGreaterThan(0)
      for (const row of rows) {
        const { purpose, change, index } = parsePath(row.path)
        const account = await createAccount({
          keys: keysFor(vectors.mnemonic, 0),
          chain: bip122Chains[chainOf[row.network]]!,
          provider: undefined,
          clock: () => 0,
        })
        const derived = await account.address(purpose, change, index)
        expect(bytesToHex(publicChild(extendedKey, change, index))).toBe(bytesToHex(derived.publicKey))
      }
    })
  }
  it.each(vectors.addresses)('$network $path → $address', async (row) => {
    const { purpose, account: accountIndex, change, index } = parsePath(row.path)
    const chain = bip122Chains[chainOf[row.network]]!
    const account = await createAccount({
      keys: keysFor(vectors.mnemonic, accountIndex),
      chain,
      provider: undefined,
      clock: () => 0,
    })
    const derived = await account.address(purpose, change, index)
    expect(derived.address).toBe(row.address)
    expect(derived.path).toBe(row.path)
    expect(scureAddress(purpose, derived.publicKey, row.network)).toBe(row.address)
    expect(bytesToHex(btc.OutScript.encode(btc.Address(networks[row.network]).decode(row.address)))).toBe(
      bytesToHex(derived.scriptPubKey),
    )
    if (row.publicKey) expect(bytesToHex(derived.publicKey)).toBe(row.publicKey)
    if (row.internalKey) expect(bytesToHex(derived.internalKey!)).toBe(row.internalKey)
    if (row.outputKey) expect(bytesToHex(derived.outputKey!)).toBe(row.outputKey)
    if (row.scriptPubKey) expect(bytesToHex(derived.scriptPubKey)).toBe(row.scriptPubKey)
    // What getAccountAddresses reports: compressed key, or the x-only internal key for P2TR.
    expect(derived.publicKeyHex).toBe(
      purpose === 86 ? bytesToHex(derived.publicKey.subarray(1)) : bytesToHex(derived.publicKey),
    )
    expect(derived.intention).toBe(purpose === 86 ? 'ordinal' : 'payment')
  })
})

describe('hdKeys', () => {
  const mnemonic = load('bip84.json').mnemonic
  const path = { purpose: 84, coinType: 0, account: 0, change: 0, index: 0 } as const

  it('takes a seed as well as a mnemonic, and a passphrase changes every key', async () => {
    const fromSeed = hdKeys({
      seed: hexToBytes(
        '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4',
      ),
    })
    expect(bytesToHex(await fromSeed.publicKey(path))).toBe(
      '0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c',
    )
    const withPassphrase = hdKeys({ mnemonic, passphrase: 'TREZOR' })
    expect(bytesToHex(await withPassphrase.publicKey(path))).not.toBe(
      '0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c',
    )
  })

  it('exposes no secret: only public keys and sign operations', () => {
    const keys = hdKeys({ mnemonic })
    expect(Object.keys(keys).sort()).toEqual(
      ['account', 'kind', 'publicKey', 'signEcdsa', 'signEcdsaRecoverable', 'signTaproot'].sort(),
    )
    const printed = JSON.stringify(keys)
    expect(printed).not.toContain('abandon')
    expect(printed).not.toContain('5eb00bbd')
  })

  it('refuses a bad mnemonic without echoing it, and paths outside its account', async () => {
    expect(() => hdKeys({ mnemonic: 'abandon abandon secretword' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secretword') }),
    )
    expect(() => hdKeys({ mnemonic: 'abandon abandon secretword' })).toThrow(/invalid BIP-39 mnemonic/)
    expect(() => hdKeys({})).toThrow(/exactly one/)
    const keys = hdKeys({ mnemonic, account: 1 })
    expect(() => keys.publicKey(path)).toThrow(/account/)
  })

  it('signs ECDSA with the key at the path and taproot with the BIP-86 tweaked key', async () => {
    const { schnorr, secp256k1 } = await import('@noble/curves/secp256k1.js')
    const keys = hdKeys({ mnemonic })
    const hash = new Uint8Array(32).fill(7)
    const signature = await keys.signEcdsa(path, hash)
    expect(secp256k1.verify(signature, hash, await keys.publicKey(path), { prehash: false })).toBe(true)
    const taprootPath = { ...path, purpose: 86 } as const
    const taproot = await keys.signTaproot(taprootPath, hash)
    // BIP-86 vector: m/86'/0'/0'/0/0 output key.
    const outputKey = hexToBytes('a60869f0dbcf1dc659c9cecbaf8050135ea9e8cdc487053f1dc6880949dc684c')
    expect(schnorr.verify(taproot, hash, outputKey)).toBe(true)
  })
})
