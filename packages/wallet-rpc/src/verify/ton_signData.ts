// TON `ton_signData`: the signature by the session's key over the TON Connect sign-data layout
// (text/binary: 0xffff ‖ "ton-connect/sign-data/" ‖ … with big-endian fields; cell: the 0x75569022 cell with the
// TEP-81 domain), for the expected domain, within a freshness window, over the payload the dapp asked for.
import { ed25519 } from '@noble/curves/ed25519.js'
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import { nobleSha256 } from '../crypto/nobleHashes.js'
import { firstParam, parseTonAddress, publicKeyBytes, sessionWallet } from './internal/ton.js'
import { type Address, assertBufferGlobal, beginCell, Cell } from './internal/tonCore.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type TonSignDataPayload =
  | { type: 'text'; text: string; from?: string }
  | { type: 'binary'; bytes: string; from?: string }
  | { type: 'cell'; schema: string; cell: string; from?: string }

export type VerifyTonSignDataOptions = {
  /** `sessionProperties.ton_getPublicKey` (hex). */
  publicKey: string
  /** `sessionProperties.ton_getStateInit` (base64 BoC): binds the key to the address. */
  stateInit?: string
  /** The dapp's own domain (host, with the port if any), e.g. `app.example.com`. */
  domain: string
  /** Unix seconds; defaults to the system clock. */
  now?: number
  /** Oldest acceptable timestamp, in seconds before `now` (default 900, as the TON Connect demo verifier). */
  maxAgeSeconds?: number
  /** Clock skew tolerated into the future (default 60 s). */
  maxFutureSeconds?: number
}

/** The bytes (text, binary) or cell hash (cell) a TON Connect wallet signs. */
export function tonSignDataDigest(
  payload: TonSignDataPayload,
  address: Address,
  domain: string,
  timestamp: number,
): Uint8Array {
  if (payload.type === 'cell') {
    const cell = beginCell()
      .storeUint(0x75569022, 32)
      .storeUint(crc32(utf8ToBytes(payload.schema)), 32)
      .storeUint(timestamp, 64)
      .storeAddress(address)
      .storeStringRefTail(tep81Domain(domain))
      .storeRef(Cell.fromBase64(payload.cell))
      .endCell()
    return Uint8Array.from(cell.hash())
  }
  const data =
    payload.type === 'text'
      ? utf8ToBytes(payload.text)
      : Uint8Array.from(Buffer.from(payload.bytes, 'base64'))
  const domainBytes = utf8ToBytes(domain)
  const header = new DataView(new ArrayBuffer(4 + 32))
  header.setInt32(0, address.workChain)
  const hash = Uint8Array.from(address.hash)
  const stamp = new DataView(new ArrayBuffer(8))
  stamp.setBigUint64(0, BigInt(timestamp))
  return nobleSha256()(
    concatBytes(
      Uint8Array.of(0xff, 0xff),
      utf8ToBytes('ton-connect/sign-data/'),
      new Uint8Array(header.buffer, 0, 4),
      hash,
      uint32(domainBytes.length),
      domainBytes,
      new Uint8Array(stamp.buffer),
      utf8ToBytes(payload.type === 'text' ? 'txt' : 'bin'),
      uint32(data.length),
      data,
    ),
  )
}

/** Checks a wallet's `ton_signData` answer against the request and the session. Never throws. */
export function verifyTonSignData(
  params: unknown,
  result: unknown,
  options: VerifyTonSignDataOptions,
): VerifyResult {
  return guarded(() => {
    assertBufferGlobal()
    const payload = firstParam(params)
    if (!isRecord(result)) fail('result is not an object')
    if (!isRecord(options) || typeof options.domain !== 'string') fail('the expected domain is needed')
    const key = publicKeyBytes(options.publicKey)
    const address = parseTonAddress(result.address, 'result address')
    // The spec's result names the raw form (`0:<64 hex>`); a friendly address is another wallet's habit.
    if (!/^-?\d+:[0-9a-fA-F]{64}$/.test(String(result.address))) fail('result address is not in raw form')
    if (options.stateInit !== undefined) {
      const wallet = sessionWallet(options.stateInit, options.publicKey)
      if (!wallet.address.equals(address)) fail('the signing address is not the session wallet')
    }
    if (payload.from !== undefined && !parseTonAddress(payload.from, 'from').equals(address)) {
      fail('signed by another address than `from`')
    }
    if (result.domain !== options.domain) fail(`domain ${String(result.domain)} is not ${options.domain}`)
    const timestamp = result.timestamp
    if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp) || timestamp < 0)
      fail('timestamp is not a number')
    const now = options.now ?? Math.floor(Date.now() / 1000)
    if (timestamp < now - (options.maxAgeSeconds ?? 900)) fail(`timestamp ${timestamp} is too old`)
    if (timestamp > now + (options.maxFutureSeconds ?? 60)) fail(`timestamp ${timestamp} is in the future`)
    const signed = checkedPayload(payload, result.payload)
    if (typeof result.signature !== 'string') fail('signature is not a string')
    const signature = Uint8Array.from(Buffer.from(result.signature, 'base64'))
    if (signature.length !== 64) fail('signature is not 64 bytes of base64')
    const digest = tonSignDataDigest(signed, address, options.domain, timestamp)
    if (!ed25519.verify(signature, digest, key)) fail('the Ed25519 signature does not verify')
  })
}

/** The payload the dapp asked for, which the answer must echo. */
function checkedPayload(request: Record<string, unknown>, echoed: unknown): TonSignDataPayload {
  if (!isRecord(echoed)) fail('result has no payload echo')
  if (echoed.type !== request.type) fail('the echoed payload type differs from the request')
  const fields =
    request.type === 'text'
      ? ['text']
      : request.type === 'binary'
        ? ['bytes']
        : request.type === 'cell'
          ? ['schema', 'cell']
          : undefined
  if (fields === undefined) fail(`unknown sign-data type ${String(request.type)}`)
  for (const field of fields) {
    if (typeof request[field] !== 'string') fail(`request ${field} is not a string`)
    if (echoed[field] !== request[field]) fail(`the echoed payload ${field} differs from the request`)
  }
  return request as TonSignDataPayload
}

function uint32(value: number): Uint8Array {
  const out = new DataView(new ArrayBuffer(4))
  out.setUint32(0, value)
  return new Uint8Array(out.buffer)
}

/** TEP-81 DNS wire form: `app.example.com` → `com\0example\0app\0`. */
function tep81Domain(domain: string): string {
  return `${domain.split('.').reverse().join('\0')}\0`
}

const crcTable = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

/** CRC-32/IEEE (reflected 0xEDB88320), as TON Connect hashes the TL-B schema. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8)
  return (crc ^ 0xffffffff) >>> 0
}
