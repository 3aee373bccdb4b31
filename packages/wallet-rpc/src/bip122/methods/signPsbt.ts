import type { Psbt } from 'bitcoinjs-lib'
import * as v from 'valibot'
import { ProviderError } from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { nextTurn, timeSlicer } from '../../core/yielding.js'
import { reviewPsbtAssets } from '../assets/psbt.js'
import { resolvePolicy } from '../policy.js'
import { analyzePsbt, describeScript } from '../psbt/analyze.js'
import { finalizeAndExtract, inputKeyType, signatureEntry, writeSignatures } from '../psbt/apply.js'
import { encodeBase64 } from '../psbt/base64.js'
import { type DecodedPsbt, decodePsbt } from '../psbt/decode.js'
import { addToInputMaps, type KeyValue } from '../psbt/encode.js'
import { assertSpendable } from '../psbt/verifyFinal.js'
import {
  bitcoinSends,
  broadcastOnce,
  type SignedBitcoinTransaction,
  spentCoinsHeldMs,
  spentOutpoints,
} from '../transaction/broadcast.js'
import { toHex } from '../transaction/bytes.js'
import { markSpent } from '../transaction/reservations.js'
import { createSighashCache } from '../transaction/sighash.js'
import { type InputToSign, signInputs, verifyInputSignatures } from '../transaction/sign.js'
import { parseTransaction, transactionId } from '../transaction/transaction.js'
import type { Account, Bip122Wallet, ChainProvider } from '../types.js'

/**
 * `signPsbt {account, psbt, signInputs:[{address, index, sighashTypes?}], broadcast?}` →
 * `{psbt, txid?}` (WalletConnect bip122). Signs exactly the listed inputs that spend this account's own
 * scripts, with the hash types the PSBT asks for and the dapp allowed; returns the PSBT with our
 * signatures added, or, with `broadcast`, finalized, extracted, sent once and its txid checked.
 * Every rule is in `psbt/analyze.ts`; the review lists each input, output, the fee and sighash warnings.
 * With the chain's `assets` provider it also says where the signed inputs' inscriptions, rare sats and runes
 * go (`assets/psbt.ts`).
 */

const sighashType = v.picklist(
  [0x00, 0x01, 0x02, 0x03, 0x81, 0x82, 0x83],
  'must be a sighash type (0, 1, 2, 3, 129, 130, 131)',
)

export const signPsbtParams = v.object({
  account: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  // Canonical base64 is checked by decodePsbt while decoding: a regex over a megabyte PSBT costs as much.
  psbt: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
  signInputs: v.pipe(
    v.array(
      v.object({
        address: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
        index: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(0xffffffff)),
        sighashTypes: v.optional(v.pipe(v.array(sighashType), v.minLength(1), v.maxLength(7))),
      }),
    ),
    v.minLength(1, 'must list at least one input'),
    v.maxLength(10_000),
  ),
  broadcast: v.optional(v.boolean()),
})

export type SignPsbtParams = v.InferOutput<typeof signPsbtParams>
export type SignPsbtResult = { psbt: string; txid?: string }

type SignPsbtPlan = {
  chainId: string
  account: Account
  provider: ChainProvider | undefined
  decoded: DecodedPsbt
  toSign: InputToSign[]
  addTapInternalKey: { index: number; key: Uint8Array }[]
  addRedeemScript: { index: number; script: Uint8Array }[]
  broadcast: boolean
}

