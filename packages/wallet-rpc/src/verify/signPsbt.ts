// bip122 `signPsbt`: only the requested inputs gained signatures, each valid for its sighash and allowed
// by the request; nothing else in the PSBT changed; with `broadcast`, every input is final and the txid matches.
import { concatBytes } from '@noble/hashes/utils.js'
import { hex } from '@scure/base'
import {
  type BitcoinNetwork,
  type DecodedAddress,
  decodeAddress,
  equalBytes,
  hash160,
  nestedWitnessScript,
  p2pkhScript,
  parsePushes,
  type RawTransaction,
  scriptMatchesKey,
  sighashLegacy,
  sighashTaproot,
  sighashWitnessV0,
  type TxOutput,
  txidOf,
  verifyEcdsaWithHashType,
  verifySchnorr,
} from '../checks/bitcoin.js'
import {
  decodePsbtText,
  entriesOfType,
  fieldOf,
  finalWitnessOf,
  InputKey,
  type ParsedPsbt,
  type PsbtMap,
  parsePsbt,
  prevoutOf,
  sameMap,
} from './internal/psbt.js'
import { fail, guarded, isRecord, type VerifyResult } from './result.js'

export type SignInput = { address: string; index: number; sighashTypes?: number[] }
export type SignPsbtParams = { account: string; psbt: string; signInputs: SignInput[]; broadcast?: boolean }
export type SignPsbtResult = { psbt: string; txid?: string }
export type VerifySignPsbtOptions = { network?: BitcoinNetwork }

/** Fields a signer may add to an input it signs. */
const signerFields = new Set<number>([
  InputKey.partialSig,
  InputKey.bip32Derivation,
  InputKey.tapKeySig,
  InputKey.tapScriptSig,
  InputKey.tapBip32Derivation,
  InputKey.tapInternalKey,
  InputKey.finalScriptSig,
  InputKey.finalScriptWitness,
])

/** Checks a wallet's `signPsbt` answer against the request. Never throws. */
export function verifySignPsbt(
  params: SignPsbtParams,
  result: unknown,
  options: VerifySignPsbtOptions = {},
): VerifyResult {
  return guarded(() => {
    if (!isRecord(params) || !Array.isArray(params.signInputs)) fail('request has no signInputs')
    if (!isRecord(result)) fail('result is not an object')
    const before = parsePsbt(decodePsbtText(params.psbt, 'the requested PSBT'), 'the requested PSBT')
    const after = parsePsbt(decodePsbtText(result.psbt, 'the returned PSBT'), 'the returned PSBT')
    if (!sameMap(before.global, after.global)) fail('the global map (unsigned transaction) changed')
    if (after.outputs.length !== before.outputs.length) fail('the number of outputs changed')
    before.outputs.forEach((map, index) => {
      if (!sameMap(map, after.outputs[index]!)) fail(`output ${index} changed`)
    })
    const requested = new Map<number, SignInput>()
    for (const entry of params.signInputs) {
      if (!isRecord(entry) || !Number.isSafeInteger(entry.index)) fail('a signInputs entry has no index')
      if (entry.index < 0 || entry.index >= before.inputs.length)
        fail(`signInputs index ${entry.index} is out of range`)
      if (requested.has(entry.index)) fail(`signInputs lists index ${entry.index} twice`)
      requested.set(entry.index, entry)
    }
    const prevouts = before.tx.inputs.map((_, index) => prevoutOf(before, index))
    const broadcast = params.broadcast === true
    before.inputs.forEach((map, index) => {
      const entry = requested.get(index)
      const changed = after.inputs[index]!
      if (entry === undefined) checkUntouched(index, map, changed, broadcast)
      else checkSigned(index, entry, before, changed, prevouts, options)
    })
    if (broadcast) {
      if (typeof result.txid !== 'string') fail('broadcast was requested but no txid was returned')
      const finalTx = extractFinal(after)
      const txid = txidOf(finalTx)
      if (result.txid.toLowerCase() !== txid) fail(`txid ${result.txid} is not the transaction's id ${txid}`)
    } else if (result.txid !== undefined) {
      fail('a txid was returned although broadcast was not requested')
    }
  })
}

