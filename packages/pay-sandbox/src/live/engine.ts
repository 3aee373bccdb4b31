import { ed25519 } from '@noble/curves/ed25519.js'
import { concatBytes } from '@noble/hashes/utils.js'
import { base58 } from '@scure/base'
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
import { decodeBase64, decodeTransaction, encodeBase64, encodeShortVec } from 'wallet-rpc/solana'
import type { EvmRoute, Payment, SolanaRoute, SolanaTokenOption, TokenConfig } from '../model.js'
import { buildTokenTransfer, latestBlockhash, runtimeRpc } from '../solanaOption.js'
import type { SandboxState } from '../state.js'
import type { Treasury } from './treasury.js'

/** One EVM chain of live mode: its RPC endpoint and the ERC-20 payments are made in. */
export type LiveEvmChain = { rpcUrl: string; token: TokenConfig }

export type LiveEngineOptions = {
  /** CAIP-2 → chain. */
  evm: Readonly<Record<string, LiveEvmChain>>
  solana: SolanaTokenOption | null
  treasury: Treasury
  /** How long confirm's transaction may take to be mined before the payment fails. */
  confirmTimeoutMs: number
  /** Limit on every single chain call. */
  rpcTimeoutMs: number
  /** Receipt polling interval. */
  pollMs: number
  /** Where the engine reports what it could not do (no settlement destination, a failed settlement). */
  log: (line: string) => void
}

type Failure = { reason: string }

/**
 * Live mode's chain work. Confirm moves a payment to `processing` and hands it here: the transaction's receipt is
 * read from the chain (bounded), and the payment succeeds only if it was mined, did not revert, and its ERC-20
 * `Transfer` logs moved exactly the option's amount of the option's token from the buyer to the treasury (the
 * wallet's word is never taken). A succeeded payment is then settled: the net amount (after the spec's fee) goes
 * from the treasury to the merchant's settlement destination for the asset in a real transfer, signed and
 * journaled before it is broadcast, and `payment.settled` carries its hash.
 */
export class LiveEngine {
  private readonly clients = new Map<string, PublicClient>()
  /** Transaction hash (lower case) → the payment it paid: one transfer pays one payment. */
  private readonly claimed = new Map<string, string>()
  /** Settlements of one chain run one after another (the treasury's nonces). */
  private readonly queues = new Map<string, Promise<void>>()
  private readonly inFlight = new Set<string>()
  private stopped = false

  constructor(
    private readonly state: SandboxState,
    readonly options: LiveEngineOptions,
  ) {
    for (const [chainId, chain] of Object.entries(options.evm)) {
      this.clients.set(
        chainId,
        createPublicClient({
          transport: http(chain.rpcUrl, { timeout: options.rpcTimeoutMs, retryCount: 0 }),
        }) as PublicClient,
      )
    }
  }

  get treasury(): Treasury {
    return this.options.treasury
  }

  /** The live token of an EVM chain, or undefined when live mode has no such chain. */
  token(chainId: string): TokenConfig | undefined {
    return Object.hasOwn(this.options.evm, chainId) ? this.options.evm[chainId]?.token : undefined
  }

  client(chainId: string): PublicClient {
    const client = this.clients.get(chainId)
    if (client === undefined) throw new Error(`live mode has no chain ${chainId}`)
    return client
  }

  /** The chain's current block: a live option's payment must be mined at or after it. */
  blockNumber(chainId: string): Promise<bigint> {
    return this.client(chainId).getBlockNumber({ cacheTime: 0 })
  }

  /** After a valid confirm (the payment is `processing`): check the transaction on the chain, in the background. */
  verify(payment: Payment): void {
    void this.run(`verify ${payment.id}`, async () => {
      const failure = await this.check(payment)
      if (this.stopped || payment.status !== 'processing') return
      if (failure === undefined) this.state.transition(payment, 'succeeded')
      else this.state.transition(payment, 'failed', failure)
    })
  }

  private async check(payment: Payment): Promise<Failure | undefined> {
    const route = payment.chosen?.route
    const hash = payment.chosen?.transactionHash
    if (route === undefined || hash === undefined) return { reason: 'no transaction to check' }
    const key = hash.toLowerCase()
    const owner = this.claimed.get(key)
    if (owner !== undefined && owner !== payment.id) {
      return { reason: `transaction ${hash} already paid payment ${owner}` }
    }
    this.claimed.set(key, payment.id)
    // The Solana option's transaction was submitted by the sandbox itself and judged at confirm (checkAndSubmit):
    // confirmed on the runtime, and its own token balance changes credit the treasury with exactly the amount.
    if (route.kind === 'solana') return undefined
    const failure = await this.checkEvm(route, hash as Hex)
    if (failure !== undefined) this.claimed.delete(key)
    return failure
  }

