// bip122 `signMessage`: BIP-137 ("ecdsa") and BIP-322 ("bip322": simple, full, legacy for P2PKH).
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import { hex } from '@scure/base'
import {
  type BitcoinNetwork,
  checkKeySpend,
  compactSize,
  type DecodedAddress,
  decodeAddress,
  decodeSignatureText,
  decodeWitness,
  equalBytes,
  nestedWitnessScript,
  parseTransaction,
  type RawTransaction,
  scriptMatchesKey,
  serializeWithoutWitness,
  sha256d,
  taggedHash,
} from '../checks/bitcoin.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type SignMessageParams = {
  account: string
  message: string
  address?: string
  protocol?: 'ecdsa' | 'bip322'
}
export type SignMessageResult = { address: string; signature: string; messageHash?: string }

export type VerifySignMessageOptions = {
  /** Refuse addresses of other networks. */
  network?: BitcoinNetwork
  /** Accept a BIP-137 signature whose header names another address type, for segwit and taproot addresses
   *  (what Ledger, Trezor and Electrum produce; bip322-js's default). Off: the header must match the address. */
  allowLooseBip137?: boolean
  /** The account's addresses (from getAccountAddresses): when the request named no address, the signing
   *  address must be one of them (otherwise it must be the account address itself). */
  accountAddresses?: readonly string[]
}

/** BIP-137 / "Bitcoin Signed Message" digest: double SHA-256 of the magic prefix, length and message. */
export function bitcoinMessageHash(message: string): Uint8Array {
  const bytes = utf8ToBytes(message)
  const prefix = utf8ToBytes('\x18Bitcoin Signed Message:\n')
  return sha256d(concatBytes(prefix, compactSize(bytes.length), bytes))
}

/** BIP-322 message hash: the tagged hash `BIP0322-signed-message`. */
export function bip322MessageHash(message: string): Uint8Array {
  return taggedHash('BIP0322-signed-message', utf8ToBytes(message))
}

/** Checks a wallet's `signMessage` answer against the request. Never throws. */
export function verifySignMessage(
  params: SignMessageParams,
  result: unknown,
  options: VerifySignMessageOptions = {},
): VerifyResult {
  return guarded(() => {
    if (!isRecord(params) || typeof params.message !== 'string') fail('request has no message')
    if (!isRecord(result)) fail('result is not an object')
    if (typeof result.address !== 'string') fail('result has no address')
    if (typeof result.signature !== 'string') fail('result has no signature')
    const expectedSigner = params.address ?? params.account
    if (result.address !== expectedSigner) {
      const allowed = params.address === undefined && options.accountAddresses?.includes(result.address)
      if (!allowed) fail(`signed by ${result.address}, expected ${expectedSigner}`)
    }
    const protocol = params.protocol ?? 'ecdsa'
    if (protocol !== 'ecdsa' && protocol !== 'bip322') fail(`unknown protocol ${String(protocol)}`)
    const address = addressOnNetwork(result.address, options.network)
    const loose = options.allowLooseBip137 === true
    // BIP-137 has no taproot header: `protocol` is a preference, so a taproot answer to "ecdsa" is BIP-322.
    const useBip322 = protocol === 'bip322' || address.type === 'p2tr'
    const signed = useBip322
      ? checkBip322(address, params.message, result.signature, loose)
      : checkBip137Text(address, params.message, result.signature, loose)
    if (result.messageHash !== undefined) {
      const expected =
        signed === 'magic' ? bitcoinMessageHash(params.message) : bip322MessageHash(params.message)
      if (
        typeof result.messageHash !== 'string' ||
        result.messageHash.toLowerCase() !== hex.encode(expected)
      ) {
        fail(
          `messageHash is not the ${signed === 'magic' ? 'BIP-137 magic hash' : 'BIP-322 tagged hash'} that was signed`,
        )
      }
    }
  })
}

