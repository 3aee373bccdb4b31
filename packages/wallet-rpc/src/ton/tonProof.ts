import { sha256 } from '../crypto/sha256.js'
import { ascii, type DomainBinding } from './signData.js'

/**
 * TON Connect `ton_proof` (ton-connect/ton-connect requests-responses.md, "Address proof signature"; docs.ton.org
 * "How to authenticate users with ton_proof"): the one TON Connect layout with little-endian fields.
 *
 * ```
 * message   = "ton-proof-item-v2/" ‖ int32 BE workchain ‖ address hash (32) ‖ uint32 LE domain length ‖ domain
 *             ‖ uint64 LE timestamp ‖ payload
 * signature = Ed25519(sha256(0xffff ‖ "ton-connect" ‖ sha256(message)))
 * ```
 */
export type TonProofInput = DomainBinding & { payload: string }

const messagePrefix = ascii('ton-proof-item-v2/')
const digestPrefix = Uint8Array.of(0xff, 0xff, ...ascii('ton-connect'))

export function tonProofMessage(input: TonProofInput): Uint8Array {
  const encoder = new TextEncoder()
  const domain = encoder.encode(input.domain)
  const payload = encoder.encode(input.payload)
  const out = new Uint8Array(messagePrefix.length + 4 + 32 + 4 + domain.length + 8 + payload.length)
  const view = new DataView(out.buffer)
  let at = 0
  out.set(messagePrefix, at)
  at += messagePrefix.length
  view.setInt32(at, input.address.workChain, false)
  at += 4
  out.set(input.address.hash, at)
  at += 32
  view.setUint32(at, domain.length, true)
  at += 4
  out.set(domain, at)
  at += domain.length
  view.setBigUint64(at, BigInt(input.timestamp), true)
  at += 8
  out.set(payload, at)
  return out
}

/** The 32 bytes the wallet's key signs with Ed25519. */
export function tonProofDigest(input: TonProofInput): Uint8Array {
  return sha256(digestPrefix, sha256(tonProofMessage(input)))
}
