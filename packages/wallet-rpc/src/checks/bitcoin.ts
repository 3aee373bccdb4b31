// The independent second implementation of Bitcoin: primitives written from the BIPs, sharing no code with
// the wallet's signer (src/bip122): addresses (BIP-13/-173/-350), hashes, BIP-86 tweak, signature parsing and
// the sighash digests. wallet-rpc/verify checks a wallet's answers with it; bip122 checks its own final bytes
// with it before a broadcast (psbt/verifyFinal.ts), so what the wallet built is checked by code it did not write.
import { concatBytes } from '@noble/hashes/utils.js'
import { base64, bech32, bech32m, createBase58check, hex } from '@scure/base'
import { nobleRipemd160, nobleSha256 } from '../crypto/nobleHashes.js'
import { nobleSecp256k1 } from '../crypto/nobleSecp256k1.js'
import { fail } from './failure.js'

export type BitcoinNetwork = 'mainnet' | 'testnet' | 'regtest'
export type AddressType = 'p2pkh' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr'

export type DecodedAddress = {
  address: string
  /** Networks the address is valid on (testnet and regtest share base58 versions). */
  networks: readonly BitcoinNetwork[]
  type: AddressType
  /** Hash or witness program. */
  program: Uint8Array
  script: Uint8Array
}

// @noble/hashes on purpose, never the wallet's SHA-256 backend; required at the first check in Node (bip122
// imports this file, and its cold start should not load hashes until a check runs).
const sha256 = (data: Uint8Array): Uint8Array => nobleSha256()(data)
const base58check = createBase58check(sha256)
const hrpNetworks: Record<string, BitcoinNetwork> = { bc: 'mainnet', tb: 'testnet', bcrt: 'regtest' }

export const sha256d = (data: Uint8Array): Uint8Array => sha256(sha256(data))
export const hash160 = (data: Uint8Array): Uint8Array => nobleRipemd160()(sha256(data))

export function taggedHash(tag: string, ...parts: Uint8Array[]): Uint8Array {
  const tagHash = sha256(new TextEncoder().encode(tag))
  return sha256(concatBytes(tagHash, tagHash, ...parts))
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!
  return diff === 0
}

export function decodeAddress(address: unknown): DecodedAddress {
  if (typeof address !== 'string' || address.length === 0 || address.length > 100)
    fail('address is not a string')
  const separator = address.lastIndexOf('1')
  const hrp = separator > 0 ? address.slice(0, separator).toLowerCase() : ''
  if (Object.hasOwn(hrpNetworks, hrp)) return decodeSegwit(address, hrpNetworks[hrp]!)
  let payload: Uint8Array
  try {
    payload = base58check.decode(address)
  } catch {
    return fail(`${address} is not a valid Bitcoin address`)
  }
  if (payload.length !== 21) fail(`${address} is not a valid Bitcoin address`)
  const version = payload[0]!
  const program = payload.slice(1)
  if (version === 0x00 || version === 0x6f) {
    return {
      address,
      networks: version === 0 ? ['mainnet'] : ['testnet', 'regtest'],
      type: 'p2pkh',
      program,
      script: p2pkhScript(program),
    }
  }
  if (version === 0x05 || version === 0xc4) {
    return {
      address,
      networks: version === 5 ? ['mainnet'] : ['testnet', 'regtest'],
      type: 'p2sh',
      program,
      script: concatBytes(Uint8Array.of(0xa9, 0x14), program, Uint8Array.of(0x87)),
    }
  }
  return fail(`${address} has an unknown version byte`)
}