export const signPsbt = (wallet: Bip122Wallet) =>
  defineMethod({
    params: signPsbtParams,

    async plan(context, params) {
      const policy = resolvePolicy(wallet.policy)
      const account = await wallet.resolveAccount(context.chainId, params.account)
      const { provider, assets } = await wallet.chain(context.chainId)
      const broadcast = params.broadcast ?? false
      if (broadcast && !provider)
        throw new ProviderError(`no chain provider configured for ${context.chainId}`)
      const decoded = await decodePsbt(params.psbt, policy.psbtLimits)
      const analysis = await analyzePsbt({
        decoded,
        account,
        signInputs: params.signInputs,
        provider,
        policy,
        broadcast,
      })
      // With an assets provider: what the signed inputs carry (inscriptions, runes, rare sats) and where it goes.
      const assetReview = assets
        ? await reviewPsbtAssets({
            assets,
            decoded,
            toSign: analysis.toSign,
            account,
            strict: policy.assets.strict,
            describeScript: (script) => describeScript(script, account),
          })
        : { items: [], warnings: [] }
      const plan: SignPsbtPlan = {
        chainId: context.chainId,
        account,
        provider,
        decoded,
        toSign: analysis.toSign,
        addTapInternalKey: analysis.addTapInternalKey,
        addRedeemScript: analysis.addRedeemScript,
        broadcast,
      }
      return {
        review: {
          account: account.id,
          title: broadcast
            ? 'Sign and broadcast a Bitcoin transaction (PSBT)'
            : 'Sign a Bitcoin transaction (PSBT)',
          items: [...analysis.items, ...assetReview.items],
          warnings: [...analysis.warnings, ...assetReview.warnings],
        },
        plan,
      }
    },

    async execute(context, plan, journal): Promise<SignPsbtResult> {
      const { psbt, tx, prevouts } = plan.decoded
      // What we add, per input, for the answer's bytes (psbt/encode.ts); the decoded PSBT gets it too,
      // through the BIP-174 layer (see writeSignatures), which checks formats and refuses duplicates.
      const additions = new Map<number, KeyValue[]>()
      const add = (index: number, entry: KeyValue) => {
        const entries = additions.get(index)
        if (entries) entries.push(entry)
        else additions.set(index, [entry])
      }
      const pause = timeSlicer()
      for (const { index, key } of plan.addTapInternalKey) {
        await pause()
        psbt.data.updateInput(index, { tapInternalKey: key })
        add(index, { key: Uint8Array.of(inputKeyType.tapInternalKey), value: key })
      }
      for (const { index, script } of plan.addRedeemScript) {
        await pause()
        psbt.data.updateInput(index, { redeemScript: script })
        add(index, { key: Uint8Array.of(inputKeyType.redeemScript), value: script })
      }
      // One sighash cache for signing and the pre-broadcast check: the shared hashes are computed once.
      const cache = createSighashCache(tx, prevouts)
      const signatures = await signInputs(plan.account, tx, prevouts, plan.toSign, { cache })
      if (!plan.broadcast) {
        writeSignatures(psbt, signatures)
        for (const signature of signatures) add(signature.index, signatureEntry(signature))
        const { bytes, inputMaps } = plan.decoded
        const answer = await addToInputMaps(bytes, inputMaps, additions, pause)
        await nextTurn()
        return { psbt: encodeBase64(answer) }
      }
      if (!(await verifyInputSignatures(tx, prevouts, plan.toSign, signatures, cache))) {
        throw new ProviderError('the key provider produced an invalid signature; nothing was broadcast')
      }
      writeSignatures(psbt, signatures)
      const raw = finalizeAndExtract(psbt)
      assertSpendable(raw, prevouts)
      // Our own txid, from our own serializer, is the one the provider must echo.
      const expected = transactionId(parseTransaction(raw))
      const answer = { psbt: await encodePsbt(psbt), txid: expected }
      await journal.signed(
        { raw: toHex(raw), account: plan.account.id, ...answer } satisfies SignedBitcoinTransaction,
        [expected],
      )
      await broadcastOnce(plan.provider!, raw, expected)
      await journal.broadcast({ txid: expected })
      // The wallet's coins it spent stay out of sendTransfer's selection until the chain stops listing them.
      markSpent(plan.account, spentOutpoints(raw), context.clock() + spentCoinsHeldMs)
      wallet.afterBroadcast(plan.chainId, expected)
      return answer
    },

    sends: {
      // Only a broadcast signPsbt records signed bytes, always with its answer's PSBT.
      ...bitcoinSends(wallet, (signed) => ({ psbt: signed.psbt ?? '', txid: signed.txid })),
    },
  })

/**
 * After broadcast, the finalized PSBT (bitcoinjs' finalizers changed it): bitcoinjs serializes it.
 * Our base64 (psbt/base64.ts), not bitcoinjs' `toBase64()`: in browsers and Hermes that spreads every byte
 * into one `String.fromCharCode` call and overflows the stack on a large PSBT (a few hundred inputs). Serializing
 * and encoding are each one block; the event loop gets a turn before each.
 */
async function encodePsbt(psbt: Psbt): Promise<string> {
  await nextTurn()
  const bytes = psbt.toBuffer()
  await nextTurn()
  return encodeBase64(bytes)
}
