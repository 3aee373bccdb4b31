import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  isAddress,
  isAddressEqual,
  keccak256,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { EvmRoute, TokenConfig } from '../model.js'
import {
  type Failure,
  firstLine,
  type LiveChain,
  type LiveChainOptions,
  type SignedTransfer,
  sleep,
} from './chain.js'

/** One EVM chain of live mode: its RPC endpoint and the ERC-20 payments are made in. */
export type LiveEvmChain = { rpcUrl: string; token: TokenConfig }

/**
 * Live mode on EVM chains: a payment succeeds only if its transaction was mined, did not revert, and its ERC-20
 * `Transfer` logs moved exactly the option's amount of the option's token from the buyer to the treasury (the
 * wallet's word is never taken); settlements are ERC-20 transfers signed by the treasury's key.
 */
export class EvmLiveChains implements LiveChain<EvmRoute> {
  private readonly clients = new Map<string, PublicClient>()

  constructor(
    /** CAIP-2 → chain. */
    private readonly chains: Readonly<Record<string, LiveEvmChain>>,
    private readonly options: LiveChainOptions,
  ) {
    for (const [chainId, chain] of Object.entries(chains)) {
      this.clients.set(
        chainId,
        createPublicClient({
          transport: http(chain.rpcUrl, { timeout: options.rpcTimeoutMs, retryCount: 0 }),
        }) as PublicClient,
      )
    }
  }

  /** The live token of an EVM chain, or undefined when live mode has no such chain. */
  token(chainId: string): TokenConfig | undefined {
    return Object.hasOwn(this.chains, chainId) ? this.chains[chainId]?.token : undefined
  }

  client(chainId: string): PublicClient {
    const client = this.clients.get(chainId)
    if (client === undefined) throw new Error(`live mode has no chain ${chainId}`)
    return client
  }

  async check(route: EvmRoute, transactionHash: string): Promise<Failure | undefined> {
    const hash = transactionHash as Hex
    const receipt = await this.receipt(route.chainId, hash)
    if (receipt === undefined) {
      return { reason: `transaction ${hash} was not mined within ${this.options.confirmTimeoutMs / 1000} s` }
    }
    if (receipt.status !== 'success') {
      return { reason: `transaction ${hash} reverted on chain (block ${receipt.blockNumber})` }
    }
    if (route.sinceBlock !== undefined && receipt.blockNumber < route.sinceBlock) {
      return {
        reason: `transaction ${hash} was mined in block ${receipt.blockNumber}, before the option was offered (block ${route.sinceBlock})`,
      }
    }
    const { token, payee, address: buyer, tokenValue } = route
    let paid = 0n
    let otherToken: Address | undefined
    let otherPayee: Address | undefined
    for (const log of parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })) {
      if (!isAddressEqual(log.args.from, buyer)) continue
      if (isAddressEqual(log.address, token.address)) {
        if (isAddressEqual(log.args.to, payee)) paid += log.args.value
        else otherPayee ??= getAddress(log.args.to)
      } else if (isAddressEqual(log.args.to, payee)) {
        otherToken ??= getAddress(log.address)
      }
    }
    const unit = `${token.symbol} ${token.address} (minor units)`
    if (paid === 0n) {
      if (otherToken !== undefined) return { reason: `paid in token ${otherToken}, not ${unit}` }
      if (otherPayee !== undefined) return { reason: `paid ${otherPayee}, not the payment address ${payee}` }
      return { reason: `transaction ${hash} moved no ${unit} from ${buyer} to ${payee}` }
    }
    if (paid < tokenValue) return { reason: `paid too little: ${paid} of ${tokenValue} ${unit}` }
    if (paid > tokenValue) return { reason: `paid ${paid}, more than the ${tokenValue} ${unit} asked` }
    return undefined
  }

  /** EVM addresses compare case-insensitively. */
  sameAsset(route: EvmRoute, asset: string): boolean {
    return asset.toLowerCase() === route.asset.toLowerCase()
  }

  async signTransfer(route: EvmRoute, destination: string, amount: bigint): Promise<SignedTransfer> {
    if (!isAddress(destination, { strict: false }))
      throw new Error(`destination ${destination} is not an address`)
    const account = privateKeyToAccount(this.options.treasury.keys.evmKey)
    const request = await this.client(route.chainId).prepareTransactionRequest({
      account,
      chain: null,
      to: route.token.address,
      data: encodeFunctionData({
        abi: erc20Abi,
        functionName: 'transfer',
        args: [getAddress(destination), amount],
      }),
    })
    const wire = await account.signTransaction(request as Parameters<typeof account.signTransaction>[0])
    return { wire, txHash: keccak256(wire) }
  }

  async broadcast(route: EvmRoute, { wire, txHash }: SignedTransfer): Promise<true | 'pending' | string> {
    const hash = txHash as Hex
    try {
      await this.client(route.chainId).sendRawTransaction({ serializedTransaction: wire as Hex })
    } catch (error) {
      // Already known or already mined (a broadcast before a restart): the receipt below decides.
      this.options.log(`broadcast ${hash}: ${firstLine(error)}`)
    }
    const receipt = await this.receipt(route.chainId, hash)
    if (receipt === undefined) return 'pending'
    return receipt.status === 'success' ? true : 'reverted on chain'
  }

  /** The receipt once mined, polled until `confirmTimeoutMs`; undefined when it never came. */
  private async receipt(chainId: string, hash: Hex): Promise<TransactionReceipt | undefined> {
    const client = this.client(chainId)
    const deadline = Date.now() + this.options.confirmTimeoutMs
    for (;;) {
      try {
        return await client.getTransactionReceipt({ hash })
      } catch (error) {
        // Not mined yet (or the node did not answer in time): ask again until the deadline.
        if (this.options.stopped() || Date.now() + this.options.pollMs > deadline) {
          if ((error as Error).name !== 'TransactionReceiptNotFoundError') {
            this.options.log(`receipt of ${hash}: ${firstLine(error)}`)
          }
          return undefined
        }
      }
      await sleep(this.options.pollMs)
    }
  }
}