function decodeSegwit(address: string, network: BitcoinNetwork): DecodedAddress {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) fail(`${address} mixes case`)
  const lower = address.toLowerCase() as `${string}1${string}`
  let words: number[]
  let variant: 'bech32' | 'bech32m'
  try {
    words = bech32.decode(lower, 90).words
    variant = 'bech32'
  } catch {
    try {
      words = bech32m.decode(lower, 90).words
      variant = 'bech32m'
    } catch {
      return fail(`${address} has an invalid bech32 checksum`)
    }
  }
  const version = words[0]
  if (version === undefined || version > 16) fail(`${address} has no witness version`)
  const program = bech32.fromWords(words.slice(1))
  if ((version === 0) !== (variant === 'bech32'))
    fail(`${address} uses the wrong bech32 variant for its version`)
  const push = Uint8Array.of(version === 0 ? 0 : 0x50 + version, program.length)
  const script = concatBytes(push, program)
  const networks = [network]
  if (version === 0 && program.length === 20) return { address, networks, type: 'p2wpkh', program, script }
  if (version === 0 && program.length === 32) return { address, networks, type: 'p2wsh', program, script }
  if (version === 1 && program.length === 32) return { address, networks, type: 'p2tr', program, script }
  return fail(`${address} is a witness program this verifier does not know`)
}

export function p2pkhScript(hash: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(0x76, 0xa9, 0x14), hash, Uint8Array.of(0x88, 0xac))
}

/** BIP-86: the output key of a key-path-only taproot output for `internalKey` (x-only, 32 bytes). */
export function taprootOutputKey(internalKey: Uint8Array): Uint8Array {
  const { secp256k1 } = nobleSecp256k1()
  const point = secp256k1.Point.fromBytes(concatBytes(Uint8Array.of(2), internalKey))
  const tweak = bytesToNumber(taggedHash('TapTweak', internalKey))
  if (tweak >= secp256k1.Point.CURVE().n) fail('taproot tweak out of range')
  return point.add(secp256k1.Point.BASE.multiply(tweak)).toBytes(true).slice(1)
}

/** The addresses types a compressed public key can stand behind (BIP-86 for taproot). */
export function scriptMatchesKey(address: DecodedAddress, publicKey: Uint8Array): boolean {
  if (address.type === 'p2tr') {
    const internal = publicKey.length === 33 ? publicKey.slice(1) : publicKey
    return internal.length === 32 && equalBytes(taprootOutputKey(internal), address.program)
  }
  if (address.type === 'p2pkh' || address.type === 'p2wpkh')
    return equalBytes(hash160(publicKey), address.program)
  if (address.type === 'p2sh') {
    if (publicKey.length !== 33) return false
    return equalBytes(hash160(nestedWitnessScript(publicKey)), address.program)
  }
  return false
}

/** The P2SH-P2WPKH redeem script `0014<hash160(pubkey)>`. */
export function nestedWitnessScript(publicKey: Uint8Array): Uint8Array {
  return concatBytes(Uint8Array.of(0x00, 0x14), hash160(publicKey))
}

