import { randomBytes } from '@noble/hashes/utils.js'
import * as v from 'valibot'
import type { Address, Hex, TransactionSerializable } from 'viem'
import { isOutcomeUnknown, UserRejectedError } from '../../core/errors.js'
import type { JournalSteps } from '../../core/journal.js'
import { defineMethod, type RequestContext } from '../../core/namespace.js'
import { type BatchTransaction, type CallsPlan, planCalls } from '../calls/plan.js'
import { sendCallsRequestSchema } from '../calls/request.js'
import { callsKey, type StoredCalls } from '../calls/store.js'
import { signSelfAuthorization } from '../eip7702/authorization.js'
import { readDelegation } from '../eip7702/delegation.js'
import { accessOf, chainOf, type Eip155Env, nonceKey, signerOf } from '../env.js'
import { AtomicityNotSupportedError, UpgradeRejectedError } from '../errors.js'
import type { Eip155Signer } from '../keys.js'
import type { ChainAccess } from '../provider.js'
import { checkedHash } from '../transaction/hash.js'
import type { Fees } from '../transaction/request.js'
import {
  knownTransactions,
  readSignedTransactions,
  resendTransactions,
  type SignedTransactions,
} from '../transaction/resend.js'
import type { SendCallsResult } from '../types.js'
import { bytesToHex, isAddressEqual, keccak256 } from '../viemUtils.js'

export type { SendCallsResult } from '../types.js'

/**
 * `wallet_sendCalls [{ version, id?, from, chainId, atomicRequired, calls, capabilities? }]` (EIP-5792
 * 2.0.0; the 1.0 shape without `atomicRequired` is read as non-atomic and answered in the 2.0.0 shape). One
 * review and one approval for the whole batch; then either ONE transaction — ERC-7821 `execute(calls)` on
 * the account itself, carrying the EIP-7702 authorization to the chain's delegate the first time — or, on a
 * chain without a delegate, one transaction per call in order. Answers `{ id, capabilities: { caip345 } }`
 * so WalletConnect's UniversalProvider can report the status from the transaction hashes itself.
 *
 * A declined review that asked to upgrade the account (EIP-7702, the first atomic batch) for a dapp that
 * required atomicity answers 5750 (EIP-5792's "Rejected upgrade": the dapp may fall back to separate
 * transactions); any other declined batch 4001 (EIP-1193). A wallet whose user turns account upgrades off declines,
 * in its `approve`, every review carrying the `eip7702.account_upgrade` warning. Either way nothing is
 * signed or sent and no nonce is taken.
 */
export const sendCallsParams = v.strictTuple([sendCallsRequestSchema])

export const sendCalls = (env: Eip155Env) =>
  defineMethod({
    params: sendCallsParams,
    async plan(context, [request]) {
      // planCalls holds the id in `inFlight` from its duplicate check on.
      return planCalls(env, context, request, () => bytesToHex(randomBytes(32)))
    },
    abandon(context, plan: CallsPlan) {
      env.calls.inFlight.delete(callsKey(context.origin, plan.id))
    },
    rejection(_context, plan: CallsPlan) {
      if (plan.mode.kind !== 'atomic' || !plan.mode.upgrade || !plan.atomicRequired)
        return new UserRejectedError()
      return new UpgradeRejectedError(
        `declined: the review asked to upgrade ${plan.from} on eip155:${plan.chainId} to ${plan.mode.delegate} (EIP-7702), which atomic execution needs; nothing was sent`,
      )
    },
    async execute(context, plan: CallsPlan, journal): Promise<SendCallsResult> {
      try {
        return await answered(env, context, await send(env, context, plan, journal))
      } finally {
        env.calls.inFlight.delete(callsKey(context.origin, plan.id))
      }
    },
    sends: {
      fixed: (plan: CallsPlan) => ({ id: plan.id, from: plan.from }),
      async resend(context, recorded): Promise<SendCallsResult> {
        const signed = readSignedTransactions(recorded)
        const sent = await resendTransactions(env, accessOf(chainOf(env, context)), signed)
        return answered(env, context, recordOf(context, signed, sent))
      },
      async known(context, recorded): Promise<SendCallsResult | undefined> {
        const signed = readSignedTransactions(recorded)
        const sent = await knownTransactions(env, accessOf(chainOf(env, context)), signed)
        return sent === undefined ? undefined : answered(env, context, recordOf(context, signed, sent))
      },
    },
  })

/** What a batch's journal record keeps besides its transactions. */
const batchExtra = v.object({ id: v.string(), atomic: v.boolean() })

/** The batch's status record from its journal record and the hashes the chain now has (a prefix of them). */
function recordOf(
  context: RequestContext,
  signed: SignedTransactions,
  transactionHashes: Hex[],
): StoredCalls {
  const { id, atomic } = v.parse(batchExtra, signed.extra)
  return {
    id,
    chainId: signed.chainId,
    from: signed.transactions[0]!.from,
    ...(context.origin === undefined ? {} : { origin: context.origin }),
    atomic,
    transactionHashes,
    nonces: signed.transactions.slice(0, transactionHashes.length).map((sent) => sent.nonce),
    unsent: signed.transactions.length - transactionHashes.length,
    sentAt: context.clock(),
  }
}

/** The sent batch stored for the status methods, and the answer. */
async function answered(
  env: Eip155Env,
  context: RequestContext,
  record: StoredCalls,
): Promise<SendCallsResult> {
  try {
    await env.calls.store.put(record)
  } catch (error) {
    // The calls went out: an error answer would invite the dapp to send them again. Only the
    // wallet's own status lookups miss the batch (5730); the dapp's caip345 hashes still track it.
    env.report(new Error(`batch ${record.id} was sent but could not be stored: ${String(error)}`))
  }
  return {
    id: record.id,
    capabilities: { caip345: { caip2: context.chainId, transactionHashes: record.transactionHashes } },
  }
}

