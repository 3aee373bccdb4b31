// TON Connect `ton_proof` (ton-connect/ton-connect requests-responses.md "Address proof signature", the
// checks of the official demo backend ton-connect/demo-dapp-with-backend): the signature by the key inside
// the wallet's StateInit, whose hash is the proven address, for one of the dapp's domains, fresh, over the
// payload the dapp issued. Little-endian fields, unlike signData.
import { ed25519 } from '@noble/curves/ed25519.js'
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import { nobleSha256 } from '../crypto/nobleHashes.js'
import { parseTonAddress, sessionWallet } from './internal/ton.js'
import { type Address, assertBufferGlobal } from './internal/tonCore.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

/** The `ton_proof` item's `proof` as the TON Connect SDK hands it to the dapp. */
export type TonProof = {
  timestamp: number
  domain: { lengthBytes: number; value: string }
  payload: string
  signature: string
}

export type VerifyTonProofOptions = {
  /** The proven address: the connect event's `ton_addr.address` (raw `0:<hex>` or friendly). */
  address: string
  /** `ton_addr.publicKey` (hex), i.e. the session's `ton_getPublicKey`. */
  publicKey: string
  /** `ton_addr.walletStateInit` (base64 BoC): its hash must be `address` and it must hold `publicKey`. */
  stateInit: string
  /** The dapp's own domains (hosts as its manifest or metadata URL gives them); the proof must name one. */
  domains: readonly string[]
  /** The payload the dapp's backend issued for this login. */
  payload: string
  /** Unix seconds; defaults to the system clock. */
  now?: number
  /** Oldest acceptable proof, in seconds before `now` (default 900, as the TON Connect demo backend). */
  maxAgeSeconds?: number
  /** Clock skew tolerated into the future (default 60 s). */
  maxFutureSeconds?: number
}

/** `sha256(0xffff ‖ "ton-connect" ‖ sha256(message))`, what the wallet's key signs. */
export function tonProofDigest(address: Address, proof: Omit<TonProof, 'signature'>): Uint8Array {
  const sha256 = nobleSha256()
  const domain = utf8ToBytes(proof.domain.value)
  const head = new DataView(new ArrayBuffer(4))
  head.setInt32(0, address.workChain, false)
  const length = new DataView(new ArrayBuffer(4))
  length.setUint32(0, proof.domain.lengthBytes, true)
  const stamp = new DataView(new ArrayBuffer(8))
  stamp.setBigUint64(0, BigInt(proof.timestamp), true)
  const message = concatBytes(
    utf8ToBytes('ton-proof-item-v2/'),
    new Uint8Array(head.buffer),
    Uint8Array.from(address.hash),
    new Uint8Array(length.buffer),
    domain,
    new Uint8Array(stamp.buffer),
    utf8ToBytes(proof.payload),
  )
  return sha256(concatBytes(Uint8Array.of(0xff, 0xff), utf8ToBytes('ton-connect'), sha256(message)))
}

/** Checks a `ton_proof` the way a dapp backend must before it trusts the address. Never throws. */
export function verifyTonProof(proof: unknown, options: VerifyTonProofOptions): VerifyResult {
  return guarded(() => {
    assertBufferGlobal()
    if (!isRecord(proof)) fail('proof is not an object')
    if (!isRecord(options) || !Array.isArray(options.domains)) fail('the expected domains are needed')
    const address = parseTonAddress(options.address, 'address')
    const wallet = sessionWallet(options.stateInit, options.publicKey)
    if (!wallet.address.equals(address)) fail('the StateInit is not the proven address')
    const domain = proof.domain
    if (!isRecord(domain) || typeof domain.value !== 'string') fail('proof domain is not { value }')
    if (domain.lengthBytes !== utf8ToBytes(domain.value).length) fail('proof domain length is wrong')
    if (!options.domains.includes(domain.value)) fail(`domain ${domain.value} is not one of the app's`)
    const timestamp = proof.timestamp
    if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0)
      fail('timestamp is not a number')
    const now = options.now ?? Math.floor(Date.now() / 1000)
    if (timestamp < now - (options.maxAgeSeconds ?? 900)) fail(`timestamp ${timestamp} is too old`)
    if (timestamp > now + (options.maxFutureSeconds ?? 60)) fail(`timestamp ${timestamp} is in the future`)
    if (proof.payload !== options.payload) fail('the payload is not the one issued')
    if (typeof proof.signature !== 'string') fail('signature is not a string')
    const signature = Uint8Array.from(Buffer.from(proof.signature, 'base64'))
    if (signature.length !== 64) fail('signature is not 64 bytes of base64')
    const digest = tonProofDigest(address, {
      timestamp,
      domain: { lengthBytes: domain.lengthBytes, value: domain.value },
      payload: options.payload,
    })
    if (!ed25519.verify(signature, digest, wallet.publicKey)) fail('the Ed25519 signature does not verify')
  })
}
