import { address as bitcoinAddress } from 'bitcoinjs-lib'
import { InvalidParamsError, PolicyRefusedError, UnauthorizedError } from '../../core/errors.js'
import { group, item, type ReviewItem, type ReviewWarning } from '../../core/review.js'
import { timeSlicer } from '../../core/yielding.js'
import { formatFeeRate, formatSats, sighashNames } from '../format.js'
import type { ResolvedPolicy } from '../policy.js'
import { verifiedPreviousOutputs } from '../providers/previousOutputs.js'
import { equalBytes, toHex } from '../transaction/bytes.js'
import { dustLimit, scriptKind } from '../transaction/scripts.js'
import { knownSighashTypes, SIGHASH_ALL, SIGHASH_DEFAULT } from '../transaction/sighash.js'
import type { InputToSign } from '../transaction/sign.js'
import { estimateVsize } from '../transaction/size.js'
import { hashToTxid } from '../transaction/transaction.js'
import type { Account, AccountAddress, AddressType, ChainProvider } from '../types.js'
import { type DecodedPsbt, isFinalized, type PsbtInput } from './decode.js'

/**
 * signPsbt's checks (research/bitcoin.md §5), run in `plan`, before approval and without keys:
 * which inputs we sign and with which hash type, whether each listed input really is ours, whether the
 * amounts it claims are true, what the fee is, and what the user is shown.
 */

export type SignRequest = { address: string; index: number; sighashTypes?: number[] | undefined }

export type PsbtAnalysis = {
  toSign: InputToSign[]
  /** BIP-86 internal keys to add (our own key-path outputs that lack `tapInternalKey`). */
  addTapInternalKey: { index: number; key: Uint8Array }[]
  /** P2SH-P2WPKH redeem scripts to add (finalizers need them). */
  addRedeemScript: { index: number; script: Uint8Array }[]
  fee: bigint | undefined
  vsize: number
  items: ReviewItem[]
  warnings: ReviewWarning[]
}

