import { type Hex, type PublicClient, type TransactionReceipt, TransactionReceiptNotFoundError } from 'viem'
import type { Review } from '../../src/core/review.js'
import { createWalletRpc, type WalletRpc } from '../../src/createWalletRpc.js'
import { type Eip155Options, eip155 } from '../../src/eip155/index.js'

export type Harness = {
  wallet: WalletRpc
  reviews: Review[]
  errors: unknown[]
  /** Calls one method on `chainId` and returns the JSON-RPC response. */
  call(method: string, params: unknown, chainId?: string): Promise<Record<string, unknown>>
  /** Calls and returns `result`, failing the test with the error when there is none. */
  result<T = string>(method: string, params: unknown, chainId?: string): Promise<T>
}

let nextId = 1

/** A wallet with one eip155 namespace; approves everything unless `approve` says otherwise. */
export function harness(
  options: Eip155Options,
  settings: {
    approve?: (review: Review) => boolean | Promise<boolean>
    allowDangerous?: string[]
    chainId?: string
  } = {},
): Harness {
  const reviews: Review[] = []
  const errors: unknown[] = []
  const wallet = createWalletRpc({
    namespaces: [eip155(options)],
    approve: (review) => {
      reviews.push(review)
      return settings.approve ? settings.approve(review) : true
    },
    onError: (error) => errors.push(error),
    ...(settings.allowDangerous ? { policy: { allowDangerous: settings.allowDangerous } } : {}),
  })
  const defaultChain = settings.chainId ?? `eip155:${firstChainId(options)}`
  const call = async (method: string, params: unknown, chainId = defaultChain) =>
    (await wallet.handle({ chainId, request: { id: nextId++, jsonrpc: '2.0', method, params } })) as Record<
      string,
      unknown
    >
  return {
    wallet,
    reviews,
    errors,
    call,
    async result<T>(method: string, params: unknown, chainId?: string) {
      const response = await call(method, params, chainId)
      if (!('result' in response)) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`)
      return response.result as T
    },
  }
}

function firstChainId(options: Eip155Options): number {
  const first = options.chains[0]
  if (first === undefined) throw new Error('no chain')
  return typeof first === 'number' ? first : first.chainId
}

/** The error object of a failed response (or a thrown assertion when it succeeded). */
export function errorOf(response: Record<string, unknown>): {
  code: number
  message: string
  data?: unknown
} {
  if (!('error' in response)) throw new Error(`expected an error, got ${JSON.stringify(response)}`)
  return response.error as { code: number; message: string; data?: unknown }
}

/**
 * The receipt of a transaction on an automining anvil, polled directly. viem's waitForTransactionReceipt
 * checks again only when a new block appears, and automine makes none after the last send, so a receipt
 * indexed a moment after the first look was waited for until the test timed out. On timeout this says what
 * the node holds for the sender (a nonce gap shows as pending above latest).
 */
export async function minedReceipt(
  chain: PublicClient,
  hash: Hex,
  timeoutMs = 20_000,
): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await chain.getTransactionReceipt({ hash })
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error
    }
    if (Date.now() > deadline) break
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  const transaction = await chain.getTransaction({ hash }).catch(() => undefined)
  if (transaction === undefined)
    throw new Error(`${hash} not mined in ${timeoutMs} ms and unknown to the node`)
  const [latest, pending] = await Promise.all(
    (['latest', 'pending'] as const).map((blockTag) =>
      chain.getTransactionCount({ address: transaction.from, blockTag }),
    ),
  )
  throw new Error(
    `${hash} (nonce ${transaction.nonce} from ${transaction.from}) not mined in ${timeoutMs} ms: ` +
      `the node's count is ${latest} latest, ${pending} pending`,
  )
}
