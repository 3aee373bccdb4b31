import type { Address, Hex } from 'viem'
import { ProviderError } from '../core/errors.js'
import type { Eip155ChainProvider, EstimateRequest, TransactionReceiptSummary } from './types.js'
import { hexToBigInt, numberToHex } from './viemUtils.js'

export type { Eip155ChainProvider, EstimateRequest, TransactionReceiptSummary } from './types.js'

/** A JSON-RPC error as the node sent it; `message` is the node's own words. */
export class Eip155RpcError extends Error {
  readonly code: number | undefined
  readonly data: unknown
  constructor(message: string, code?: number, data?: unknown) {
    super(message)
    this.name = 'Eip155RpcError'
    this.code = code
    this.data = data
  }
}

const quantity = (value: unknown): bigint => {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(value)) {
    throw new Eip155RpcError('the node answered something other than a quantity')
  }
  return hexToBigInt(value as Hex)
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
    return this.#call(async () =>
      Number(quantity(await this.#request('eth_getTransactionCount', [address, 'pending']))),
    )
  }

  /** How many transactions of the account are mined (its nonce at the latest block). */
  minedNonce(address: Address): Promise<number> {
    return this.#call(async () =>
      Number(quantity(await this.#request('eth_getTransactionCount', [address, 'latest']))),
    )
  }

  balance(address: Address): Promise<bigint> {
    return this.#call(async () => quantity(await this.#request('eth_getBalance', [address, 'pending'])))
  }

  /** Gas limit and base fee (undefined before London or on chains without EIP-1559) of the latest block. */
  latestBlock(): Promise<{ gasLimit: bigint; baseFeePerGas: bigint | undefined }> {
    return this.#call(() => this.#latestBlock())
  }

  async #latestBlock(): Promise<{ gasLimit: bigint; baseFeePerGas: bigint | undefined }> {
    const block = (await this.#request('eth_getBlockByNumber', ['latest', false])) as {
      gasLimit?: unknown
      baseFeePerGas?: unknown
    } | null
    if (block === null || typeof block !== 'object') throw new Eip155RpcError('the node has no latest block')
    return {
      gasLimit: quantity(block.gasLimit),
      baseFeePerGas: block.baseFeePerGas == null ? undefined : quantity(block.baseFeePerGas),
    }
  }

  /**
   * Runs the transaction with eth_call, without fees: the node reports a revert with its reason and a
   * value above the balance (some nodes, anvil among them, skip that check in eth_estimateGas).
   */
  simulate(request: EstimateRequest): Promise<void> {
    return this.#call(async () => {
      await this.#request('eth_call', [callObject(request), 'latest'])
    })
  }

  /**
   * `codeOverride` runs the estimate as if `from` had that code (eth_estimateGas's state override): how an
   * EIP-7702 batch is estimated before the authorization that sets the code is signed.
   */
  estimateGas(request: EstimateRequest, codeOverride?: Hex): Promise<bigint> {
    const fees = Object.fromEntries(
      Object.entries(request.fees).map(([name, value]) => [name, numberToHex(value)]),
    )
    const params: unknown[] = [{ ...callObject(request), ...fees }]
    if (codeOverride !== undefined) params.push('latest', { [request.from]: { code: codeOverride } })
    return this.#call(async () => quantity(await this.#request('eth_estimateGas', params)))
  }

  /** The account's code at the latest block (`0x` for an account without code). */
  code(address: Address): Promise<Hex> {
    return this.#call(async () => {
      const code = await this.#request('eth_getCode', [address, 'latest'])
      if (typeof code !== 'string' || !/^0x(?:[0-9a-fA-F]{2})*$/.test(code))
        throw new Eip155RpcError('the node answered something other than code')
      return code as Hex
    })
  }

  /** A mined transaction's status and block, or undefined while it is pending (or unknown to the node). */
  receipt(hash: Hex): Promise<TransactionReceiptSummary | undefined> {
    return this.#call(async () => {
      const receipt = await this.#request('eth_getTransactionReceipt', [hash])
      if (receipt === null || receipt === undefined) return undefined
      const { status, blockHash, blockNumber, gasUsed, logs } = receipt as Record<string, unknown>
      if (status !== '0x1' && status !== '0x0')
        throw new Eip155RpcError('the node answered a receipt without a status')
      return {
        status,
        transactionHash: hash,
        blockHash: String(blockHash) as Hex,
        blockNumber: numberToHex(quantity(blockNumber)),
        gasUsed: numberToHex(quantity(gasUsed)),
        logs: Array.isArray(logs) ? logs : [],
      }
    })
  }

  /**
   * The node's suggested priority fee; where it lacks `eth_maxPriorityFeePerGas`, gas price minus the
   * latest base fee (what viem's `estimateMaxPriorityFeePerGas` does).
   */
  maxPriorityFeePerGas(): Promise<bigint> {
    return this.#call(async () => {
      try {
        return quantity(await this.#request('eth_maxPriorityFeePerGas', []))
      } catch {
        const [gasPrice, block] = await Promise.all([
          this.#request('eth_gasPrice', []).then(quantity),
          this.#latestBlock(),
        ])
        const priority = gasPrice - (block.baseFeePerGas ?? 0n)
        return priority < 0n ? 0n : priority
      }
    })
  }

  gasPrice(): Promise<bigint> {
    return this.#call(async () => quantity(await this.#request('eth_gasPrice', [])))
  }

  /** Whether the node knows the transaction, pending or mined (`eth_getTransactionByHash` answers it). */
  knowsTransaction(hash: Hex): Promise<boolean> {
    return this.#call(async () => {
      const found = await this.#request('eth_getTransactionByHash', [hash])
      return typeof found === 'object' && found !== null
    })
  }

  /** Broadcasts once (no retry) and returns the hash the provider reports. */
  sendRawTransaction(serializedTransaction: Hex): Promise<Hex> {
    return this.#call(async () => {
      const hash = await this.#request('eth_sendRawTransaction', [serializedTransaction])
      if (typeof hash !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(hash)) {
        throw new Eip155RpcError('the node answered something other than a transaction hash')
      }
      return hash as Hex
    })
  }

  /**
   * One JSON-RPC call after the chain id check, with the provider's own answer or error (not wrapped in a
   * ProviderError): for callers that tell errors apart by code, such as the simulation's fallback.
   */
  async verifiedRequest(method: string, params: unknown[]): Promise<unknown> {
    await this.#verifyChainId()
    return this.#request(method, params)
  }

  #request(method: string, params: unknown[]): Promise<unknown> {
    return this.client.request({ method, params })
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
        served = Number(quantity(await this.#request('eth_chainId', [])))
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

/** `eth_call`/`eth_estimateGas`'s transaction object. */
function callObject(request: EstimateRequest) {
  return {
    from: request.from,
    ...(request.to === undefined ? {} : { to: request.to }),
    value: numberToHex(request.value),
    data: request.data,
  }
}

/**
 * The node's own words for a failure (e.g. `execution reverted: nope`, `insufficient funds for gas * price
 * + value`): our `Eip155RpcError`'s message, or the `details` of the innermost JSON-RPC error a viem client
 * wraps, else its short message. Never a full viem message, which may embed the provider URL (and an API
 * key in it). A node (or a contract's revert string inside its message) chooses these words: ProviderError
 * makes them one bounded line, control and bidi characters written out.
 */
function nodeReason(error: unknown): string {
  if (error instanceof Eip155RpcError) return error.message
  let innermost: { details?: unknown; shortMessage?: unknown; cause?: unknown } | undefined
  for (
    let cause = error as typeof innermost, depth = 0;
    cause && typeof cause === 'object' && depth < 10;
    depth++
  ) {
    if (typeof cause.details === 'string' && cause.details !== '') innermost = cause
    cause = cause.cause as typeof innermost
  }
  if (innermost !== undefined) return String(innermost.details)
  const short = (error as { shortMessage?: unknown } | null)?.shortMessage
  if (typeof short === 'string' && !short.includes('://')) return short
  if (error instanceof Error && error.message !== '' && !error.message.includes('://')) return error.message
  return 'provider request failed'
}