export async function analyzePsbt(options: {
  decoded: DecodedPsbt
  account: Account
  signInputs: readonly SignRequest[]
  provider: ChainProvider | undefined
  policy: ResolvedPolicy
  broadcast: boolean
}): Promise<PsbtAnalysis> {
  const { decoded, account, signInputs, provider, policy, broadcast } = options
  const { tx, prevouts, psbt } = decoded
  const inputCount = tx.inputs.length
  const warnings: ReviewWarning[] = []
  const warn = (warning: ReviewWarning) => {
    if (!warnings.some((known) => known.code === warning.code)) warnings.push(warning)
  }

  // ---- which inputs, which keys -------------------------------------------------------------------
  if (signInputs.length === 0)
    throw new InvalidParamsError('signInputs must list at least one input', { path: 'signInputs' })
  const listed = new Map<number, { request: SignRequest; position: number }>()
  for (const [position, request] of signInputs.entries()) {
    const path = `signInputs.${position}.index`
    if (request.index >= inputCount)
      throw new InvalidParamsError(`input ${request.index} does not exist (${inputCount} inputs)`, { path })
    if (listed.has(request.index))
      throw new InvalidParamsError(`input ${request.index} is listed twice`, { path })
    listed.set(request.index, { request, position })
  }

  const toSign: InputToSign[] = []
  const addTapInternalKey: PsbtAnalysis['addTapInternalKey'] = []
  const addRedeemScript: PsbtAnalysis['addRedeemScript'] = []
  const ownerByAddress = new Map<string, AccountAddress>()

  // Thousands of inputs: the loops below give the event loop a turn every few ms (core/yielding.ts).
  const pause = timeSlicer()
  for (const [index, { request, position }] of [...listed.entries()].sort((a, b) => a[0] - b[0])) {
    await pause()
    const path = `signInputs.${position}`
    let owner = ownerByAddress.get(request.address)
    if (!owner) {
      owner = await account.findAddress(request.address)
      // Never sign for an address this account does not own, whatever the PSBT's derivation fields say.
      if (!owner) throw new UnauthorizedError(request.address)
      ownerByAddress.set(request.address, owner)
    }
    const input = psbt.data.inputs[index]!
    if (isFinalized(input)) throw new InvalidParamsError(`input ${index} is already finalized`, { path })
    const prevout = prevouts[index]
    if (!prevout)
      throw new InvalidParamsError(`input ${index} has neither witnessUtxo nor nonWitnessUtxo`, { path })
    // The spent script must be the address's script from our own derivation.
    if (!equalBytes(prevout.script, owner.scriptPubKey)) {
      throw new InvalidParamsError(`input ${index} does not spend ${request.address}`, {
        path: `${path}.address`,
      })
    }
    checkInputFields(index, input, owner, decoded.prevoutSources[index], path)
    const hashType = chooseSighash(index, input, owner.addressType, request, tx.outputs.length, path, warn)
    if (owner.addressType === 'p2tr' && input.tapInternalKey === undefined) {
      addTapInternalKey.push({ index, key: owner.internalKey! })
    }
    if (owner.addressType === 'p2sh-p2wpkh' && input.redeemScript === undefined) {
      addRedeemScript.push({ index, script: owner.redeemScript! })
    }
    toSign.push({ index, owner, hashType })
  }

  // A taproot signature commits to every input's amount and script, so all of them must be known.
  if (toSign.some((input) => input.owner.addressType === 'p2tr')) {
    const missing = prevouts.indexOf(undefined)
    if (missing !== -1) {
      throw new InvalidParamsError(
        `input ${missing} has no UTXO data; a taproot signature needs every input's`,
        { path: 'psbt' },
      )
    }
  }

  const toSignByIndex = new Map(toSign.map((input) => [input.index, input]))

  // ---- amounts: the BIP-143 witnessUtxo lie (CVE-2020-14199 class) --------------------------------
  await verifyAmounts(decoded, toSign, provider)

  // ---- every other input: ours but not listed, or foreign ----------------------------------------
  const inputItems: ReviewItem[] = []
  let knownIn = 0n
  let ownIn = 0n
  let allValuesKnown = true
  const inputTypes: AddressType[] = []
  for (let index = 0; index < inputCount; index++) {
    await pause()
    const prevout = prevouts[index]
    const entry = toSignByIndex.get(index)
    const own = entry?.owner ?? (prevout ? await account.findScript(prevout.script) : undefined)
    if (prevout) knownIn += prevout.value
    else allValuesKnown = false
    if (own && prevout) ownIn += prevout.value
    inputTypes.push(own?.addressType ?? typeOfScript(prevout?.script))
    const outpoint = `${hashToTxid(tx.inputs[index]!.txid)}:${tx.inputs[index]!.vout}`
    const value = prevout ? formatSats(prevout.value) : 'value unknown'
    const label = `input ${index}`
    if (entry) {
      inputItems.push(
        item(
          label,
          `yours, signing with ${sighashNames[entry.hashType]}: ${own!.address}, ${value} (${outpoint})`,
        ),
      )
    } else if (own) {
      inputItems.push(
        item(label, `yours, not signed by this request: ${own.address}, ${value} (${outpoint})`),
      )
    } else {
      inputItems.push(
        item(label, `not yours: ${describeScript(prevout?.script, account)}, ${value} (${outpoint})`),
      )
    }
    if (
      broadcast &&
      !entry &&
      !isFinalized(psbt.data.inputs[index]!) &&
      !hasSignature(psbt.data.inputs[index]!)
    ) {
      throw new InvalidParamsError(
        `cannot broadcast: input ${index} is neither signed nor listed for us to sign`,
        { path: 'psbt' },
      )
    }
  }

  // ---- outputs --------------------------------------------------------------------------------------
  const outputItems: ReviewItem[] = []
  let totalOut = 0n
  let ownOut = 0n
  for (const [index, output] of tx.outputs.entries()) {
    await pause()
    totalOut += output.value
    const label = `output ${index}`
    if (scriptKind(output.script) === 'op_return') {
      outputItems.push(
        item(label, `OP_RETURN data ${toHex(output.script.subarray(1))}, ${formatSats(output.value)}`),
      )
      continue
    }
    if (output.value < dustLimit(output.script)) {
      warn({
        code: 'psbt.dust_output',
        severity: 'caution',
        message: `Output ${index} is below the dust limit; nodes will not relay this transaction as it is.`,
      })
    }
    const own = await account.findScript(output.script)
    if (own) {
      ownOut += output.value
      const role = own.change === 1 ? 'yours (change)' : 'yours (receive)'
      outputItems.push(item(label, `${role}: ${own.address}, ${formatSats(output.value)}`))
    } else {
      outputItems.push(
        item(label, `external: ${describeScript(output.script, account)}, ${formatSats(output.value)}`),
      )
    }
  }

  // ---- fee ----------------------------------------------------------------------------------------
  const vsize = estimateVsize(
    inputTypes,
    tx.outputs.map((output) => output.script.length),
  )
  let fee: bigint | undefined
  const summary: ReviewItem[] = []
  if (allValuesKnown) {
    fee = knownIn - totalOut
    if (fee < 0n) {
      throw new InvalidParamsError(`outputs (${totalOut} sat) exceed inputs (${knownIn} sat)`, {
        path: 'psbt',
      })
    }
    const rate = Number(fee) / vsize
    if (rate > policy.maxFeeRate) {
      throw new PolicyRefusedError(
        `fee rate ${rate.toFixed(1)} sat/vB exceeds the wallet's cap of ${policy.maxFeeRate}`,
        {
          rule: 'psbt.fee_rate_cap',
        },
      )
    }
    if (policy.maxFeeSats !== undefined && fee > BigInt(policy.maxFeeSats)) {
      throw new PolicyRefusedError(`fee ${fee} sat exceeds the wallet's cap of ${policy.maxFeeSats} sat`, {
        rule: 'psbt.fee_cap',
      })
    }
    summary.push(item('Fee', `${formatSats(fee)}, about ${formatFeeRate(fee, vsize)}`))
    if (fee * 2n > totalOut) {
      warn({
        code: 'psbt.fee_high',
        severity: 'caution',
        message: 'The fee is more than half of what the outputs receive.',
      })
    }
  } else {
    summary.push(item('Fee', 'unknown: some inputs carry no UTXO data'))
    warn({
      code: 'psbt.fee_unknown',
      severity: 'caution',
      message: 'The fee cannot be computed: some inputs do not state their value.',
    })
  }
  summary.push(item('Net change to this wallet', formatSats(ownOut - ownIn)))

  return {
    toSign,
    addTapInternalKey,
    addRedeemScript,
    fee,
    vsize,
    items: [group('Inputs', inputItems), group('Outputs', outputItems), ...summary],
    warnings,
  }
}