  private async checkEvm(route: EvmRoute, hash: Hex): Promise<Failure | undefined> {
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

  /** The receipt once mined, polled until `confirmTimeoutMs`; undefined when it never came. */
  private async receipt(chainId: string, hash: Hex): Promise<TransactionReceipt | undefined> {
    const client = this.client(chainId)
    const deadline = Date.now() + this.options.confirmTimeoutMs
    for (;;) {
      try {
        return await client.getTransactionReceipt({ hash })
      } catch (error) {
        // Not mined yet (or the node did not answer in time): ask again until the deadline.
        if (this.stopped || Date.now() + this.options.pollMs > deadline) {
          if ((error as Error).name !== 'TransactionReceiptNotFoundError') {
            this.options.log(`receipt of ${hash}: ${(error as Error).message.split('\n')[0]}`)
          }
          return undefined
        }
      }
      await sleep(this.options.pollMs)
    }
  }

  /** A succeeded payment: pay the merchant its net amount from the treasury, then `payment.settled`. */
  settle(payment: Payment): void {
    const route = payment.chosen?.route
    if (route === undefined || payment.status !== 'succeeded' || payment.settlement !== undefined) return
    if (this.inFlight.has(payment.id)) return
    this.inFlight.add(payment.id)
    const previous = this.queues.get(route.chainId) ?? Promise.resolve()
    const next = previous.then(() =>
      this.run(`settle ${payment.id}`, () => this.settleNow(payment)).finally(() =>
        this.inFlight.delete(payment.id),
      ),
    )
    this.queues.set(route.chainId, next)
  }

  /** The merchant's settlement destination for the paid asset (CAIP-10 account part), if it registered one. */
  private destination(payment: Payment): string | undefined {
    const route = payment.chosen!.route
    const entries = this.state.merchants.get(payment.merchantId)?.settlements ?? []
    // EVM addresses compare case-insensitively; Solana's base58 is case-sensitive.
    const same = (asset: string) =>
      route.kind === 'evm' ? asset.toLowerCase() === route.asset.toLowerCase() : asset === route.asset
    const entry = entries.find((candidate) => same(candidate.asset))
    return entry?.destination.split(':')[2]
  }

  /** The net amount in token units: the fee is taken in the same proportion as from the fiat amount. */
  private netTokenValue(payment: Payment, tokenValue: bigint): bigint {
    const gross = BigInt(payment.amount.value)
    const net = BigInt(this.state.netAmount(payment).value)
    return gross === 0n ? 0n : (tokenValue * net) / gross
  }

  private async settleNow(payment: Payment): Promise<void> {
    if (this.stopped || payment.settlement !== undefined || payment.status !== 'succeeded') return
    const route = payment.chosen!.route
    if (payment.settling === undefined) {
      const destination = this.destination(payment)
      if (destination === undefined) {
        this.options.log(
          `payment ${payment.id}: merchant ${payment.merchantId} has no settlement destination for ${route.asset}; not settled (register one, then POST /_sandbox/payments/${payment.id}/settle)`,
        )
        return
      }
      const amount = this.netTokenValue(payment, route.tokenValue)
      const signed =
        route.kind === 'evm'
          ? await this.signEvmTransfer(route, destination, amount)
          : await this.signSolanaTransfer(route, destination, amount)
      // On disk before it is broadcast: a restart sends these same bytes again, never a second transfer.
      payment.settling = { ...signed, amount, destination }
      this.state.save(payment)
    }
    const settling = payment.settling
    const mined =
      route.kind === 'evm'
        ? await this.broadcastEvm(route.chainId, settling.wire as Hex, settling.txHash as Hex)
        : await this.broadcastSolana(route, settling.wire, settling.txHash)
    if (this.stopped || payment.settlement !== undefined) return
    if (mined === 'pending') {
      // Maybe still in a mempool: keep the signed bytes, so a retry (control settle, restart) sends the same ones.
      this.options.log(
        `payment ${payment.id}: settlement ${settling.txHash} not mined yet; will be broadcast again`,
      )
      return
    }
    if (mined !== true) {
      this.options.log(`payment ${payment.id}: settlement ${settling.txHash} failed: ${mined}`)
      // Reverted, failed on chain or expired unsent: nothing moved, so a later attempt signs a new transfer.
      delete payment.settling
      this.state.save(payment)
      return
    }
    this.state.settle(payment, settling.txHash)
  }

  private async signEvmTransfer(route: EvmRoute, destination: string, amount: bigint) {
    if (!isAddress(destination, { strict: false }))
      throw new Error(`destination ${destination} is not an address`)
    const account = privateKeyToAccount(this.treasury.keys.evmKey)
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

  /** Broadcasts (again, after a restart) and waits for the receipt: true, 'pending' (not mined in time), or why not. */
  private async broadcastEvm(chainId: string, wire: Hex, hash: Hex): Promise<true | 'pending' | string> {
    try {
      await this.client(chainId).sendRawTransaction({ serializedTransaction: wire })
    } catch (error) {
      // Already known or already mined (a broadcast before a restart): the receipt below decides.
      this.options.log(`broadcast ${hash}: ${(error as Error).message.split('\n')[0]}`)
    }
    const receipt = await this.receipt(chainId, hash)
    if (receipt === undefined) return 'pending'
    return receipt.status === 'success' ? true : 'reverted on chain'
  }

  private async signSolanaTransfer(route: SolanaRoute, destination: string, amount: bigint) {
    const { option } = route
    const payee = base58.decode(destination)
    if (payee.length !== 32) throw new Error(`destination ${destination} is not a Solana key`)
    const { message } = buildTokenTransfer({
      payer: this.treasury.solanaKey,
      payee,
      mint: base58.decode(option.mint),
      amount,
      decimals: option.decimals,
      recentBlockhash: await latestBlockhash(option.rpcUrl),
    })
    const signature = ed25519.sign(message, Buffer.from(this.treasury.keys.solanaSeed.slice(2), 'hex'))
    const wire = concatBytes(encodeShortVec(1), signature, message)
    return { wire: encodeBase64(wire), txHash: base58.encode(signature) }
  }

  /**
   * Sends (again, after a restart) and asks the runtime about the signature: true once it executed and is
   * confirmed; why not when it failed on chain, or when it can no longer land (its blockhash expired and the
   * signature is unknown); 'pending' otherwise. A send that errors proves nothing (the node may have taken it
   * before the reply was lost), so only those answers let the caller drop the signed bytes and sign anew.
   */
  private async broadcastSolana(
    route: SolanaRoute,
    wire: string,
    signature: string,
  ): Promise<true | 'pending' | string> {
    const { rpcUrl } = route.option
    let sendError: string | undefined
    try {
      await runtimeRpc(rpcUrl, 'sendTransaction', [wire, { encoding: 'base64' }])
    } catch (error) {
      // Refused, already executed (a broadcast before a restart), or the reply was lost: the status decides.
      sendError = (error as Error).message.split('\n')[0]
      this.options.log(`broadcast ${signature}: ${sendError}`)
    }
    const blockhash = base58.encode(
      decodeTransaction(decodeBase64(wire, 'settling.wire'), 'settling.wire').message.recentBlockhash,
    )
    const deadline = Date.now() + this.options.confirmTimeoutMs
    for (;;) {
      try {
        // The blockhash first: expired before a status that still says nothing means it never can land.
        const valid = (await runtimeRpc(rpcUrl, 'isBlockhashValid', [
          blockhash,
          { commitment: 'processed' },
        ])) as {
          value?: unknown
        }
        const statuses = (await runtimeRpc(rpcUrl, 'getSignatureStatuses', [
          [signature],
          { searchTransactionHistory: true },
        ])) as { value?: ({ err?: unknown; confirmationStatus?: string | null } | null)[] }
        const status = statuses.value?.[0]
        if (status !== null && status !== undefined) {
          if (status.err !== null && status.err !== undefined)
            return `failed on chain: ${JSON.stringify(status.err)}`
          if (status.confirmationStatus === 'confirmed' || status.confirmationStatus === 'finalized')
            return true
        } else if (valid.value === false) {
          return `never landed, its blockhash expired${sendError === undefined ? '' : ` (${sendError})`}`
        }
      } catch (error) {
        // The runtime did not answer: nothing is known; ask again until the deadline.
        this.options.log(`status of ${signature}: ${(error as Error).message.split('\n')[0]}`)
      }
      if (this.stopped || Date.now() + this.options.pollMs > deadline) return 'pending'
      await sleep(this.options.pollMs)
    }
  }

  /** After a restart: payments still being checked are checked again, succeeded ones not yet settled settle. */
  resume(): void {
    for (const payment of this.state.payments.values()) {
      const hash = payment.chosen?.transactionHash
      if (hash !== undefined && payment.status !== 'failed') this.claimed.set(hash.toLowerCase(), payment.id)
    }
    for (const payment of this.state.payments.values()) {
      if (payment.status === 'processing' && payment.chosen !== undefined) this.verify(payment)
      if (payment.status === 'succeeded' && payment.settlement === undefined) this.settle(payment)
    }
  }

  /** Chain work never crashes the process: a failure is logged and the payment stays as it is. */
  private async run(label: string, task: () => Promise<void>): Promise<void> {
    try {
      await task()
    } catch (error) {
      if (!this.stopped) this.options.log(`${label}: ${(error as Error).message.split('\n')[0]}`)
    }
  }

  /** Resolves once every settlement queued so far has finished (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.queues.values()])
  }

  stop(): void {
    this.stopped = true
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())
