// What a dapp knows about the wallet from the session: the public key and the StateInit. The two must agree,
// and the StateInit's hash is the wallet address (what the official TON Connect verifier checks).

import { fail } from '../result.js'
import { Address, Cell, CellType, contractAddress, loadStateInit } from './tonCore.js'

/** `v5beta`: W5's beta (@ton/ton `WalletContractV5Beta`), which some wallets deployed before the v5R1 release. */
export type TonWalletVersion = 'v4r2' | 'v5beta' | 'v5r1'
export type SessionWallet = {
  address: Address
  version: TonWalletVersion
  /** The 32-bit wallet id (v4R2, v5R1); for W5 beta, whose id is 80 bits, its subwallet number. */
  walletId: number
  seqno: number
  publicKey: Uint8Array
  stateInit: Cell
}

// Hashes of the wallet codes (checked against @ton/ton 16.3's WalletContractV4, V5R1, and the library cell of
// WalletContractV5Beta, in test/verify/tonProof.test.ts).
const codeHashes: Record<string, TonWalletVersion> = {
  feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0: 'v4r2',
  '20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f': 'v5r1',
  e4cf3b2f4c6d6a61ea0f2b5447d266785b26af3637db2deee6bcd1aa826f3412: 'v5beta',
}

/**
 * The hash of the code a StateInit runs: the code cell's own, or, for a library cell (type 2: one tag byte and
 * the 256-bit hash of the code it stands for; how Tonkeeper deploys W5 to save storage), the code it names.
 */
export function codeHashOf(code: Cell): string {
  if (code.isExotic && code.type === CellType.Library && code.bits.length === 8 + 256) {
    return code.beginParse(true).skip(8).loadBuffer(32).toString('hex')
  }
  return code.hash().toString('hex')
}

export function publicKeyBytes(publicKey: unknown): Uint8Array {
  if (typeof publicKey !== 'string' || !/^[0-9a-fA-F]{64}$/.test(publicKey)) {
    return fail('ton_getPublicKey is not 32 bytes of hex')
  }
  return Uint8Array.from(Buffer.from(publicKey, 'hex'))
}

/** Reads the wallet behind `ton_getStateInit` and checks it holds `ton_getPublicKey`. */
export function sessionWallet(stateInitBase64: unknown, publicKey: unknown): SessionWallet {
  if (typeof stateInitBase64 !== 'string') return fail('ton_getStateInit is missing')
  const key = publicKeyBytes(publicKey)
  let stateInit: Cell
  try {
    stateInit = Cell.fromBase64(stateInitBase64)
  } catch {
    return fail('ton_getStateInit is not a BoC')
  }
  const init = loadStateInit(stateInit.beginParse())
  if (!init.code || !init.data) fail('ton_getStateInit has no code or data')
  const version = codeHashes[codeHashOf(init.code)]
  if (version === undefined) fail('ton_getStateInit is not a v4R2, W5 beta or v5R1 wallet')
  const data = init.data.beginParse()
  // Storage: v4R2 seqno:32 wallet_id:32 key; v5R1 is_signature_allowed:1 seqno:32 wallet_id:32 key; W5 beta
  // seqno:33 wallet_id:80 (network id:32, workchain:8, version:8, subwallet:32) key.
  if (version === 'v5r1') data.loadBit()
  const seqno = data.loadUint(version === 'v5beta' ? 33 : 32)
  if (version === 'v5beta') data.skip(48)
  const walletId = data.loadUint(32)
  const storedKey = Uint8Array.from(data.loadBuffer(32))
  if (Buffer.compare(Buffer.from(storedKey), Buffer.from(key)) !== 0) {
    fail('ton_getPublicKey is not the key inside ton_getStateInit')
  }
  return { address: contractAddress(0, init), version, walletId, seqno, publicKey: key, stateInit }
}

export function parseTonAddress(text: unknown, what: string): Address {
  if (typeof text !== 'string') return fail(`${what} is not a string`)
  try {
    return Address.parse(text)
  } catch {
    return fail(`${what} ${text} is not a TON address`)
  }
}

/** `ton_*` params come as `[object]` (the spec) or a bare object (TON Connect SDK, AppKit). */
export function firstParam(params: unknown): Record<string, unknown> {
  const value = Array.isArray(params) ? params[0] : params
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail('request params are not an object')
  return value as Record<string, unknown>
}