function checkInputFields(
  index: number,
  input: PsbtInput,
  owner: AccountAddress,
  source: 'nonWitnessUtxo' | 'witnessUtxo' | undefined,
  path: string,
): void {
  // A second signature for the same key would be refused by the BIP-174 layer only after approval.
  if (input.partialSig?.some((entry) => equalBytes(entry.pubkey, owner.publicKey))) {
    throw new InvalidParamsError(`input ${index} is already signed`, { path })
  }
  if (input.witnessScript !== undefined) {
    throw new InvalidParamsError(`input ${index}: a witnessScript does not belong to a single-key address`, {
      path,
    })
  }
  switch (owner.addressType) {
    case 'p2pkh':
      // A legacy signature commits to no amount; only the parent transaction proves it.
      if (source !== 'nonWitnessUtxo') {
        throw new InvalidParamsError(
          `input ${index}: a P2PKH input needs its nonWitnessUtxo (parent transaction)`,
          { path },
        )
      }
      return
    case 'p2sh-p2wpkh':
      if (input.redeemScript !== undefined && !equalBytes(input.redeemScript, owner.redeemScript!)) {
        throw new InvalidParamsError(`input ${index}: redeemScript is not this address's`, { path })
      }
      return
    case 'p2tr':
      // BIP-86 key path only: our output key has no script tree, and we never replace a different key.
      if (input.tapInternalKey !== undefined && !equalBytes(input.tapInternalKey, owner.internalKey!)) {
        throw new InvalidParamsError(`input ${index}: tapInternalKey is not this address's BIP-86 key`, {
          path,
        })
      }
      if (input.tapMerkleRoot !== undefined) {
        throw new InvalidParamsError(
          `input ${index}: a tapMerkleRoot does not belong to a BIP-86 key-path address`,
          { path },
        )
      }
      if (input.tapKeySig !== undefined)
        throw new InvalidParamsError(`input ${index} is already signed`, { path })
      return
    default:
      if (input.redeemScript !== undefined) {
        throw new InvalidParamsError(`input ${index}: a redeemScript does not belong to a P2WPKH address`, {
          path,
        })
      }
  }
}

/**
 * The hash type input `index` will be signed with: the PSBT's own `sighashType` (ALL, or DEFAULT for
 * taproot, when absent), which must be on the dapp's allow-list for that input (`[1]` by default; for
 * taproot, ALL also admits DEFAULT, which commits to the same data).
 */
