import {
  type Address,
  BaseError,
  createPublicClient,
  erc20Abi,
  type Hex,
  http,
  type PublicClient,
  RpcRequestError,
  type Transport,
} from 'viem'
import { ProviderError } from '../core/errors.js'

/** A chain provider: a viem public client over any transport (http, webSocket, custom EIP-1193, fallback). */
export type Eip155ChainProvider = PublicClient<Transport>

/**
 * A public client over HTTP with automatic retries turned off: a broadcast is never retried behind the
 * wallet's back.
 */
export function httpProvider(url: string): Eip155ChainProvider {
  return createPublicClient({ transport: http(url, { retryCount: 0 }) })
}

export type EstimateRequest = {
  from: Address
  to: Address | undefined
  value: bigint
  data: Hex
  /** Fees make the node check the sender can pay `gas × fee + value`, so an unaffordable send fails here. */
  fees: { gasPrice: bigint } | { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
}

/**
 * One configured chain's view of its provider. Every call checks once that the provider really serves
 * this chain id, and turns any failure into a -32603 `ProviderError` carrying the node's own reason.
 */
export class ChainAccess {
  readonly chainId: number
  readonly client: Eip155ChainProvider
  #verified: Promise<void> | undefined

  constructor(chainId: number, client: Eip155ChainProvider) {
    this.chainId = chainId
    this.client = client
  }

  pendingNonce(address: Address): Promise<number> {
    return this.#call(() => this.client.getTransactionCount({ address, blockTag: 'pending' }))
  }

  balance(address: Address): Promise<bigint> {
    return this.#call(() => this.client.getBalance({ address, blockTag: 'pending' }))
  }

  /** Gas limit and base fee (undefined before London or on chains without EIP-1559) of the latest block. */
  latestBlock(): Promise<{ gasLimit: bigint; baseFeePerGas: bigint | undefined }> {
    return this.#call(async () => {
      const block = await this.client.getBlock({ blockTag: 'latest' })
      return { gasLimit: block.gasLimit, baseFeePerGas: block.baseFeePerGas ?? undefined }
    })
  }

  /**
   * Runs the transaction with eth_call, without fees: the node reports a revert with its reason and a
   * value above the balance (some nodes, anvil among them, skip that check in eth_estimateGas).
   */
  simulate(request: EstimateRequest): Promise<void> {
    return this.#call(async () => {
      await this.client.call({
        account: request.from,
        ...(request.to === undefined ? {} : { to: request.to }),
        value: request.value,
        data: request.data,
      })
    })
  }

  estimateGas(request: EstimateRequest): Promise<bigint> {
    return this.#call(() =>
      this.client.estimateGas({
        account: request.from,
        ...(request.to === undefined ? {} : { to: request.to }),
        value: request.value,
        data: request.data,
        ...request.fees,
      }),
    )
  }

  maxPriorityFeePerGas(): Promise<bigint> {
    return this.#call(() => this.client.estimateMaxPriorityFeePerGas({ chain: null }))
  }

  gasPrice(): Promise<bigint> {
    return this.#call(() => this.client.getGasPrice())
  }

  /**
   * An ERC-20's `symbol()` and `decimals()`, for display. Undefined when the contract does not answer
   * sensibly; a symbol is kept only if it is short plain text, so a token cannot inject look-alike text.
   */
  async tokenMetadata(token: Address): Promise<{ symbol: string; decimals: number } | undefined> {
    try {
      const [symbol, decimals] = await this.#call(() =>
        Promise.all([
          this.client.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' }),
          this.client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }),
        ]),
      )
      if (!/^[A-Za-z0-9.$_-]{1,12}$/.test(symbol) || decimals > 36) return undefined
      return { symbol, decimals }
    } catch {
      return undefined
    }
  }

  /** Broadcasts once (no retry) and returns the hash the provider reports. */
  sendRawTransaction(serializedTransaction: Hex): Promise<Hex> {
    return this.#call(() => this.client.sendRawTransaction({ serializedTransaction }))
  }

  async #call<Result>(run: () => Promise<Result>): Promise<Result> {
    await this.#verifyChainId()
    try {
      return await run()
    } catch (error) {
      throw new ProviderError(nodeReason(error), { cause: error })
    }
  }

  #verifyChainId(): Promise<void> {
    this.#verified ??= (async () => {
      let served: number
      try {
        served = await this.client.getChainId()
      } catch (error) {
        this.#verified = undefined // a network hiccup must not poison the check for good
        throw new ProviderError(nodeReason(error), { cause: error })
      }
      if (served !== this.chainId) {
        throw new ProviderError(`provider serves chain ${served}, configured as eip155:${this.chainId}`)
      }
    })()
    return this.#verified
  }
}

/**
 * The node's own words for a failure: the `details` of the innermost JSON-RPC error (e.g.
 * `execution reverted: nope`, `insufficient funds for gas * price + value`), else viem's short message.
 * Never the full viem message, which may embed the provider URL (and an API key in it).
 */
function nodeReason(error: unknown): string {
  if (error instanceof BaseError) {
    const rpc = error.walk((cause) => cause instanceof RpcRequestError)
    if (rpc instanceof RpcRequestError && rpc.details) return rpc.details
    return error.shortMessage
  }
  return 'provider request failed'
}
