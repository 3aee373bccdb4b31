import coinSelect from 'coinselect'
import * as v from 'valibot'
import {
  InvalidParamsError,
  isOutcomeUnknown,
  PolicyRefusedError,
  ProviderError,
  UnauthorizedError,
} from '../../core/errors.js'
import { defineMethod } from '../../core/namespace.js'
import { item, type ReviewItem, type ReviewWarning } from '../../core/review.js'
import { decimalOrSafeInteger, hexString } from '../../core/schema.js'
import { decodeUtf8 } from '../../core/utf8.js'
import { heldBackItem, protectCoins, protectedRefusal, reviewProtectedSpend } from '../assets/transfer.js'
import { outputScriptOf } from '../chains.js'
import { formatFeeRate, formatSats } from '../format.js'
import { resolvePolicy } from '../policy.js'
import { verifiedPreviousOutputs } from '../providers/previousOutputs.js'
import {
  bitcoinSends,
  broadcastOnce,
  type SignedBitcoinTransaction,
  spentCoinsHeldMs,
} from '../transaction/broadcast.js'
import { equalBytes, fromHex, toHex } from '../transaction/bytes.js'
import { type Hold, reservationsOf } from '../transaction/reservations.js'
import { dustLimit, opReturnScript } from '../transaction/scripts.js'
import { createSighashCache, SIGHASH_ALL } from '../transaction/sighash.js'
import {
  finalInputScripts,
  type InputToSign,
  signInputs,
  verifyInputSignatures,
} from '../transaction/sign.js'
import { estimateVsize, inputVbytes } from '../transaction/size.js'
import {
  hashToTxid,
  serializeTransaction,
  type Transaction,
  transactionId,
  txidToHash,
} from '../transaction/transaction.js'
import type { Account, AccountAddress, AccountUtxo, Bip122Wallet, ChainProvider } from '../types.js'

/**
 * `sendTransfer {account, recipientAddress, amount, changeAddress?, memo?}` → `{txid}` (WalletConnect
 * bip122). Pays `amount` satoshis to the recipient from the account's payment UTXOs (purposes 44/49/84;
 * taproot "ordinal" coins are never spent by a plain transfer, so inscriptions cannot be burnt as fee),
 * with an optional OP_RETURN memo, change to a fresh internal address, one broadcast, txid checked.
 * Coins and the change address are reserved from plan to broadcast, so concurrent transfers never
 * collide; a failed broadcast releases them and is not retried.
 */

/** 21 million BTC in satoshis: no amount can be larger. */
const maxSupplySats = 2_100_000_000_000_000n
const maxMemoBytes = 80
/** Bitcoin Core's MAX_STANDARD_TX_WEIGHT (policy/policy.h): nodes relay no heavier transaction. */
const maxStandardWeight = 400_000

export const sendTransferParams = v.object({
  account: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  recipientAddress: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  // A safe-integer number is accepted too: AppKit's bitcoin adapter passes the app's `amount: 100000000` on.
  amount: decimalOrSafeInteger(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,15}$/, 'must be a positive whole number of satoshis')),
    'satoshis',
  ),
  changeAddress: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
  memo: v.optional(
    v.pipe(
      hexString,
      v.minLength(2, 'must not be empty'),
      v.maxLength(maxMemoBytes * 2, `must be at most ${maxMemoBytes} bytes`),
    ),
  ),
})

export type SendTransferParams = v.InferOutput<typeof sendTransferParams>

type SendTransferPlan = {
  chainId: string
  account: Account
  provider: ChainProvider
  tx: Transaction
  inputs: InputToSign[]
  prevouts: { script: Uint8Array; value: bigint }[]
  hold: Hold
  reservationMs: number
}

type Candidate = AccountUtxo & { key: string }

