import { equalBytes } from '@noble/curves/utils.js'
import { sha256 } from '../crypto/sha256.js'
import { reflectedCrc32 } from './crc32.js'
import { type Address, beginCell, type Cell } from './tonCore.js'

/**
 * TON Connect `signData` (ton-connect/ton-connect requests-responses.md after commit 8853f9d, and the
 * walletkit, Tonkeeper, MyTonWallet and official demo verifier that agree with it). Every integer is
 * big-endian; only ton_proof is little-endian.
 */
export type SignDataPayload =
  | { type: 'text'; text: string }
  | { type: 'binary'; bytes: Uint8Array }
  | { type: 'cell'; schema: string; cell: Cell }

/** What TON Connect's two domain-bound signatures (signData, ton_proof) bind: the wallet, the app, the time. */
export type DomainBinding = {
  address: Address
  /** signData: the dapp's host (with the port when the origin has one); ton_proof: the manifest's hostname. */
  domain: string
  /** Unix seconds, when the wallet signs. */
  timestamp: number
}

export type SignDataInput = DomainBinding & { payload: SignDataPayload }

/** ASCII constants, encoded without TextEncoder so that loading a module needs no global. */
export const ascii = (text: string) => Uint8Array.from(text, (char) => char.charCodeAt(0))
const prefix = Uint8Array.of(0xff, 0xff, ...ascii('ton-connect/sign-data/'))
const txt = ascii('txt')
const bin = ascii('bin')
let encoder: InstanceType<typeof TextEncoder> | undefined
const utf8 = {
  encode(text: string) {
    encoder ??= new TextEncoder()
    return encoder.encode(text)
  },
}

type TextOrBinaryInput = SignDataInput & { payload: { type: 'text' | 'binary' } }

/**
 * text/binary: 0xffff ++ "ton-connect/sign-data/" ++ int32 workchain ++ hash[32] ++ uint32 len ++ domain
 * ++ uint64 timestamp ++ ("txt" | "bin") ++ uint32 len ++ data. The signature is Ed25519 over its sha256.
 */
export function signDataMessage(input: TextOrBinaryInput): Uint8Array {
  // A copy the caller owns: the signing path reuses one buffer.
  return messageBytes(input).slice()
}

// signDataDigest hashes the message right away, so usual sizes are assembled in one reused buffer: this runs
// on every signData, which the benchmark holds to a fraction of one signature, and a fresh ArrayBuffer per
// message cost more than writing it.
const scratch = new Uint8Array(1024)

/** The message, in `scratch` (valid until the next call) when it fits. Every byte is written. */
function messageBytes(input: TextOrBinaryInput): Uint8Array {
  const { payload, timestamp } = input
  const start = head(input.address, input.domain)
  const data = payload.type === 'text' ? utf8Bytes(payload.text) : payload.bytes
  const size = start.length + 8 + 3 + 4 + data.length
  const out = size <= scratch.length ? scratch.subarray(0, size) : new Uint8Array(size)
  out.set(start)
  let at = writeUint32(out, start.length, Math.floor(timestamp / 2 ** 32))
  at = writeUint32(out, at, timestamp >>> 0)
  out.set(payload.type === 'text' ? txt : bin, at)
  at = writeUint32(out, at + 3, data.length)
  write(out, at, data)
  return out
}

// Everything before the timestamp depends only on the wallet and the dapp, and a session signs for one of
// each, so the last head is kept. It is matched on the address's bytes, not on the Address object's
// identity: @ton/core freezes the object but not its hash buffer.
let lastHead: { workChain: number; hash: Uint8Array; domain: string; bytes: Uint8Array } | undefined

function head(address: Address, domain: string): Uint8Array {
  if (
    lastHead !== undefined &&
    lastHead.domain === domain &&
    lastHead.workChain === address.workChain &&
    equalBytes(lastHead.hash, address.hash)
  ) {
    return lastHead.bytes
  }
  const domainBytes = utf8.encode(domain)
  const bytes = new Uint8Array(prefix.length + 4 + 32 + 4 + domainBytes.length)
  bytes.set(prefix)
  const at = writeUint32(bytes, prefix.length, address.workChain >>> 0)
  bytes.set(address.hash, at)
  writeUint32(bytes, at + 32, domainBytes.length)
  bytes.set(domainBytes, at + 36)
  lastHead = { workChain: address.workChain, hash: Uint8Array.from(address.hash), domain, bytes }
  return bytes
}

/** Big-endian; returns the next offset. */
function writeUint32(out: Uint8Array, at: number, value: number): number {
  out[at] = value >>> 24
  out[at + 1] = value >>> 16
  out[at + 2] = value >>> 8
  out[at + 3] = value
  return at + 4
}

/** UTF-8 bytes, or the string itself when it is ASCII (its bytes are its char codes; no encoder call). */
function utf8Bytes(text: string): Uint8Array | string {
  for (let index = 0; index < text.length; index++) {
    if (text.charCodeAt(index) > 0x7f) return utf8.encode(text)
  }
  return text
}

function write(out: Uint8Array, at: number, bytes: Uint8Array | string): void {
  if (typeof bytes !== 'string') {
    out.set(bytes, at)
    return
  }
  for (let index = 0; index < bytes.length; index++) out[at + index] = bytes.charCodeAt(index)
}

/** TEP-81 DNS wire form the cell variant uses: `app.example.com` → `com\0example\0app\0`. */
export function tep81Domain(domain: string): string {
  return `${domain.split('.').reverse().join('\0')}\0`
}

/**
 * cell: message#75569022 schema_hash:uint32 timestamp:uint64 userAddress:MsgAddress
 * {n:#} appDomain:^(SnakeData ~n) payload:^Cell = Message; the signature is Ed25519 over the cell hash.
 */
export function signDataCell(input: SignDataInput & { payload: { type: 'cell' } }): Cell {
  const { payload, address, domain, timestamp } = input
  return beginCell()
    .storeUint(0x75569022, 32)
    .storeUint(crc32(utf8.encode(payload.schema)), 32)
    .storeUint(timestamp, 64)
    .storeAddress(address)
    .storeStringRefTail(tep81Domain(domain))
    .storeRef(payload.cell)
    .endCell()
}

/** The 32 bytes the wallet key signs. */
export function signDataDigest(input: SignDataInput): Uint8Array {
  const { payload } = input
  if (payload.type === 'cell') return new Uint8Array(signDataCell({ ...input, payload }).hash())
  return sha256(messageBytes(input as TextOrBinaryInput))
}

/** CRC-32/ISO-HDLC (the zlib one; reflected polynomial 0xEDB88320), unsigned. */
export const crc32 = reflectedCrc32(0xedb88320)
