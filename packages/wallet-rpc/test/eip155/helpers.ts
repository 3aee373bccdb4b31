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
 * indexed a moment after the first look was waited for until the test timed out. Every second without a
 * receipt it repairs anvil's stuck queue (`requeueStuckNext`). On timeout this says what the node holds for
 * the sender (a nonce gap shows as pending above latest).
 */
export async function minedReceipt(
  chain: PublicClient,
  hash: Hex,
  timeoutMs = 20_000,
): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs
  let nextRepair = Date.now() + 1000
  for (;;) {
    try {
      return await chain.getTransactionReceipt({ hash })
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error
    }
    if (Date.now() > deadline) break
    if (Date.now() > nextRepair) {
      nextRepair = Date.now() + 1000
      const waiting = await chain.getTransaction({ hash }).catch(() => undefined)
      if (waiting !== undefined) await repairOnce(chain, waiting.from)
    }
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

/**
 * anvil 1.7.1's automine can leave a transaction that reaches it while a block is being mined in its queued
 * pool although its nonce is the account's next (foundry-rs/foundry#10122): the pool checked it against the
 * state before that block and never looks again, so it and every later transaction of the account wait
 * forever. Measured under load: 4 of 270 rounds of 50 concurrent sends from one account stalled so. Its pool
 * also does not know that a self-sponsored EIP-7702 authorization uses the sender's nonce + 1: a send at
 * nonce + 2 made while that type-4 is pending stays queued after it mines (geth's pool re-checks its queue
 * at every new block); rawType4.anvil.test.ts needs the repair for that every time.
 * The repair takes the account's transactions out of the pool (`anvil_removePoolTransactions`; anvil's
 * `anvil_dropTransaction` reaches only ready ones) and sends the same signed bytes again in nonce order, so
 * the pool checks them afresh; the hashes stay the same. It runs only when the node queues a transaction at
 * exactly the account's next nonce, so a nonce the wallet never broadcast (a real gap) still fails the test.
 * Says so on stderr when it repairs.
 */
/** Concurrent waits for one sender's transactions share one repair, so repairs never overlap. */
const repairs = new Map<string, Promise<void>>()
function repairOnce(chain: PublicClient, sender: Hex): Promise<void> {
  const key = sender.toLowerCase()
  let repair = repairs.get(key)
  if (repair === undefined) {
    repair = requeueStuckNext(chain, sender).finally(() => repairs.delete(key))
    repairs.set(key, repair)
  }
  return repair
}

async function requeueStuckNext(chain: PublicClient, sender: Hex): Promise<void> {
  const request = chain.request as (args: { method: string; params: unknown[] }) => Promise<unknown>
  type PoolTransactions = Record<string, Record<string, { hash: Hex }>>
  const ofSender = (transactions: PoolTransactions | undefined) =>
    Object.entries(transactions ?? {}).find(
      ([address]) => address.toLowerCase() === sender.toLowerCase(),
    )?.[1] ?? {}
  const next = await chain.getTransactionCount({ address: sender })
  const pool = (await request({ method: 'txpool_content', params: [] })) as {
    pending?: PoolTransactions
    queued?: PoolTransactions
  }
  const queued = ofSender(pool.queued)
  if (queued[String(next)] === undefined) return
  const byNonce = Object.entries({ ...ofSender(pool.pending), ...queued }).sort(
    ([a], [b]) => Number(a) - Number(b),
  )
  const raws: Hex[] = []
  for (const [, { hash }] of byNonce) {
    const raw = (await request({ method: 'eth_getRawTransactionByHash', params: [hash] })) as Hex | null
    if (raw !== null) raws.push(raw)
  }
  await request({ method: 'anvil_removePoolTransactions', params: [sender] })
  // One mined meanwhile is refused as known or too low; the rest are the same bytes, so the same hashes.
  for (const raw of raws)
    await chain.sendRawTransaction({ serializedTransaction: raw }).catch(() => undefined)
  console.warn(
    `anvil queued nonce ${next} of ${sender}, its next; re-added its ${raws.length} pool transactions`,
  )
}

/**
 * An EIP-1193 provider over a wallet's `handle()`, for dapp libraries (viem's `custom` transport, ethers'
 * `BrowserProvider`): a result resolves; an error rejects with the JSON-RPC error object as an Error carrying
 * its `code`, `message` and `data`, as WalletConnect's UniversalProvider rejects with the wallet's answer.
 */
export function eip1193Of(wallet: Pick<WalletRpc, 'handle'>, chainId: string) {
  let id = 0
  return {
    async request({ method, params }: { method: string; params?: unknown }): Promise<unknown> {
      const response = await wallet.handle({
        chainId,
        request: { id: ++id, jsonrpc: '2.0', method, params: params ?? [] },
      })
      if ('result' in response) return response.result
      const { code, message, data } = response.error
      throw Object.assign(new Error(message), { code, data })
    },
  }
}