export const sendTransfer = (wallet: Bip122Wallet) =>
  defineMethod({
    params: sendTransferParams,

    async plan(context, params) {
      const policy = resolvePolicy(wallet.policy)
      // Every params error first (amount, addresses and their network, memo), before the account is
      // resolved or any provider is asked, so a dapp learns what it sent wrong whatever the wallet's setup.
      const { chain, provider, assets } = await wallet.chain(context.chainId)
      const amount = BigInt(params.amount)
      if (amount > maxSupplySats)
        throw new InvalidParamsError('amount exceeds the 21 million BTC supply', { path: 'amount' })
      const recipientScript = outputScriptOf(params.recipientAddress, chain, 'recipientAddress')
      if (amount < dustLimit(recipientScript)) {
        throw new InvalidParamsError(
          `amount is below the ${dustLimit(recipientScript)} sat dust limit for this recipient`,
          {
            path: 'amount',
          },
        )
      }
      const memo = params.memo === undefined ? undefined : fromHex(params.memo)
      if (params.changeAddress !== undefined) outputScriptOf(params.changeAddress, chain, 'changeAddress')

      const account = await wallet.resolveAccount(context.chainId, params.account)
      if (!provider) throw new ProviderError(`no chain provider configured for ${context.chainId}`)
      let givenChange: AccountAddress | undefined
      if (params.changeAddress !== undefined) {
        givenChange = await account.findAddress(params.changeAddress)
        if (!givenChange) throw new UnauthorizedError(params.changeAddress)
      }

      const targets = [{ script: recipientScript, value: amount }]
      if (memo) targets.push({ script: opReturnScript(memo), value: 0n })

      const [cachedUtxos, rates, firstUnusedChange] = await Promise.all([
        account.utxos(),
        provider.feeRates(),
        givenChange ? Promise.resolve(undefined) : account.changeAddress(),
      ])
      const feeRate = pickFeeRate(rates, policy.confirmationTarget)
      if (feeRate > policy.maxFeeRate) {
        throw new PolicyRefusedError(
          `the chain's fee rate ${feeRate} sat/vB exceeds the wallet's cap of ${policy.maxFeeRate}`,
          {
            rule: 'transfer.fee_rate_cap',
          },
        )
      }
      // With an assets provider, what every payment coin carries is read here, before the section below that
      // selects and holds coins with no await in between; the coins are then sorted inside it.
      const read = async (utxos: AccountUtxo[]) => {
        const payment = utxos.filter((utxo) => spendsInTransfers(utxo, account))
        const protection = assets ? await protectCoins(assets, payment, policy.assets.spend) : undefined
        const usable = payment.filter((utxo) => protection?.usable(`${utxo.txid}:${utxo.vout}`) ?? true)
        return { utxos, protection, total: usable.reduce((sum, utxo) => sum + BigInt(utxo.value), 0n) }
      }
      // The coins come from a discovery cached for `cacheMs`: when the ones it may spend cannot cover the amount
      // and a generous fee, read the chain again once, so coins that arrived since (or, as the index may show,
      // went since) are not answered "insufficient funds".
      const generousFee = BigInt(Math.ceil(feeRate * 1000))
      let coins = await read(cachedUtxos)
      if (coins.total < amount + generousFee)
        coins = await read(await account.refresh().then(() => account.utxos()))
      const { utxos, protection } = coins

      // The change index is held before any await, and the coins are selected and held with no await in
      // between: concurrent transfers then never share a coin or a change address.
      const book = reservationsOf(account)
      const now = context.clock()
      book.prune(new Set(utxos.map((utxo) => `${utxo.txid}:${utxo.vout}`)))
      const freshChange =
        !givenChange && firstUnusedChange && !account.isStatic && firstUnusedChange.change === 1
      const changeIndex = freshChange ? book.freeChangeIndex(firstUnusedChange.index, now) : undefined
      const hold = book.hold(changeIndex, now + policy.reservationMs)
      let selection: Selection | undefined
      let changeAddress: AccountAddress
      let heldBack: Candidate[] = []
      let protectedSpend: Awaited<ReturnType<typeof reviewProtectedSpend>>
      try {
        changeAddress =
          givenChange ??
          (changeIndex === undefined
            ? firstUnusedChange!
            : await account.address(firstUnusedChange!.purpose, 1, changeIndex))
        const spendable = utxos
          .filter((utxo) => spendsInTransfers(utxo, account))
          .map((utxo) => ({ ...utxo, key: `${utxo.txid}:${utxo.vout}` }))
          .filter((utxo) => !book.isTaken(utxo.key, now))
        // Clean coins first; protected coins the policy allows only when the clean ones cannot pay.
        const sorted = protection?.sort(spendable) ?? { clean: spendable, allowed: [], heldBack: [] }
        heldBack = sorted.heldBack
        selection =
          selectCoins(sorted.clean, targets, changeAddress.scriptPubKey, feeRate) ??
          (sorted.allowed.length === 0
            ? undefined
            : selectCoins([...sorted.clean, ...sorted.allowed], targets, changeAddress.scriptPubKey, feeRate))
        if (!selection) {
          const usable = [...sorted.clean, ...sorted.allowed]
          const total = usable.reduce((sum, utxo) => sum + BigInt(utxo.value), 0n)
          if (protection && heldBack.length > 0) throw protectedRefusal(protection, total, amount, heldBack)
          throw new InvalidParamsError(
            `insufficient funds: ${formatSats(total)} spendable (not reserved by other transfers), ${formatSats(amount)} plus fee needed`,
            { path: 'amount' },
          )
        }
        book.take(
          hold,
          selection.inputs.map((utxo) => utxo.key),
        )
        // No change output: give the index back, or skipped indexes could push change past the gap limit.
        if (selection.change === undefined) book.releaseChangeIndex(hold)
        protectedSpend =
          protection &&
          (await reviewProtectedSpend(protection, {
            account,
            inputs: selection.inputs,
            targets,
            recipient: params.recipientAddress,
            change:
              selection.change === undefined
                ? undefined
                : { address: changeAddress, value: selection.change },
          }))
        const plannedVsize = estimateVsize(
          selection.inputs.map((utxo) => utxo.owner.addressType),
          [
            ...targets.map((output) => output.script.length),
            ...(selection.change === undefined ? [] : [changeAddress.scriptPubKey.length]),
          ],
        )
        // Refused before approval and before the parents are fetched: the broadcast would fail anyway.
        if (plannedVsize * 4 > maxStandardWeight) {
          throw new PolicyRefusedError(
            `this transfer needs ${selection.inputs.length} coins, about ${plannedVsize * 4} weight units, over the ${maxStandardWeight} nodes relay; consolidate coins or send less`,
            { rule: 'transfer.too_large' },
          )
        }
        if (policy.maxFeeSats !== undefined && selection.fee > BigInt(policy.maxFeeSats)) {
          throw new PolicyRefusedError(
            `fee ${selection.fee} sat exceeds the wallet's cap of ${policy.maxFeeSats} sat`,
            {
              rule: 'transfer.fee_cap',
            },
          )
        }
        await checkProviderAmounts(provider, selection.inputs)
      } catch (error) {
        book.release(hold)
        throw error
      }

      const outputs = [...targets]
      if (selection.change !== undefined)
        outputs.push({ script: changeAddress.scriptPubKey, value: selection.change })
      const tx: Transaction = {
        version: 2,
        locktime: 0,
        inputs: selection.inputs.map((utxo) => ({
          txid: txidToHash(utxo.txid),
          vout: utxo.vout,
          // Opt in to replace-by-fee (BIP-125), so a stuck transfer can be bumped.
          sequence: 0xfffffffd,
          scriptSig: new Uint8Array(0),
          witness: [],
        })),
        outputs,
      }
      const inputs = selection.inputs.map((utxo, index) => ({
        index,
        owner: utxo.owner,
        hashType: SIGHASH_ALL,
      }))
      const prevouts = selection.inputs.map((utxo) => ({
        script: utxo.owner.scriptPubKey,
        value: BigInt(utxo.value),
      }))
      const vsize = estimateVsize(
        selection.inputs.map((utxo) => utxo.owner.addressType),
        outputs.map((output) => output.script.length),
      )

      const items: ReviewItem[] = [
        item('From', account.id),
        item(
          'To',
          (await account.findScript(recipientScript))
            ? `${params.recipientAddress} (yours)`
            : params.recipientAddress,
        ),
        item('Amount', formatSats(amount)),
      ]
      const warnings: ReviewWarning[] = []
      if (memo) {
        items.push(item('Memo (OP_RETURN)', describeMemo(memo)))
        warnings.push({
          code: 'transfer.memo_public',
          severity: 'info',
          message: 'The memo is public and permanent on the blockchain.',
        })
      }
      items.push(
        item(
          'Change',
          selection.change === undefined
            ? 'none (a remainder below the dust limit goes to the fee)'
            : `${formatSats(selection.change)} to ${changeAddress.address} (yours)`,
        ),
        item('Fee', `${formatSats(selection.fee)}, about ${formatFeeRate(selection.fee, vsize)}`),
        item('Inputs', `${selection.inputs.length} of your coins, ${formatSats(selection.total)}`),
      )
      if (protection) items.push(heldBackItem(protection, heldBack))
      if (protectedSpend) {
        items.push(...protectedSpend.items)
        warnings.push(...protectedSpend.warnings)
      }
      if (selection.fee > amount) {
        warnings.push({
          code: 'transfer.fee_exceeds_amount',
          severity: 'caution',
          message: 'The fee is larger than the amount sent.',
        })
      }

      const plan: SendTransferPlan = {
        chainId: context.chainId,
        account,
        provider,
        tx,
        inputs,
        prevouts,
        hold,
        reservationMs: policy.reservationMs,
      }
      return {
        review: { account: account.id, title: 'Send bitcoin', items, warnings },
        plan,
        // What the transaction pays out (change and memo stay with the wallet or move nothing).
        effects: [
          {
            chainId: context.chainId,
            account: account.id,
            asset: 'native',
            amount,
            recipient: params.recipientAddress,
            kind: 'transfer' as const,
            form: 'bitcoin transfer',
          },
        ],
      }
    },

    async execute(context, plan, journal): Promise<{ txid: string }> {
      const book = reservationsOf(plan.account)
      if (!book.renew(plan.hold, context.clock() + plan.reservationMs)) {
        throw new ProviderError(
          'the coins picked for this transfer were given to another one while it awaited approval; nothing was sent',
        )
      }
      let txid: string
      try {
        const cache = createSighashCache(plan.tx, plan.prevouts)
        const signatures = await signInputs(plan.account, plan.tx, plan.prevouts, plan.inputs, { cache })
        if (!(await verifyInputSignatures(plan.tx, plan.prevouts, plan.inputs, signatures, cache))) {
          throw new ProviderError('the key provider produced an invalid signature; nothing was sent')
        }
        const signed: Transaction = {
          ...plan.tx,
          inputs: plan.tx.inputs.map((input, index) => ({
            ...input,
            ...finalInputScripts(plan.inputs[index]!.owner, signatures[index]!),
          })),
        }
        const raw = serializeTransaction(signed)
        const expected = transactionId(signed)
        await journal.signed(
          { raw: toHex(raw), txid: expected, account: plan.account.id } satisfies SignedBitcoinTransaction,
          [expected],
        )
        txid = await broadcastOnce(plan.provider, raw, expected)
        await journal.broadcast({ txid })
      } catch (error) {
        // Bytes whose broadcast outcome is unknown may be out (the journal keeps them to send again): their
        // coins stay spent, so no next transfer double-spends them. Anything else sent nothing.
        if (isOutcomeUnknown(error)) book.spent(plan.hold, context.clock() + spentCoinsHeldMs)
        else book.release(plan.hold)
        throw error
      }
      // Keep the spent coins out of selection until the chain stops listing them (bounded by a day).
      book.spent(plan.hold, context.clock() + spentCoinsHeldMs)
      wallet.afterBroadcast(plan.chainId, txid)
      return { txid }
    },

    // Declined, refused or expired: the coins go back at once instead of after `reservationMs`.
    abandon(_context, plan) {
      reservationsOf(plan.account).release(plan.hold)
    },

    sends: {
      fixed: (plan: SendTransferPlan) => ({
        coins: plan.tx.inputs.map((input) => `${hashToTxid(input.txid)}:${input.vout}`),
      }),
      ...bitcoinSends(wallet, (signed) => ({ txid: signed.txid })),
    },
  })