/** A BIP-137 compact signature (65 bytes, header 27–42) over `message` for `address`. */
export function verifyBip137(
  address: string,
  message: string,
  signature: string,
  options: Pick<VerifySignMessageOptions, 'network' | 'allowLooseBip137'> = {},
): VerifyResult {
  return guarded(() => {
    checkBip137Text(
      addressOnNetwork(address, options.network),
      message,
      signature,
      options.allowLooseBip137 === true,
    )
  })
}

/** Which digest a valid signature signed: the BIP-137 magic hash or the BIP-322 tagged hash. */
type SignedHash = 'magic' | 'tagged'

function checkBip137Text(
  address: DecodedAddress,
  message: string,
  signature: string,
  loose: boolean,
): SignedHash {
  const { prefix, bytes } = decodeSignatureText(signature)
  if (prefix !== undefined) fail(`a ${prefix}-prefixed signature is BIP-322, not BIP-137`)
  checkBip137(address, bitcoinMessageHash(message), bytes, loose)
  return 'magic'
}

/** A BIP-322 signature (simple, full, or legacy for P2PKH), prefixed or not. */
export function verifyBip322(
  address: string,
  message: string,
  signature: string,
  options: Pick<VerifySignMessageOptions, 'network' | 'allowLooseBip137'> = {},
): VerifyResult {
  return guarded(() => {
    checkBip322(
      addressOnNetwork(address, options.network),
      message,
      signature,
      options.allowLooseBip137 === true,
    )
  })
}

function checkBip322(
  address: DecodedAddress,
  message: string,
  signature: string,
  loose: boolean,
): SignedHash {
  const { prefix, bytes } = decodeSignatureText(signature)
  const messageHash = bip322MessageHash(message)
  if (prefix === 'pof') fail('proof-of-funds signatures need the UTXO set and are not verified here')
  if (prefix === 'ful') {
    checkFull(address, messageHash, bytes)
    return 'tagged'
  }
  // Unprefixed: BIP-322 lets verifiers assume "simple"; P2PKH uses the legacy (BIP-137) format.
  if (address.type === 'p2pkh' || (prefix === undefined && looksLikeBip137(bytes))) {
    if (address.type !== 'p2pkh' && !loose) fail('BIP-322 allows the legacy format only for P2PKH addresses')
    checkBip137(address, bitcoinMessageHash(message), bytes, loose)
    return 'magic'
  }
  checkSimple(address, messageHash, decodeWitness(bytes))
  return 'tagged'
}

function addressOnNetwork(address: string, network: BitcoinNetwork | undefined): DecodedAddress {
  const decoded = decodeAddress(address)
  if (network !== undefined && !decoded.networks.includes(network))
    fail(`${address} is not a ${network} address`)
  return decoded
}

const looksLikeBip137 = (bytes: Uint8Array) => bytes.length === 65 && bytes[0]! >= 27 && bytes[0]! <= 42

const headerTypes = [
  { from: 27, type: 'p2pkh', compressed: false },
  { from: 31, type: 'p2pkh', compressed: true },
  { from: 35, type: 'p2sh', compressed: true },
  { from: 39, type: 'p2wpkh', compressed: true },
] as const

function checkBip137(address: DecodedAddress, digest: Uint8Array, bytes: Uint8Array, loose: boolean): void {
  if (bytes.length !== 65) fail(`a BIP-137 signature has 65 bytes, got ${bytes.length}`)
  const header = bytes[0]!
  const kind = headerTypes.find((entry) => header >= entry.from && header < entry.from + 4)
  if (kind === undefined) fail(`BIP-137 header ${header} is out of range`)
  const recovery = header - kind.from
  const r = BigInt(`0x${hex.encode(bytes.slice(1, 33))}`)
  const s = BigInt(`0x${hex.encode(bytes.slice(33, 65))}`)
  let publicKey: Uint8Array
  try {
    publicKey = new secp256k1.Signature(r, s, recovery).recoverPublicKey(digest).toBytes(kind.compressed)
  } catch {
    fail('no public key recovers from this signature')
  }
  if (kind.type === address.type) {
    if (!scriptMatchesKey(address, publicKey)) fail(`the signing key is not the key of ${address.address}`)
    return
  }
  if (!loose) {
    fail(`BIP-137 header ${header} is for ${kind.type} addresses, not ${address.type} (loose mode is off)`)
  }
  if (address.type === 'p2pkh' || !kind.compressed) fail(`header ${header} does not fit ${address.type}`)
  if (!scriptMatchesKey(address, publicKey)) fail(`the signing key is not the key of ${address.address}`)
}

