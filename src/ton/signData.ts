import { type Address, beginCell, type Cell } from '@ton/core'
import { sha256 } from '../crypto/sha256.js'

/**
 * TON Connect `signData` (ton-connect/ton-connect requests-responses.md after commit 8853f9d, and the
 * walletkit, Tonkeeper, MyTonWallet and official demo verifier that agree with it). Every integer is
 * big-endian; only ton_proof is little-endian.
 */
export type SignDataPayload =
  | { type: 'text'; text: string }
  | { type: 'binary'; bytes: Uint8Array }
  | { type: 'cell'; schema: string; cell: Cell }

export type SignDataInput = {
  payload: SignDataPayload
  address: Address
  /** The dapp's host, e.g. `app.example.com` (with the port when the origin has one). */
  domain: string
  /** Unix seconds. */
  timestamp: number
}

const utf8 = new TextEncoder()
const prefix = Uint8Array.of(0xff, 0xff, ...utf8.encode('ton-connect/sign-data/'))

const txt = utf8.encode('txt')
const bin = utf8.encode('bin')

/**
 * text/binary: 0xffff ++ "ton-connect/sign-data/" ++ int32 workchain ++ hash[32] ++ uint32 len ++ domain
 * ++ uint64 timestamp ++ ("txt" | "bin") ++ uint32 len ++ data. The signature is Ed25519 over its sha256.
 * Assembled in one buffer: this runs on every signData and the benchmark holds it to a fraction of a signature.
 */
export function signDataMessage(input: SignDataInput & { payload: { type: 'text' | 'binary' } }): Uint8Array {
  const { payload, address, domain, timestamp } = input
  const domainBytes = utf8Bytes(domain)
  const data = payload.type === 'text' ? utf8Bytes(payload.text) : payload.bytes
  const out = new Uint8Array(prefix.length + 4 + 32 + 4 + domainBytes.length + 8 + 3 + 4 + data.length)
  out.set(prefix)
  let at = writeUint32(out, prefix.length, address.workChain >>> 0)
  out.set(address.hash, at)
  at = writeUint32(out, at + 32, domainBytes.length)
  write(out, at, domainBytes)
  at = writeUint32(out, at + domainBytes.length, Math.floor(timestamp / 2 ** 32))
  at = writeUint32(out, at, timestamp >>> 0)
  out.set(payload.type === 'text' ? txt : bin, at)
  at = writeUint32(out, at + 3, data.length)
  write(out, at, data)
  return out
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
  return sha256(signDataMessage({ ...input, payload }))
}

let crcTable: Uint32Array | undefined

/** CRC-32/ISO-HDLC (the zlib one; reflected polynomial 0xEDB88320), unsigned. */
export function crc32(bytes: Uint8Array): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256)
    for (let n = 0; n < 256; n++) {
      let c = n
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
      crcTable[n] = c >>> 0
    }
  }
  let crc = 0xffffffff
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}