/** A foreign or unlisted input: unchanged, or (with broadcast) finalized from signatures it already carried. */
function checkUntouched(index: number, before: PsbtMap, after: PsbtMap, broadcast: boolean): void {
  if (sameMap(before, after)) return
  const isFinal = fieldOf(after, InputKey.finalScriptSig) ?? fieldOf(after, InputKey.finalScriptWitness)
  if (!broadcast || isFinal === undefined) {
    const gained = [...after.keys()].some((key) => !before.has(key) && signatureKey(key))
    fail(
      gained
        ? `input ${index} was not requested but gained a signature`
        : `input ${index} was not requested but changed${isFinal ? ' (finalized)' : ''}`,
    )
  }
  // Finalizing for broadcast may only reuse signatures that were already in the request.
  const known = new Set<string>()
  for (const type of [InputKey.partialSig, InputKey.tapKeySig, InputKey.tapScriptSig]) {
    for (const [, value] of entriesOfType(before, type)) known.add(hex.encode(value))
  }
  const finalItems = [
    ...(finalWitnessOf(after) ?? []),
    ...parsePushes(fieldOf(after, InputKey.finalScriptSig) ?? new Uint8Array(0)),
  ]
  const alreadyFinal =
    fieldOf(before, InputKey.finalScriptSig) !== undefined ||
    fieldOf(before, InputKey.finalScriptWitness) !== undefined
  for (const item of finalItems) {
    if (looksLikeSignature(item) && !known.has(hex.encode(item)) && !alreadyFinal) {
      fail(`input ${index} was not requested but its final witness carries a new signature`)
    }
  }
}

const signatureKey = (key: string) => ['02', '13', '14'].includes(key.slice(0, 2))
const looksLikeSignature = (item: Uint8Array) =>
  item.length === 64 || item.length === 65 || (item.length >= 9 && item.length <= 73 && item[0] === 0x30)

function checkSigned(
  index: number,
  entry: SignInput,
  before: ParsedPsbt,
  after: PsbtMap,
  prevouts: (TxOutput | undefined)[],
  options: VerifySignPsbtOptions,
): void {
  const address = decodeAddress(entry.address)
  if (options.network !== undefined && !address.networks.includes(options.network)) {
    fail(`${entry.address} is not a ${options.network} address`)
  }
  const map = before.inputs[index]!
  const prevout = prevouts[index]
  if (prevout === undefined) fail(`input ${index} carries no previous output`)
  if (!equalBytes(prevout.script, address.script)) fail(`input ${index} does not spend ${entry.address}`)
  const isFinal =
    fieldOf(after, InputKey.finalScriptSig) !== undefined ||
    fieldOf(after, InputKey.finalScriptWitness) !== undefined
  // Everything the request carried stays, except what a finalizer clears; the signer adds only signer fields.
  for (const [key, value] of map) {
    const kept = after.get(key)
    if (kept === undefined && isFinal) continue
    if (kept === undefined) fail(`input ${index}: field ${key.slice(0, 2)} was removed`)
    if (hex.encode(kept) !== hex.encode(value)) fail(`input ${index}: field ${key.slice(0, 2)} was changed`)
  }
  for (const key of after.keys()) {
    if (!map.has(key) && !signerFields.has(Number.parseInt(key.slice(0, 2), 16))) {
      fail(`input ${index}: unexpected field ${key.slice(0, 2)} was added`)
    }
  }
  const allowed = entry.sighashTypes ?? [1]
  const declared = fieldOf(map, InputKey.sighashType)
  const declaredType =
    declared === undefined
      ? undefined
      : Number(new DataView(declared.buffer, declared.byteOffset).getUint32(0, true))
  const signatures = collectSignatures(address, map, after)
  if (signatures.length === 0) fail(`requested input ${index} was not signed`)
  for (const signature of signatures) {
    const hashType = signature.hashType
    const allowedHere =
      address.type === 'p2tr' && hashType === 0
        ? allowed.includes(1) || allowed.includes(0)
        : allowed.includes(hashType)
    if (!allowedHere)
      fail(`input ${index} was signed with sighash ${hashType}, not in [${allowed.join(', ')}]`)
    if (declaredType !== undefined && declaredType !== hashType && !(declaredType === 0 && hashType === 0)) {
      fail(`input ${index} was signed with sighash ${hashType} but the PSBT declares ${declaredType}`)
    }
    signature.verify(before.tx, index, prevout, prevouts)
  }
}

type FoundSignature = {
  hashType: number
  verify: (tx: RawTransaction, index: number, prevout: TxOutput, prevouts: (TxOutput | undefined)[]) => void
}

function allPrevouts(prevouts: (TxOutput | undefined)[]): TxOutput[] {
  return prevouts.map(
    (prevout, index) => prevout ?? fail(`taproot signing needs input ${index}'s previous output`),
  )
}

