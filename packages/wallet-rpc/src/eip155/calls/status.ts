import type { ChainAccess, TransactionReceiptSummary } from '../provider.js'
import type { CallsStatus, CallsStatusCode, TransactionOutcome } from '../types.js'
import { numberToHex } from '../viemUtils.js'
import type { StoredCalls } from './store.js'

export type { CallsStatus, CallsStatusCode, TransactionOutcome } from '../types.js'

/**
 * EIP-5792's status from the outcome of each broadcast transaction and the calls never sent:
 * - 100 while any transaction is pending;
 * - 200 when every call took effect;
 * - 400 when nothing reached the chain (every transaction dropped or replaced; the wallet never retries);
 * - 500 when something reached the chain but no call took effect (the atomic transaction, or every
 *   sequential one, reverted);
 * - 600 when some calls took effect and others did not (a sequential batch with a reverted, dropped or
 *   unsent transaction).
 */
export function statusCode(outcomes: readonly TransactionOutcome[], unsent: number): CallsStatusCode {
  if (outcomes.includes('pending')) return 100
  const succeeded = outcomes.filter((outcome) => outcome === 'succeeded').length
  if (succeeded === outcomes.length && unsent === 0) return 200
  if (succeeded > 0) return 600
  return outcomes.includes('reverted') ? 500 : 400
}

/**
 * The batch's status, read from its chain. A transaction without a receipt is `dropped` when its nonce is
 * below the account's mined nonce: another transaction took that nonce (a replacement, a send from another
 * device), so this one can never be included. The mined nonce is read before the receipts, so a
 * transaction mined in between is seen by its receipt, never taken for dropped. A transaction the node no
 * longer holds but whose nonce is still free stays pending (100): it may still be mined from another
 * node's pool.
 */
export async function callsStatus(access: ChainAccess, record: StoredCalls): Promise<CallsStatus> {
  const minedNonce = record.nonces === undefined ? undefined : await access.minedNonce(record.from)
  const receipts = await Promise.all(record.transactionHashes.map((hash) => access.receipt(hash)))
  const outcomes = receipts.map((receipt, index): TransactionOutcome => {
    if (receipt !== undefined) return receipt.status === '0x1' ? 'succeeded' : 'reverted'
    const nonce = record.nonces?.[index]
    return nonce !== undefined && minedNonce !== undefined && nonce < minedNonce ? 'dropped' : 'pending'
  })
  const mined = receipts.filter((receipt): receipt is TransactionReceiptSummary => receipt !== undefined)
  return {
    version: '2.0.0',
    id: record.id,
    chainId: numberToHex(record.chainId),
    status: statusCode(outcomes, record.unsent),
    atomic: record.atomic,
    receipts: mined.map((receipt) => ({ ...receipt, logs: receipt.logs.map(logOf) })),
    capabilities: {
      caip345: { caip2: `eip155:${record.chainId}`, transactionHashes: record.transactionHashes },
    },
  }
}

function logOf(log: unknown) {
  const { address, data, topics } = (log ?? {}) as { address?: unknown; data?: unknown; topics?: unknown }
  return {
    address: String(address),
    data: String(data),
    topics: Array.isArray(topics) ? topics.map(String) : [],
  }
}
