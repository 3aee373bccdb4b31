import { sighashNames } from '../format.js'
import type { DecodedPsbt } from '../psbt/decode.js'
import { SIGHASH_ALL, SIGHASH_DEFAULT } from '../transaction/sighash.js'
import type { InputToSign } from '../transaction/sign.js'
import { hashToTxid } from '../transaction/transaction.js'
import type { Account } from '../types.js'
import { readCoinAssets, readValues } from './lookup.js'
import { type AssetFlowReview, reviewAssetFlow } from './review.js'
import type { OutputAssetsProvider } from './types.js'

/**
 * signPsbt with an assets provider: what the inputs the wallet signs carry and where it goes (`review.ts`).
 *
 * The sat flow is trusted only as far as what is signed fixes it:
 * - every signature must be ALL (or taproot DEFAULT): otherwise whoever completes the transaction picks the
 *   outputs, or adds inputs in front, and the review says where the assets go is not fixed;
 * - the values of the inputs in front of an inscribed input place its sats. Ours are checked (analyze.ts);
 *   a taproot signature commits to every input's amount, so with one the stated values are the real ones or
 *   the transaction is invalid; a `nonWitnessUtxo` was hash-checked against the outpoint. Any other value is
 *   compared with what the index reports for that outpoint, and one nothing confirms is named in a caution.
 */
export async function reviewPsbtAssets(options: {
  assets: OutputAssetsProvider
  decoded: DecodedPsbt
  toSign: readonly InputToSign[]
  account: Account
  strict: boolean
  describeScript: (script: Uint8Array) => string
}): Promise<AssetFlowReview> {
  const { assets, decoded, toSign, account } = options
  const { tx, prevouts, prevoutSources } = decoded
  const outpointOf = (index: number) => `${hashToTxid(tx.inputs[index]!.txid)}:${tx.inputs[index]!.vout}`
  const signed = [...toSign].sort((a, b) => a.index - b.index)
  const contents = await readCoinAssets(
    assets,
    signed.map(({ index }) => ({ outpoint: outpointOf(index), value: prevouts[index]!.value })),
    { details: true },
  )

  const loose = signed.find(({ hashType }) => hashType !== SIGHASH_ALL && hashType !== SIGHASH_DEFAULT)
  const open =
    loose && `input ${loose.index} is signed ${sighashNames[loose.hashType]}, ${looseness(loose.hashType)}`

  // Which stated input values nothing proves, among those in front of a signed input carrying sats to follow.
  const unproven = new Set<number>()
  const followed = signed.filter(({ index }) => {
    const found = contents.get(outpointOf(index))
    return found?.known === true && (found.inscriptions.length > 0 || found.rareSats.length > 0)
  })
  const committed = signed.some(({ owner }) => owner.addressType === 'p2tr')
  if (!open && !committed && followed.length > 0) {
    const last = followed.at(-1)!.index
    const ours = new Set(signed.map(({ index }) => index))
    const doubtful: number[] = []
    for (let index = 0; index < last; index++) {
      if (!ours.has(index) && prevouts[index] && prevoutSources[index] !== 'nonWitnessUtxo')
        doubtful.push(index)
    }
    const reported = doubtful.length > 0 ? await readValues(assets, doubtful.map(outpointOf)) : new Map()
    for (const index of doubtful) {
      if (reported.get(outpointOf(index)) !== prevouts[index]!.value) unproven.add(index)
    }
  }

  return reviewAssetFlow({
    method: 'psbt',
    source: assets.name,
    outputs: tx.outputs,
    inputValues: prevouts.map((prevout) => prevout?.value),
    signed: signed.map(({ index }) => ({ index, assets: contents.get(outpointOf(index))! })),
    open,
    unproven,
    othersUncounted: tx.inputs.length > signed.length,
    strict: options.strict,
    output: async (vout) => {
      const script = tx.outputs[vout]!.script
      if (script[0] === 0x6a) return { ours: false, text: 'OP_RETURN' }
      const own = await account.findScript(script)
      return own
        ? { ours: true, text: `yours: ${own.address}` }
        : { ours: false, text: `external: ${options.describeScript(script)}` }
    },
  })
}

function looseness(hashType: number): string {
  const parts: string[] = []
  const base = hashType & 0x1f
  if (base === 0x02) parts.push('so any outputs may be added or changed')
  if (base === 0x03) parts.push('so the other outputs may be added or changed')
  if (hashType & 0x80) parts.push('so inputs may be added in front')
  return parts.join(' and ')
}