/** The signatures the wallet added (partial or finalized) for the address's key. */
function collectSignatures(address: DecodedAddress, before: PsbtMap, after: PsbtMap): FoundSignature[] {
  const found: FoundSignature[] = []
  const isNew = (key: string, value: Uint8Array) => {
    const old = before.get(key)
    return old === undefined || hex.encode(old) !== hex.encode(value)
  }
  if (address.type === 'p2tr') {
    const schnorrSignatures: { signature: Uint8Array; key: Uint8Array; leafHash?: Uint8Array }[] = []
    const keySig = fieldOf(after, InputKey.tapKeySig)
    if (keySig !== undefined && isNew('13', keySig))
      schnorrSignatures.push({ signature: keySig, key: address.program })
    for (const [keyData, value] of entriesOfType(after, InputKey.tapScriptSig)) {
      if (!isNew(`14${hex.encode(keyData)}`, value)) continue
      schnorrSignatures.push({ signature: value, key: keyData.slice(0, 32), leafHash: keyData.slice(32, 64) })
    }
    const witness = finalWitnessOf(after)
    if (witness !== undefined && witness.length === 1 && schnorrSignatures.length === 0) {
      schnorrSignatures.push({ signature: witness[0]!, key: address.program })
    }
    for (const { signature, key, leafHash } of schnorrSignatures) {
      if (signature.length !== 64 && signature.length !== 65) fail('a Schnorr signature has 64 or 65 bytes')
      const hashType = signature.length === 65 ? signature[64]! : 0
      found.push({
        hashType,
        verify(tx, index, _prevout, prevouts) {
          if (signature.length === 65 && hashType === 0) fail(`input ${index}: explicit DEFAULT sighash byte`)
          const digest = sighashTaproot(tx, index, allPrevouts(prevouts), hashType, leafHash)
          if (!verifySchnorr(signature.slice(0, 64), digest, key)) {
            fail(
              `input ${index}: the Schnorr signature does not verify${leafHash ? '' : ' (is the key tweaked?)'}`,
            )
          }
        },
      })
    }
    return found
  }
  const ecdsa: { signature: Uint8Array; publicKey: Uint8Array }[] = []
  for (const [publicKey, value] of entriesOfType(after, InputKey.partialSig)) {
    if (isNew(`02${hex.encode(publicKey)}`, value)) ecdsa.push({ signature: value, publicKey })
  }
  if (ecdsa.length === 0) {
    const witness = finalWitnessOf(after)
    const scriptSig = fieldOf(after, InputKey.finalScriptSig)
    if (witness !== undefined && witness.length === 2)
      ecdsa.push({ signature: witness[0]!, publicKey: witness[1]! })
    else if (scriptSig !== undefined && address.type === 'p2pkh') {
      const [signature, publicKey] = parsePushes(scriptSig)
      if (signature && publicKey) ecdsa.push({ signature, publicKey })
    }
    if (address.type === 'p2sh' && scriptSig !== undefined && ecdsa[0] !== undefined) {
      const expected = concatBytes(Uint8Array.of(0x16), nestedWitnessScript(ecdsa[0].publicKey))
      if (!equalBytes(scriptSig, expected))
        fail('the final scriptSig is not the P2SH-P2WPKH redeem script push')
    }
  }
  for (const { signature, publicKey } of ecdsa) {
    if (!scriptMatchesKey(address, publicKey))
      fail(`a signature was added for a key that is not ${address.address}'s`)
    const hashType = signature[signature.length - 1] ?? 0
    found.push({
      hashType,
      verify(tx, index, prevout) {
        const digestFor = (type: number) => {
          if (address.type === 'p2pkh') return sighashLegacy(tx, index, prevout.script, type)
          return sighashWitnessV0(tx, index, p2pkhScript(hash160(publicKey)), prevout.amount, type)
        }
        const check = verifyEcdsaWithHashType(signature, digestFor, publicKey)
        if (!check.ok) fail(`input ${index}: ${check.reason ?? 'ECDSA signature does not verify'}`)
      },
    })
  }
  return found
}

/** The network transaction a finalized PSBT extracts to. */
function extractFinal(psbt: ParsedPsbt): RawTransaction {
  const inputs = psbt.tx.inputs.map((input, index) => {
    const map = psbt.inputs[index]!
    const scriptSig = fieldOf(map, InputKey.finalScriptSig)
    const witness = finalWitnessOf(map)
    if (scriptSig === undefined && witness === undefined)
      fail(`broadcast was requested but input ${index} is not final`)
    return { ...input, scriptSig: scriptSig ?? new Uint8Array(0), witness: witness ?? [] }
  })
  return { ...psbt.tx, inputs, hasWitness: inputs.some((input) => input.witness.length > 0) }
}
