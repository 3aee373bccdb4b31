/**
 * Independent checks of a signMessage answer: nothing here imports src/bip122. The BIP-322 virtual
 * transactions are built with @scure/btc-signer, their sighash comes from btc-signer's BIP-143/BIP-341
 * preimage code, and signatures are verified with @noble/curves; BIP-137 recovers the key with noble.
 */
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js'
import * as btc from '@scure/btc-signer'
import { Verifier } from 'bip322-js'

const tag = (name: string, data: Uint8Array) => {
  const t = sha256(utf8ToBytes(name))
  return sha256(concatBytes(t, t, data))
}
const sha256d = (data: Uint8Array) => sha256(sha256(data))

export function bip322MessageHashIndependent(message: string): string {
  return bytesToHex(tag('BIP0322-signed-message', utf8ToBytes(message)))
}

export function bitcoinMessageHashIndependent(message: string): string {
  const bytes = utf8ToBytes(message)
  return bytesToHex(
    sha256d(
      concatBytes(
        utf8ToBytes('\x18Bitcoin Signed Message:\n'),
        btc.CompactSize.encode(BigInt(bytes.length)),
        bytes,
      ),
    ),
  )
}

/** to_spend built by btc-signer's raw transaction codec; returns its txid (display order) and raw txid bytes. */
export function toSpendIndependent(messageHash: Uint8Array, scriptPubKey: Uint8Array) {
  const raw = btc.RawTx.encode({
    version: 0,
    segwitFlag: false,
    inputs: [
      {
        txid: new Uint8Array(32),
        index: 0xffffffff,
        finalScriptSig: btc.Script.encode(['OP_0', messageHash]),
        sequence: 0,
      },
    ],
    outputs: [{ amount: 0n, script: scriptPubKey }],
    witnesses: [],
    lockTime: 0,
  })
  const internal = sha256d(raw)
  return { internal, txid: bytesToHex(Uint8Array.from(internal).reverse()) }
}

export function toSignIndependent(toSpendTxid: string, scriptPubKey: Uint8Array) {
  const tx = new btc.Transaction({
    version: 0,
    allowUnknownOutputs: true,
    allowUnknownInputs: true,
    disableScriptCheck: true,
  })
  tx.addInput({ txid: toSpendTxid, index: 0, sequence: 0, witnessUtxo: { script: scriptPubKey, amount: 0n } })
  tx.addOutput({ script: btc.Script.encode(['RETURN']), amount: 0n })
  return tx
}

function readWitness(bytes: Uint8Array): Uint8Array[] {
  return btc.RawWitness.decode(bytes)
}

/** Decodes an address with btc-signer and returns its output script. */
function scriptOf(address: string, network: typeof btc.NETWORK) {
  return btc.OutScript.encode(btc.Address(network).decode(address))
}

export const networks = {
  mainnet: btc.NETWORK,
  testnet: btc.TEST_NETWORK,
  regtest: { ...btc.TEST_NETWORK, bech32: 'bcrt' },
}

/**
 * Verifies `signature` (hex, as our signMessage returns it) for `address`/`message` with @noble/curves over
 * the hash the answer reported: BIP-137 by key recovery against the address, BIP-322 by recomputing the
 * virtual transactions' sighash from `messageHash`.
 */
export function nobleVerifies(
  answer: { address: string; signature: string; messageHash: string },
  message: string,
  network: keyof typeof networks = 'mainnet',
): boolean {
  const net = networks[network]
  const signature = hexToBytes(answer.signature)
  const messageHash = hexToBytes(answer.messageHash)
  const script = scriptOf(answer.address, net)
  const decoded = btc.OutScript.decode(script)
  if (signature.length === 65 && signature[0]! >= 27 && signature[0]! <= 42) {
    if (answer.messageHash !== bitcoinMessageHashIndependent(message)) return false
    const header = signature[0]!
    const recovery = (header - 27) & 3
    const sig = secp256k1.Signature.fromBytes(signature.subarray(1), 'compact').addRecoveryBit(recovery)
    const publicKey = sig.recoverPublicKey(messageHash).toBytes(true)
    if (!secp256k1.verify(signature.subarray(1), messageHash, publicKey, { prehash: false })) return false
    const expected =
      header >= 39
        ? btc.p2wpkh(publicKey, net).script
        : header >= 35
          ? btc.p2sh(btc.p2wpkh(publicKey, net), net).script
          : btc.p2pkh(publicKey, net).script
    return bytesToHex(expected) === bytesToHex(script)
  }
  if (answer.messageHash !== bip322MessageHashIndependent(message)) return false
  const toSpend = toSpendIndependent(messageHash, script)
  const toSign = toSignIndependent(toSpend.txid, script)
  const witness = readWitness(signature)
  if (decoded.type === 'tr') {
    if (witness.length !== 1 || witness[0]!.length !== 64) return false
    const sighash = toSign.preimageWitnessV1(0, [script], btc.SigHash.DEFAULT, [0n])
    return schnorr.verify(witness[0]!, sighash, decoded.pubkey)
  }
  if (witness.length !== 2) return false
  const [derWithType, publicKey] = witness as [Uint8Array, Uint8Array]
  if (derWithType.at(-1) !== 1) return false
  const expected =
    decoded.type === 'wpkh'
      ? btc.p2wpkh(publicKey, net).script
      : btc.p2sh(btc.p2wpkh(publicKey, net), net).script
  if (bytesToHex(expected) !== bytesToHex(script)) return false
  const scriptCode = btc.p2pkh(publicKey, net).script
  const sighash = toSign.preimageWitnessV0(0, scriptCode, btc.SigHash.ALL, 0n)
  return secp256k1.verify(derWithType.subarray(0, -1), sighash, publicKey, { prehash: false, format: 'der' })
}

/** bip322-js `Verifier.verifySignature` on the base64 of our hex (what AppKit does). */
export function bip322jsVerifies(
  address: string,
  message: string,
  signatureHex: string,
  strict = false,
): boolean {
  return Verifier.verifySignature(
    address,
    message,
    Buffer.from(signatureHex, 'hex').toString('base64'),
    strict,
  )
}