/** Plain transfers spend payment coins only; taproot (ordinal) coins stay put unless the wallet is static. */
const spendsInTransfers = (utxo: AccountUtxo, account: Account) =>
  account.isStatic || utxo.owner.intention === 'payment'

function pickFeeRate(rates: Record<string, number>, target: number): number {
  const usable = Object.entries(rates)
    .map(([blocks, rate]) => [Number(blocks), rate] as const)
    .filter(([blocks, rate]) => Number.isFinite(blocks) && Number.isFinite(rate) && rate > 0)
    .sort((a, b) => a[0] - b[0])
  // The estimate for the smallest target at or above ours, else the slowest one offered; at least 1 sat/vB.
  const chosen = usable.find(([blocks]) => blocks >= target) ?? usable.at(-1)
  return Math.max(1, chosen?.[1] ?? 1)
}

type Selection = { inputs: Candidate[]; change: bigint | undefined; fee: bigint; total: bigint }

/**
 * Picks inputs with `coinselect` (blackjack, then accumulative; fed our segwit input sizes), then sizes
 * the fee and change exactly with worst-case signature sizes: change only when it clears its dust limit,
 * otherwise the remainder goes to the fee. Confirmed coins are tried before unconfirmed ones.
 */
function selectCoins(
  candidates: Candidate[],
  targets: { script: Uint8Array; value: bigint }[],
  changeScript: Uint8Array,
  feeRate: number,
): Selection | undefined {
  const confirmed = candidates.filter((utxo) => utxo.confirmed)
  const pools = confirmed.length === candidates.length ? [candidates] : [confirmed, candidates]
  for (const pool of pools) {
    const picked = coinSelect(
      pool.map((utxo) => ({
        utxo,
        value: utxo.value,
        script: { length: Math.ceil(inputVbytes(utxo.owner.addressType)) - 41 },
      })),
      targets.map((target) => ({ value: Number(target.value), script: { length: target.script.length } })),
      Math.ceil(feeRate),
    )
    if (!picked.inputs) continue
    const chosen = picked.inputs.map((entry) => entry.utxo)
    // coinselect estimates with legacy-style sizes; top up from the rest if our exact sizing needs more.
    const rest = pool.filter((utxo) => !chosen.includes(utxo)).sort((a, b) => b.value - a.value)
    for (;;) {
      const sized = sizeTransfer(chosen, targets, changeScript, feeRate)
      if (sized) return sized
      const next = rest.shift()
      if (!next) break
      chosen.push(next)
    }
  }
  return undefined
}