/**
 * Signs every transaction of the batch before the first is sent, so a signer that fails or times out leaves
 * nothing sent and every nonce given back. The nonces are one range reserved at once: the sequential
 * transactions', or the atomic transaction's and — when it upgrades the account — its authorization's
 * (nonce + 1), so a concurrent send can take none in between.
 */
async function send(
  env: Eip155Env,
  context: RequestContext,
  plan: CallsPlan,
  journal: JournalSteps,
): Promise<StoredCalls> {
  const access = accessOf(chainOf(env, context))
  const signer = await signerOf(env, plan.from)
  const { mode } = plan
  const transactions = mode.kind === 'atomic' ? [mode.transaction] : mode.transactions
  const upgrade = mode.kind === 'atomic' && mode.upgrade
  if (mode.kind === 'atomic' && !upgrade) await assertStillDelegated(access, plan.from, mode.delegate)
  const range = await env.nonces.reserveRange(
    nonceKey(plan.chainId, plan.from),
    () => access.pendingNonce(plan.from),
    transactions.length + (upgrade ? 1 : 0),
    { authorization: upgrade, readMined: () => access.minedNonce(plan.from) },
  )
  const nonces = transactions.map((_, index) => range.first + index)
  const raws: Hex[] = []
  try {
    for (const [index, transaction] of transactions.entries()) {
      const nonce = nonces[index]!
      const authorizationList =
        upgrade && mode.kind === 'atomic'
          ? [
              await signSelfAuthorization(signer, {
                chainId: plan.chainId,
                delegate: mode.delegate,
                transactionNonce: nonce,
              }),
            ]
          : undefined
      raws.push(await signer.signTransaction(serializable(plan, transaction, nonce, authorizationList)))
    }
    const signed: SignedTransactions = {
      chainId: plan.chainId,
      transactions: raws.map((raw, index) => ({
        raw,
        from: plan.from,
        nonce: nonces[index]!,
        ...(upgrade ? { authorizationNonce: nonces[index]! + 1 } : {}),
        ours: true,
      })),
      extra: { id: plan.id, atomic: mode.kind === 'atomic' },
    }
    await journal.signed(
      signed,
      raws.map((raw) => keccak256(raw)),
    )
  } catch (error) {
    range.settle(0)
    throw error
  }
  const hashes: Hex[] = []
  for (const [index, raw] of raws.entries()) {
    let hash: Hex
    try {
      const returned = await access.sendRawTransaction(raw)
      try {
        hash = checkedHash(raw, returned)
      } catch (error) {
        // The provider accepted something with this nonce (an upgrade's authorization nonce after it), so
        // it counts as used, as for eth_sendTransaction.
        range.settle(mode.kind === 'atomic' ? range.count : index + 1)
        throw error
      }
    } catch (error) {
      // Later transactions are not sent (their nonces would follow a hole); given back, so no gap stays. One
      // whose outcome is unknown may be out: its nonce stays used.
      range.settle(isOutcomeUnknown(error) ? (mode.kind === 'atomic' ? range.count : index + 1) : index)
      if (index === 0) throw error
      return record(hashes, nonces.slice(0, index), raws.length - index)
    }
    hashes.push(hash)
  }
  // All sent; an upgrade's authorization used the nonce after the transaction's.
  range.settle(range.count)
  await journal.broadcast({ hashes })
  return record(hashes, nonces, 0)

  function record(transactionHashes: Hex[], sentNonces: number[], unsent: number): StoredCalls {
    return {
      id: plan.id,
      chainId: plan.chainId,
      from: plan.from,
      ...(context.origin === undefined ? {} : { origin: context.origin }),
      atomic: mode.kind === 'atomic',
      transactionHashes,
      nonces: sentNonces,
      unsent,
      sentAt: context.clock(),
    }
  }
}

/**
 * A batch reviewed for an account already delegated to the wallet's delegate carries no authorization: if the
 * account was re-delegated (or undelegated) since the review, `execute` would run other code (or nothing, and
 * the batch would look confirmed). Read again right before signing; an upgrading batch sets the delegate itself.
 */
async function assertStillDelegated(access: ChainAccess, account: Address, delegate: Address) {
  const now = await readDelegation(access, account)
  if (now.status === 'delegated' && isAddressEqual(now.delegate, delegate)) return
  const found =
    now.status === 'delegated'
      ? `delegated to ${now.delegate}`
      : `${now.status === 'none' ? 'no' : 'contract'} code`
  throw new AtomicityNotSupportedError(
    `the account's delegation changed after the review: it now has ${found}, not the delegate ${delegate}; nothing was sent`,
    { extra: { rule: 'eip7702.delegation_changed', severity: 'danger' } },
  )
}

function serializable(
  plan: CallsPlan,
  transaction: BatchTransaction,
  nonce: number,
  authorizationList?: Parameters<Eip155Signer['signTransaction']>[0]['authorizationList'],
): TransactionSerializable {
  const common = {
    chainId: plan.chainId,
    nonce,
    gas: transaction.gas,
    to: transaction.to,
    value: transaction.value,
    data: transaction.data,
  }
  const fees: Fees = plan.fees
  if (authorizationList !== undefined) {
    if (fees.type !== 'eip1559') throw new Error('EIP-7702 transactions need EIP-1559 fees')
    return {
      ...common,
      type: 'eip7702',
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      authorizationList,
    } as TransactionSerializable
  }
  if (fees.type === 'eip1559')
    return {
      ...common,
      type: 'eip1559',
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    }
  return { ...common, type: 'legacy', gasPrice: fees.gasPrice }
}
