import type { PublicClient } from 'viem'
import type { Payment, Route, SolanaTokenOption } from '../model.js'
import type { SandboxState } from '../state.js'
import { type Failure, firstLine, type LiveChain } from './chain.js'
import { EvmLiveChains, type LiveEvmChain } from './evmChain.js'
import { SolanaLiveChain } from './solanaChain.js'
import type { Treasury } from './treasury.js'

export type { LiveEvmChain } from './evmChain.js'

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

/**
 * Live mode's chain work. Confirm moves a payment to `processing` and hands it here: the payment's chain
 * (`evmChain.ts`, `solanaChain.ts`) judges its transaction (bounded), and the payment succeeds or fails on that
 * verdict. A succeeded payment is then settled: the net amount (after the spec's fee) goes from the treasury to
 * the merchant's settlement destination for the asset in a real transfer, signed and journaled before it is
 * broadcast, and `payment.settled` carries its hash.
 */
export class LiveEngine {
  private readonly evm: EvmLiveChains
  private readonly solana: SolanaLiveChain
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
    const chainOptions = { ...options, stopped: () => this.stopped }
    this.evm = new EvmLiveChains(options.evm, chainOptions)
    this.solana = new SolanaLiveChain(chainOptions)
  }

  get treasury(): Treasury {
    return this.options.treasury
  }

  /** The live token of an EVM chain, or undefined when live mode has no such chain. */
  token(chainId: string) {
    return this.evm.token(chainId)
  }

  client(chainId: string): PublicClient {
    return this.evm.client(chainId)
  }

  /** The chain's current block: a live option's payment must be mined at or after it. */
  blockNumber(chainId: string): Promise<bigint> {
    return this.client(chainId).getBlockNumber({ cacheTime: 0 })
  }

  /** The chain a route pays on; each chain is only ever handed routes of its own kind. */
  private chainOf(route: Route): LiveChain<Route> {
    return (route.kind === 'evm' ? this.evm : this.solana) as LiveChain<Route>
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
    const failure = await this.chainOf(route).check(route, hash)
    if (failure !== undefined) this.claimed.delete(key)
    return failure
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
    const entry = entries.find((candidate) => this.chainOf(route).sameAsset(route, candidate.asset))
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
    const chain = this.chainOf(route)
    if (payment.settling === undefined) {
      const destination = this.destination(payment)
      if (destination === undefined) {
        this.options.log(
          `payment ${payment.id}: merchant ${payment.merchantId} has no settlement destination for ${route.asset}; not settled (register one, then POST /_sandbox/payments/${payment.id}/settle)`,
        )
        return
      }
      const amount = this.netTokenValue(payment, route.tokenValue)
      const signed = await chain.signTransfer(route, destination, amount)
      // On disk before it is broadcast: a restart sends these same bytes again, never a second transfer.
      payment.settling = { ...signed, amount, destination }
      this.state.save(payment)
    }
    const settling = payment.settling
    const mined = await chain.broadcast(route, settling)
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
      if (!this.stopped) this.options.log(`${label}: ${firstLine(error)}`)
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
