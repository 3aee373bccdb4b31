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
  settings: { approve?: (review: Review) => boolean; allowDangerous?: string[]; chainId?: string } = {},
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