/** BIP-322 `to_spend`: the virtual transaction whose output the signature spends. */
export function bip322ToSpend(messageHash: Uint8Array, challenge: Uint8Array): RawTransaction {
  return {
    version: 0,
    inputs: [
      {
        txid: new Uint8Array(32),
        vout: 0xffffffff,
        scriptSig: concatBytes(Uint8Array.of(0x00, 0x20), messageHash),
        sequence: 0,
        witness: [],
      },
    ],
    outputs: [{ amount: 0n, script: challenge }],
    lockTime: 0,
    hasWitness: false,
  }
}

function bip322ToSign(toSpendId: Uint8Array, witness: Uint8Array[]): RawTransaction {
  return {
    version: 0,
    inputs: [{ txid: toSpendId, vout: 0, scriptSig: new Uint8Array(0), sequence: 0, witness }],
    outputs: [{ amount: 0n, script: Uint8Array.of(0x6a) }],
    lockTime: 0,
    hasWitness: true,
  }
}

function checkSimple(address: DecodedAddress, messageHash: Uint8Array, witness: Uint8Array[]): void {
  const toSpend = bip322ToSpend(messageHash, address.script)
  const toSign = bip322ToSign(sha256d(serializeWithoutWitness(toSpend)), witness)
  if (address.type === 'p2sh') {
    // BIP-322 asks "full" for P2SH-P2WPKH; bip322-js and Xverse send the witness alone. Accept it with the
    // implied redeem script, which the key in the witness must hash to.
    const publicKey = witness[1]
    if (publicKey === undefined) fail('the witness has no public key')
    toSign.inputs[0]!.scriptSig = concatBytes(Uint8Array.of(0x16), nestedWitnessScript(publicKey))
  }
  checkSpend(address, toSpend, toSign)
}

function checkFull(address: DecodedAddress, messageHash: Uint8Array, bytes: Uint8Array): void {
  const toSign = parseTransaction(bytes)
  const toSpend = bip322ToSpend(messageHash, address.script)
  const toSpendId = sha256d(serializeWithoutWitness(toSpend))
  const input = toSign.inputs[0]
  if (toSign.inputs.length !== 1 || input === undefined)
    fail('a full BIP-322 signature has exactly one input')
  if (!equalBytes(input.txid, toSpendId) || input.vout !== 0) fail('to_sign does not spend to_spend:0')
  const output = toSign.outputs[0]
  if (toSign.outputs.length !== 1 || output === undefined || output.amount !== 0n) {
    fail('to_sign must have one zero-value output')
  }
  if (!equalBytes(output.script, Uint8Array.of(0x6a))) fail('to_sign output must be OP_RETURN')
  checkSpend(address, toSpend, toSign)
}

/** Validates the single input of `toSign` for the single-key script types. */
function checkSpend(address: DecodedAddress, toSpend: RawTransaction, toSign: RawTransaction): void {
  const hashType = checkKeySpend(toSign, 0, [toSpend.outputs[0]!], address)
  // BIP-322 signs with ALL, or taproot's DEFAULT.
  if (hashType !== 1 && !(address.type === 'p2tr' && hashType === 0)) {
    fail(`sighash type ${hashType} is not ALL${address.type === 'p2tr' ? ' or DEFAULT' : ''}`)
  }
}
