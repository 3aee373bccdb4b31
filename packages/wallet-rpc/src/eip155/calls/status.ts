import type { ChainAccess, TransactionReceiptSummary } from '../provider.js'
import { numberToHex } from '../viemUtils.js'
import type { StoredCalls } from './store.js'

/** EIP-5792 status codes: pending, confirmed, off-chain failure, reverted, partially reverted. */
export type CallsStatusCode = 100 | 200 | 400 | 500 | 600

export type CallsStatus = {
  version: '2.0.0'
  id: string
  chainId: `0x${string}`
  status: CallsStatusCode
  atomic: boolean
  receipts: Array<
    Omit<TransactionReceiptSummary, 'logs'> & { logs: { address: string; data: string; topics: string[] }[] }
  >
  capabilities: { caip345: { caip2: string; transactionHashes: string[] } }
}

/**
 * The batch's status from its receipts: 100 while any transaction is pending; then 200 when every call
 * took effect, 500 when none did (the atomic transaction reverted, or every sequential one), 600 when some
 * did (a sequential batch with a reverted or unsent transaction). 400 (nothing reached the chain) never
 * occurs: a batch whose first broadcast fails is answered with the error and not stored.
 */
export async function callsStatus(access: ChainAccess, record: StoredCalls): Promise<CallsStatus> {
  const receipts = await Promise.all(record.transactionHashes.map((hash) => access.receipt(hash)))
  const mined = receipts.filter((receipt): receipt is TransactionReceiptSummary => receipt !== undefined)
  const succeeded = mined.filter((receipt) => receipt.status === '0x1').length
  const status: CallsStatusCode =
    mined.length < receipts.length
      ? 100
      : succeeded === mined.length && record.unsent === 0
        ? 200
        : succeeded === 0
          ? 500
          : 600
  return {
    version: '2.0.0',
    id: record.id,
    chainId: numberToHex(record.chainId),
    status,
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