function chooseSighash(
  index: number,
  input: PsbtInput,
  type: AddressType,
  request: SignRequest,
  outputCount: number,
  path: string,
  warn: (warning: ReviewWarning) => void,
): number {
  const taproot = type === 'p2tr'
  const hashType = input.sighashType ?? (taproot ? SIGHASH_DEFAULT : SIGHASH_ALL)
  if (!knownSighashTypes.includes(hashType) || (!taproot && hashType === SIGHASH_DEFAULT)) {
    throw new InvalidParamsError(`input ${index}: sighash type ${hashType} is not valid for this input`, {
      path,
    })
  }
  const allowed = new Set(request.sighashTypes ?? [SIGHASH_ALL])
  if (taproot && allowed.has(SIGHASH_ALL)) allowed.add(SIGHASH_DEFAULT)
  if (!allowed.has(hashType)) {
    throw new PolicyRefusedError(
      `input ${index} asks for sighash ${sighashNames[hashType]}, which signInputs does not allow (${[...allowed].map((t) => sighashNames[t] ?? t).join(', ')})`,
      { rule: 'psbt.sighash_not_allowed' },
    )
  }
  const base = hashType & 0x1f
  if (base === 0x03 && index >= outputCount) {
    // Legacy/v0 would sign the constant 1 (a signature valid for any transaction); taproot has no digest.
    throw new PolicyRefusedError(
      `input ${index} asks for SIGHASH_SINGLE but output ${index} does not exist`,
      {
        rule: 'psbt.sighash_single_without_output',
      },
    )
  }
  if (base === 0x02) {
    warn({
      code: 'psbt.sighash_none',
      severity: 'danger',
      message: 'SIGHASH_NONE: the signature commits to no output, so anyone can redirect these coins.',
    })
  } else if (base === 0x03) {
    warn({
      code: 'psbt.sighash_single',
      severity: 'caution',
      message:
        'SIGHASH_SINGLE: each such signature commits only to the output with its own index; other outputs may change.',
    })
  }
  if (hashType & 0x80) {
    warn({
      code: 'psbt.sighash_anyonecanpay',
      severity: 'caution',
      message: 'ANYONECANPAY: others may add inputs to this transaction after you sign.',
    })
  }
  return hashType
}

/**
 * Segwit v0 and legacy signatures commit to their own input's amount only (P2TR ones to all of them), so
 * a dapp can understate an amount across two rounds and burn the difference as fee. Every listed input's
 * value and script are checked against its parent transaction from the chain provider (hash-checked;
 * the provider's UTXO list alone is a word, not a proof). Without a provider, a v0 input must carry its
 * parent (`nonWitnessUtxo`, already hash-checked by `decodePsbt`).
 */
async function verifyAmounts(
  decoded: DecodedPsbt,
  toSign: readonly InputToSign[],
  provider: ChainProvider | undefined,
): Promise<void> {
  const pending = toSign.filter(
    ({ index, owner }) => decoded.prevoutSources[index] !== 'nonWitnessUtxo' && owner.addressType !== 'p2tr',
  )
  if (pending.length === 0) return
  if (!provider) {
    const { index } = pending[0]!
    throw new PolicyRefusedError(
      `input ${index}: its amount cannot be verified without a chain provider; include nonWitnessUtxo`,
      { rule: 'psbt.amount_unverified' },
    )
  }
  // Every parent at once (the provider's batch where it has one; parsed and hash-checked with turns of the
  // event loop between them), never the provider's UTXO list alone; then each input in order, so the first
  // bad one is the one named.
  const outputs = await verifiedPreviousOutputs(
    provider,
    pending.map(({ index }) => ({
      txid: hashToTxid(decoded.tx.inputs[index]!.txid),
      vout: decoded.tx.inputs[index]!.vout,
    })),
  )
  for (const [position, { index }] of pending.entries()) {
    const fetched = outputs[position]!
    if ('error' in fetched) throw fetched.error
    const output = fetched.value
    const prevout = decoded.prevouts[index]!
    if (!equalBytes(output.script, prevout.script)) {
      throw new PolicyRefusedError(
        `input ${index}: the chain does not show this output paying to the address`,
        {
          rule: 'psbt.amount_mismatch',
        },
      )
    }
    const value = output.value
    if (value !== prevout.value) {
      throw new PolicyRefusedError(
        `input ${index}: the PSBT says ${prevout.value} sat, the chain says ${value} sat`,
        {
          rule: 'psbt.amount_mismatch',
        },
      )
    }
  }
}

function hasSignature(input: PsbtInput): boolean {
  return (
    (input.partialSig?.length ?? 0) > 0 ||
    input.tapKeySig !== undefined ||
    (input.tapScriptSig?.length ?? 0) > 0
  )
}

function typeOfScript(script: Uint8Array | undefined): AddressType {
  switch (script && scriptKind(script)) {
    case 'p2pkh':
      return 'p2pkh'
    case 'p2sh':
      return 'p2sh-p2wpkh'
    case 'p2tr':
      return 'p2tr'
    default:
      return 'p2wpkh'
  }
}

export function describeScript(script: Uint8Array | undefined, account: Account): string {
  if (!script) return 'unknown script'
  try {
    return bitcoinAddress.fromOutputScript(script, account.chain.network)
  } catch {
    return `script ${toHex(script)}`
  }
}