function sizeTransfer(
  inputs: Candidate[],
  targets: { script: Uint8Array; value: bigint }[],
  changeScript: Uint8Array,
  feeRate: number,
): Selection | undefined {
  const types = inputs.map((utxo) => utxo.owner.addressType)
  const lengths = targets.map((target) => target.script.length)
  const total = inputs.reduce((sum, utxo) => sum + BigInt(utxo.value), 0n)
  const sent = targets.reduce((sum, target) => sum + target.value, 0n)
  const feeWithChange = BigInt(Math.ceil(estimateVsize(types, [...lengths, changeScript.length]) * feeRate))
  const change = total - sent - feeWithChange
  if (change >= dustLimit(changeScript)) return { inputs, change, fee: feeWithChange, total }
  const feeWithout = BigInt(Math.ceil(estimateVsize(types, lengths) * feeRate))
  if (total - sent >= feeWithout) return { inputs, change: undefined, fee: total - sent, total }
  return undefined
}

function describeMemo(memo: Uint8Array): string {
  const text = decodeUtf8(memo)
  const printable = /^[\x20-\x7e]*$/.test(text)
  return printable ? `${toHex(memo)} ("${text}")` : toHex(memo)
}

/**
 * Every non-taproot coin the transfer spends holds what the provider's UTXO list says, per its own
 * transaction: a P2PKH signature commits to no amount and a segwit v0 one to its own input's only, so a
 * provider understating a coin would make the real fee far larger than the review shows. (A P2TR signature
 * commits to every input's amount and script, so a lie there only makes the transaction invalid.)
 */
async function checkProviderAmounts(provider: ChainProvider, inputs: readonly AccountUtxo[]): Promise<void> {
  const checked = inputs.filter((utxo) => utxo.owner.addressType !== 'p2tr')
  // Fetched together (the provider's batch where it has one), each checked in order: errors name the first
  // bad coin.
  const outputs = await verifiedPreviousOutputs(provider, checked)
  for (const [index, utxo] of checked.entries()) checkProviderAmount(utxo, outputs[index]!)
}

function checkProviderAmount(
  utxo: AccountUtxo,
  fetched: { value: { script: Uint8Array; value: bigint } } | { error: unknown },
): void {
  if ('error' in fetched) throw fetched.error
  const output = fetched.value
  if (!equalBytes(output.script, utxo.owner.scriptPubKey)) {
    throw new ProviderError(
      `the chain provider lists ${utxo.txid}:${utxo.vout} as ours, its transaction pays another script`,
    )
  }
  if (output.value !== BigInt(utxo.value)) {
    throw new ProviderError(
      `the chain provider lists ${utxo.txid}:${utxo.vout} as ${utxo.value} sat, its transaction says ${output.value} sat`,
    )
  }
}
