import { sha256 } from '@noble/hashes/sha2.js'
import { type Address, beginCell, type Cell } from '@ton/core'
import { concatBytes } from './bytes.js'

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

function uint32(value: number): Uint8Array {
  const out = new Uint8Array(4)
  new DataView(out.buffer).setUint32(0, value)
  return out
}

function uint64(value: number): Uint8Array {
  const out = new Uint8Array(8)
  new DataView(out.buffer).setBigUint64(0, BigInt(value))
  return out
}

/**
 * text/binary: 0xffff ++ "ton-connect/sign-data/" ++ int32 workchain ++ hash[32] ++ uint32 len ++ domain
 * ++ uint64 timestamp ++ ("txt" | "bin") ++ uint32 len ++ data. The signature is Ed25519 over its sha256.
 */
export function signDataMessage(input: SignDataInput & { payload: { type: 'text' | 'binary' } }): Uint8Array {
  const { payload, address, domain, timestamp } = input
  const workchain = new Uint8Array(4)
  new DataView(workchain.buffer).setInt32(0, address.workChain)
  const domainBytes = utf8.encode(domain)
  const data = payload.type === 'text' ? utf8.encode(payload.text) : payload.bytes
  return concatBytes(
    prefix,
    workchain,
    address.hash,
    uint32(domainBytes.length),
    domainBytes,
    uint64(timestamp),
    utf8.encode(payload.type === 'text' ? 'txt' : 'bin'),
    uint32(data.length),
    data,
  )
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