export function bytesToNumber(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${hex.encode(bytes)}`)
}

export function numberToBytesLE(value: number | bigint, length: number): Uint8Array {
  const out = new Uint8Array(length)
  let rest = BigInt(value)
  for (let i = 0; i < length; i++) {
    out[i] = Number(rest & 0xffn)
    rest >>= 8n
  }
  return out
}

export function compactSize(n: number): Uint8Array {
  if (n < 0xfd) return Uint8Array.of(n)
  if (n <= 0xffff) return concatBytes(Uint8Array.of(0xfd), numberToBytesLE(n, 2))
  return concatBytes(Uint8Array.of(0xfe), numberToBytesLE(n, 4))
}

export const varBytes = (data: Uint8Array): Uint8Array => concatBytes(compactSize(data.length), data)

/** Sequential reader over a byte string; every overrun is a verification failure, never a crash. */
export class Reader {
  offset = 0
  constructor(readonly bytes: Uint8Array) {}
  get done(): boolean {
    return this.offset === this.bytes.length
  }
  take(n: number): Uint8Array {
    if (n < 0 || this.offset + n > this.bytes.length) fail('data ends early')
    const out = this.bytes.slice(this.offset, this.offset + n)
    this.offset += n
    return out
  }
  byte(): number {
    return this.take(1)[0]!
  }
  uint(n: 2 | 4 | 8): bigint {
    const bytes = this.take(n)
    let value = 0n
    for (let i = n - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!)
    return value
  }
  u32(): number {
    return Number(this.uint(4))
  }
  compactSize(): number {
    const first = this.byte()
    if (first < 0xfd) return first
    const value = Number(this.uint(first === 0xfd ? 2 : first === 0xfe ? 4 : 8))
    if (value > 0x2000000) fail('length too large')
    return value
  }
  varBytes(): Uint8Array {
    return this.take(this.compactSize())
  }
}

/** A witness stack as BIP-322 "simple" serializes it: count, then each item length-prefixed. */
export function decodeWitness(bytes: Uint8Array): Uint8Array[] {
  const reader = new Reader(bytes)
  const count = reader.compactSize()
  const items: Uint8Array[] = []
  for (let i = 0; i < count; i++) items.push(reader.varBytes())
  if (!reader.done) fail('trailing bytes after the witness stack')
  return items
}

export type TxInput = {
  txid: Uint8Array
  vout: number
  scriptSig: Uint8Array
  sequence: number
  witness: Uint8Array[]
}
export type TxOutput = { amount: bigint; script: Uint8Array }
export type RawTransaction = {
  version: number
  inputs: TxInput[]
  outputs: TxOutput[]
  lockTime: number
  hasWitness: boolean
}

/** Parses a serialized transaction (BIP-144 witness form or legacy form). */
export function parseTransaction(bytes: Uint8Array): RawTransaction {
  const reader = new Reader(bytes)
  const version = reader.u32() | 0
  let inputCount = reader.compactSize()
  let hasWitness = false
  if (inputCount === 0) {
    if (reader.byte() !== 1) fail('bad segwit flag')
    hasWitness = true
    inputCount = reader.compactSize()
  }
  const inputs: TxInput[] = []
  for (let i = 0; i < inputCount; i++) {
    inputs.push({
      txid: reader.take(32),
      vout: reader.u32(),
      scriptSig: reader.varBytes(),
      sequence: reader.u32(),
      witness: [],
    })
  }
  const outputCount = reader.compactSize()
  const outputs: TxOutput[] = []
  for (let i = 0; i < outputCount; i++) outputs.push({ amount: reader.uint(8), script: reader.varBytes() })
  if (hasWitness) {
    for (const input of inputs) {
      const count = reader.compactSize()
      for (let i = 0; i < count; i++) input.witness.push(reader.varBytes())
    }
  }
  const lockTime = reader.u32()
  if (!reader.done) fail('trailing bytes after the transaction')
  return { version, inputs, outputs, lockTime, hasWitness }
}

/** The serialization without witnesses, whose double SHA-256 is the txid. */
export function serializeWithoutWitness(tx: RawTransaction): Uint8Array {
  const parts: Uint8Array[] = [numberToBytesLE(tx.version >>> 0, 4), compactSize(tx.inputs.length)]
  for (const input of tx.inputs) {
    parts.push(
      input.txid,
      numberToBytesLE(input.vout, 4),
      varBytes(input.scriptSig),
      numberToBytesLE(input.sequence, 4),
    )
  }
  parts.push(compactSize(tx.outputs.length))
  for (const output of tx.outputs) parts.push(numberToBytesLE(output.amount, 8), varBytes(output.script))
  parts.push(numberToBytesLE(tx.lockTime, 4))
  return concatBytes(...parts)
}

/** Display txid: double SHA-256 of the witness-less serialization, byte-reversed, hex. */
export function txidOf(tx: RawTransaction): string {
  return hex.encode(sha256d(serializeWithoutWitness(tx)).reverse())
}

const SIGHASH_ALL = 1
const SIGHASH_NONE = 2
const SIGHASH_SINGLE = 3
const SIGHASH_ANYONECANPAY = 0x80

const outpoint = (input: TxInput) => concatBytes(input.txid, numberToBytesLE(input.vout, 4))
const serializeOutput = (output: TxOutput) =>
  concatBytes(numberToBytesLE(output.amount, 8), varBytes(output.script))

/** BIP-143 digest for input `index` spending `amount` with `scriptCode`. */
export function sighashWitnessV0(
  tx: RawTransaction,
  index: number,
  scriptCode: Uint8Array,
  amount: bigint,
  hashType: number,
): Uint8Array {
  const base = hashType & 0x1f
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0
  const zero: Uint8Array = new Uint8Array(32)
  const input = tx.inputs[index]
  if (input === undefined) return fail(`input ${index} does not exist`)
  const hashPrevouts = anyoneCanPay ? zero : sha256d(concatBytes(...tx.inputs.map(outpoint)))
  const hashSequence =
    anyoneCanPay || base === SIGHASH_SINGLE || base === SIGHASH_NONE
      ? zero
      : sha256d(concatBytes(...tx.inputs.map((i) => numberToBytesLE(i.sequence, 4))))
  let hashOutputs = zero
  if (base !== SIGHASH_SINGLE && base !== SIGHASH_NONE) {
    hashOutputs = sha256d(concatBytes(...tx.outputs.map(serializeOutput)))
  } else if (base === SIGHASH_SINGLE && index < tx.outputs.length) {
    hashOutputs = sha256d(serializeOutput(tx.outputs[index]!))
  }
  return sha256d(
    concatBytes(
      numberToBytesLE(tx.version >>> 0, 4),
      hashPrevouts,
      hashSequence,
      outpoint(input),
      varBytes(scriptCode),
      numberToBytesLE(amount, 8),
      numberToBytesLE(input.sequence, 4),
      hashOutputs,
      numberToBytesLE(tx.lockTime, 4),
      numberToBytesLE(hashType, 4),
    ),
  )
}

/** Legacy (pre-segwit) digest; SINGLE without a matching output is refused, not signed as ONE. */
export function sighashLegacy(
  tx: RawTransaction,
  index: number,
  scriptCode: Uint8Array,
  hashType: number,
): Uint8Array {
  const base = hashType & 0x1f
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0
  if (base === SIGHASH_SINGLE && index >= tx.outputs.length) fail('SIGHASH_SINGLE without a matching output')
  let inputs = tx.inputs.map((input, i) => ({
    ...input,
    scriptSig: i === index ? scriptCode : new Uint8Array(0),
    sequence: i !== index && (base === SIGHASH_NONE || base === SIGHASH_SINGLE) ? 0 : input.sequence,
  }))
  if (anyoneCanPay) inputs = [inputs[index]!]
  let outputs = tx.outputs
  if (base === SIGHASH_NONE) outputs = []
  else if (base === SIGHASH_SINGLE) {
    outputs = tx.outputs
      .slice(0, index + 1)
      .map((output, i) => (i === index ? output : { amount: 0xffffffffffffffffn, script: new Uint8Array(0) }))
  }
  const stripped = serializeWithoutWitness({ ...tx, inputs, outputs })
  return sha256d(concatBytes(stripped, numberToBytesLE(hashType, 4)))
}

/** BIP-341 key-path (or, with `leafHash`, BIP-342 script-path) digest. */
export function sighashTaproot(
  tx: RawTransaction,
  index: number,
  prevouts: readonly TxOutput[],
  hashType: number,
  leafHash?: Uint8Array,
): Uint8Array {
  const validTypes = [0, 1, 2, 3, 0x81, 0x82, 0x83]
  if (!validTypes.includes(hashType)) fail(`taproot sighash type ${hashType} is not defined`)
  const outputType = hashType === 0 ? SIGHASH_ALL : hashType & 3
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0
  const input = tx.inputs[index]
  if (input === undefined) return fail(`input ${index} does not exist`)
  if (prevouts.length !== tx.inputs.length) fail('taproot needs every input’s previous output')
  const parts: Uint8Array[] = [
    Uint8Array.of(0, hashType),
    numberToBytesLE(tx.version >>> 0, 4),
    numberToBytesLE(tx.lockTime, 4),
  ]
  if (!anyoneCanPay) {
    parts.push(
      sha256(concatBytes(...tx.inputs.map(outpoint))),
      sha256(concatBytes(...prevouts.map((p) => numberToBytesLE(p.amount, 8)))),
      sha256(concatBytes(...prevouts.map((p) => varBytes(p.script)))),
      sha256(concatBytes(...tx.inputs.map((i) => numberToBytesLE(i.sequence, 4)))),
    )
  }
  if (outputType !== SIGHASH_NONE && outputType !== SIGHASH_SINGLE) {
    parts.push(sha256(concatBytes(...tx.outputs.map(serializeOutput))))
  }
  parts.push(Uint8Array.of(leafHash ? 2 : 0))
  if (anyoneCanPay) {
    const prevout = prevouts[index]!
    parts.push(
      outpoint(input),
      numberToBytesLE(prevout.amount, 8),
      varBytes(prevout.script),
      numberToBytesLE(input.sequence, 4),
    )
  } else {
    parts.push(numberToBytesLE(index, 4))
  }
  if (outputType === SIGHASH_SINGLE) {
    const output = tx.outputs[index]
    if (output === undefined) fail('SIGHASH_SINGLE without a matching output')
    parts.push(sha256(serializeOutput(output)))
  }
  if (leafHash) parts.push(leafHash, Uint8Array.of(0), numberToBytesLE(0xffffffff, 4))
  return taggedHash('TapSighash', ...parts)
}

/** A DER ECDSA signature with its trailing sighash byte, checked strictly (BIP-66) and for low S. */
export function verifyEcdsaWithHashType(
  signatureWithType: Uint8Array,
  digestFor: (hashType: number) => Uint8Array,
  publicKey: Uint8Array,
): { ok: boolean; hashType: number; reason?: string } {
  if (signatureWithType.length < 9) return { ok: false, hashType: 0, reason: 'signature too short' }
  const hashType = signatureWithType[signatureWithType.length - 1]!
  const der = signatureWithType.slice(0, -1)
  try {
    const ok = nobleSecp256k1().secp256k1.verify(der, digestFor(hashType), publicKey, {
      prehash: false,
      format: 'der',
      lowS: true,
    })
    return ok ? { ok, hashType } : { ok, hashType, reason: 'ECDSA signature does not verify' }
  } catch (error) {
    return { ok: false, hashType, reason: error instanceof Error ? error.message : 'bad signature' }
  }
}

export function verifySchnorr(signature: Uint8Array, digest: Uint8Array, xOnlyKey: Uint8Array): boolean {
  try {
    return schnorrVerify(signature, digest, xOnlyKey)
  } catch {
    return false
  }
}

const schnorrVerify = (signature: Uint8Array, digest: Uint8Array, key: Uint8Array) =>
  nobleSecp256k1().schnorr.verify(signature, digest, key)

/** Signature given as hex (WalletConnect), base64, or BIP-322's prefixed base64 (`smp`, `ful`, `pof`). */
export function decodeSignatureText(text: unknown): {
  prefix: 'smp' | 'ful' | 'pof' | undefined
  bytes: Uint8Array
} {
  if (typeof text !== 'string' || text.length === 0) return fail('signature is empty')
  if (text.length > 20_000) return fail('signature is too long')
  const prefix = /^(smp|ful|pof)/.exec(text)?.[1] as 'smp' | 'ful' | 'pof' | undefined
  if (prefix !== undefined) {
    const rest = text.slice(3)
    try {
      return { prefix, bytes: base64.decode(rest) }
    } catch {
      return fail(`signature after the ${prefix} prefix is not base64`)
    }
  }
  if (/^([0-9a-fA-F]{2})+$/.test(text)) return { prefix: undefined, bytes: hex.decode(text.toLowerCase()) }
  try {
    return { prefix: undefined, bytes: base64.decode(text) }
  } catch {
    return fail('signature is neither hex nor base64')
  }
}

/** The single-key output types, read back from a scriptPubKey. */
export function classifyScript(script: Uint8Array): Omit<DecodedAddress, 'address' | 'networks'> | undefined {
  const h = hex.encode(script)
  if (script.length === 25 && h.startsWith('76a914') && h.endsWith('88ac')) {
    return { type: 'p2pkh', program: script.slice(3, 23), script }
  }
  if (script.length === 23 && h.startsWith('a914') && h.endsWith('87')) {
    return { type: 'p2sh', program: script.slice(2, 22), script }
  }
  if (script.length === 22 && h.startsWith('0014'))
    return { type: 'p2wpkh', program: script.slice(2), script }
  if (script.length === 34 && h.startsWith('0020')) return { type: 'p2wsh', program: script.slice(2), script }
  if (script.length === 34 && h.startsWith('5120')) return { type: 'p2tr', program: script.slice(2), script }
  return undefined
}

/** Data pushes of a push-only script (what a P2PKH scriptSig is). */
export function parsePushes(script: Uint8Array): Uint8Array[] {
  const items: Uint8Array[] = []
  let offset = 0
  while (offset < script.length) {
    const opcode = script[offset++]!
    let length: number
    if (opcode >= 1 && opcode <= 75) length = opcode
    else if (opcode === 0x4c) length = script[offset++] ?? fail('truncated push')
    else if (opcode === 0x4d) {
      length =
        (script[offset] ?? fail('truncated push')) | ((script[offset + 1] ?? fail('truncated push')) << 8)
      offset += 2
    } else return fail('scriptSig is not push-only')
    if (offset + length > script.length) fail('truncated push')
    items.push(script.slice(offset, offset + length))
    offset += length
  }
  return items
}

/**
 * Input `index` of `tx` must spend `prevouts[index]`, the output of `spent` (P2TR key path, P2WPKH,
 * P2SH-P2WPKH or P2PKH), with exactly that template's witness or scriptSig and one valid signature by the
 * key the script commits to. Fails with the reason; returns the signature's sighash type.
 */
export function checkKeySpend(
  tx: RawTransaction,
  index: number,
  prevouts: TxOutput[],
  spent: Pick<DecodedAddress, 'type' | 'program' | 'script'>,
): number {
  const input = tx.inputs[index]!
  const prevout = prevouts[index]!
  const at = `input ${index}`
  if (spent.type === 'p2tr') {
    if (input.witness.length !== 1) fail(`${at}: a taproot key-path witness has one item`)
    const signature = input.witness[0]!
    if (signature.length !== 64 && signature.length !== 65)
      fail(`${at}: a Schnorr signature has 64 or 65 bytes`)
    const hashType = signature.length === 65 ? signature[64]! : 0
    if (signature.length === 65 && hashType === 0) fail(`${at}: an explicit DEFAULT sighash byte is invalid`)
    const digest = sighashTaproot(tx, index, prevouts, hashType)
    if (!verifySchnorr(signature.slice(0, 64), digest, spent.program)) {
      fail(`${at}: the Schnorr signature does not verify for the output key (is the key tweaked?)`)
    }
    return hashType
  }
  let signature: Uint8Array
  let publicKey: Uint8Array
  let digestFor: (hashType: number) => Uint8Array
  if (spent.type === 'p2wpkh' || spent.type === 'p2sh') {
    if (input.witness.length !== 2) fail(`${at}: a P2WPKH witness has two items`)
    ;[signature, publicKey] = input.witness as [Uint8Array, Uint8Array]
    if (publicKey.length !== 33) fail(`${at}: segwit needs a compressed public key`)
    if (spent.type === 'p2wpkh') {
      if (input.scriptSig.length !== 0) fail(`${at}: a P2WPKH spend has an empty scriptSig`)
      if (!equalBytes(hash160(publicKey), spent.program))
        fail(`${at}: the witness key is not the script's key`)
    } else {
      const redeem = nestedWitnessScript(publicKey)
      if (!equalBytes(input.scriptSig, concatBytes(Uint8Array.of(0x16), redeem))) {
        fail(`${at}: the scriptSig is not the P2SH-P2WPKH redeem script push`)
      }
      if (!equalBytes(hash160(redeem), spent.program)) fail(`${at}: the witness key is not the script's key`)
    }
    const scriptCode = p2pkhScript(hash160(publicKey))
    digestFor = (hashType) => sighashWitnessV0(tx, index, scriptCode, prevout.amount, hashType)
  } else if (spent.type === 'p2pkh') {
    const items = parsePushes(input.scriptSig)
    if (items.length !== 2) fail(`${at}: a P2PKH scriptSig pushes a signature and a key`)
    ;[signature, publicKey] = items as [Uint8Array, Uint8Array]
    if (!equalBytes(hash160(publicKey), spent.program))
      fail(`${at}: the scriptSig key is not the script's key`)
    digestFor = (hashType) => sighashLegacy(tx, index, spent.script, hashType)
  } else {
    return fail(`${at}: ${spent.type} spends are not supported by this verifier`)
  }
  const check = verifyEcdsaWithHashType(signature, digestFor, publicKey)
  if (!check.ok) fail(`${at}: ${check.reason ?? 'ECDSA signature does not verify'}`)
  return check.hashType
}
