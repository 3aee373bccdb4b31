import type { Clock } from 'wallet-rpc'
import { currencyOf } from './currencies.js'
import { PayHttpError } from './errors.js'
import { iso, newId, randomHex } from './ids.js'
import {
  type EventType,
  finalStatuses,
  type Merchant,
  type MinorAmount,
  type Payment,
  type PaymentEvent,
  type PaymentStatus,
  type Persist,
  type RestoredState,
  type Route,
} from './model.js'

export type FeeConfig = {
  /** Fixed part in minor units of the payment's currency. */
  fixed: string
  /** Decimal percentage, not a ratio: '0.4' means 0.4 %. */
  percentage: string
}

export type StateOptions = {
  clock: Clock
  apiVersion: string
  paymentTtlMs: number
  checkoutUrl: string
  fee: FeeConfig | null
  onEvent: (event: PaymentEvent) => void
  /** Writes changed entities to the durable journal (`--data`); absent in memory. */
  persist?: Persist
  /** Live mode: snapshots say `live: true` and carry the chain's transaction hash as `tx_id`. */
  live?: boolean
}

/** Allowed transitions. Settlement is a stage of `succeeded`, handled by `settle`, not a status. */
const transitions: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  requires_action: ['processing', 'succeeded', 'failed', 'expired', 'cancelled'],
  processing: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
  expired: [],
  cancelled: [],
}

/**
 * The sandbox's in-memory book: merchants, payments, their state machine and the events each change emits.
 * Every change bumps `payment_state_version` (from 0 at creation) and emits one event carrying a full snapshot.
 */
/** Long polls held at once, per payment and in all (each holds a socket and a timer). */
export const maxWaitersPerPayment = 64
export const maxWaiters = 4096

export class SandboxState {
  readonly merchants = new Map<string, Merchant>()
  readonly payments = new Map<string, Payment>()
  readonly events: PaymentEvent[] = []
  private readonly waiters = new Map<string, Set<() => void>>()
  private readonly timers = new Set<NodeJS.Timeout>()

  constructor(private readonly options: StateOptions) {}

  get live(): boolean {
    return this.options.live === true
  }

  /** The spec's `txId`: `test:<payment_id>` in test mode, the chain's transaction hash (null before one) live. */
  txId(payment: Payment): string | null {
    return this.live ? (payment.chosen?.transactionHash ?? null) : `test:${payment.id}`
  }

  get feeConfig(): FeeConfig | null {
    return this.options.fee
  }

  now(): number {
    return this.options.clock()
  }

  createMerchant(name: string, email: string, iconUrl: string | null = null): Merchant {
    const merchant: Merchant = {
      id: newId('mrch_'),
      name,
      email,
      iconUrl,
      status: 'active',
      createdAt: this.now(),
      settlements: [],
    }
    this.merchants.set(merchant.id, merchant)
    this.saveMerchant(merchant)
    return merchant
  }

  /** Journals a merchant after a change made outside this class (settlement configuration). */
  saveMerchant(merchant: Merchant): void {
    this.options.persist?.({ k: 'merchant', v: merchant })
  }

  /** Journals a payment after a change that emits no event (options offered, build fetched, data collected). */
  save(payment: Payment): void {
    this.options.persist?.({ k: 'payment', v: payment })
  }

  /**
   * Takes over a journal's merchants, payments and events, and re-arms the payment-window timers (the other
   * timers belong to the caller: processing and settlement).
   */
  restore(restored: RestoredState): void {
    for (const [id, merchant] of restored.merchants) this.merchants.set(id, merchant)
    for (const [id, payment] of restored.payments) {
      this.payments.set(id, payment)
      if (payment.status === 'requires_action') {
        this.after(payment.expiresAt - this.now(), () => this.refresh(payment))
      }
    }
    this.events.push(...restored.events.values())
  }

  createPayment(input: {
    merchantId: string
    referenceId: string
    amount: MinorAmount
    flavour: Payment['flavour']
    checkout: Payment['checkout']
  }): Payment {
    const now = this.now()
    const payment: Payment = {
      id: newId('pay_'),
      merchantId: input.merchantId,
      referenceId: input.referenceId,
      amount: input.amount,
      flavour: input.flavour,
      checkout: input.checkout,
      status: 'requires_action',
      stateVersion: 0,
      createdAt: now,
      updatedAt: now,
      expiresAt: now + this.options.paymentTtlMs,
      failureReason: null,
      cancellationReason: null,
      routes: new Map(),
      collectData: false,
    }
    this.payments.set(payment.id, payment)
    this.emit(payment, 'payment.created')
    this.after(this.options.paymentTtlMs, () => this.refresh(payment))
    return payment
  }

  paymentLink(payment: Payment): string {
    return `${this.options.checkoutUrl}/${payment.id}`
  }

  /** The payment, with lazy expiry applied; 404 when unknown. */
  payment(id: string): Payment {
    const payment = this.payments.get(id)
    if (payment === undefined) throw new PayHttpError(404, 'payment_not_found', `no payment ${id}`)
    this.refresh(payment)
    return payment
  }

  /** A payment awaiting the buyer expires once its window closed (checked on every access and by a timer). */
  refresh(payment: Payment): void {
    if (payment.status === 'requires_action' && this.now() >= payment.expiresAt) {
      this.transition(payment, 'expired', { reason: 'payment window closed' })
    }
  }

  isFinal(payment: Payment): boolean {
    return finalStatuses.has(payment.status)
  }

  transition(payment: Payment, to: PaymentStatus, detail: { reason?: string } = {}): void {
    if (!transitions[payment.status].includes(to)) {
      throw new PayHttpError(409, 'invalid_transition', `a ${payment.status} payment cannot become ${to}`)
    }
    payment.status = to
    if (to === 'failed') payment.failureReason = detail.reason ?? 'failed in the sandbox'
    if (to === 'cancelled') payment.cancellationReason = detail.reason ?? 'cancelled in the sandbox'
    if (to === 'expired') payment.expiresAt = Math.min(payment.expiresAt, this.now())
    this.emit(payment, `payment.${to}` as EventType)
  }

  /** Settlement of a succeeded payment: status stays succeeded, the settlement object fills, payment.settled fires. */
  settle(payment: Payment, txHash?: string): void {
    if (payment.status !== 'succeeded') {
      throw new PayHttpError(409, 'invalid_transition', `a ${payment.status} payment cannot settle`)
    }
    if (payment.settlement !== undefined) {
      throw new PayHttpError(409, 'invalid_transition', 'the payment is already settled')
    }
    const net = this.netAmount(payment)
    // Test mode invents the hash (no funds move); live mode passes the settlement transfer's real one.
    payment.settlement = { settledAt: this.now(), txHash: txHash ?? randomHex(32), amount: net }
    this.emit(payment, 'payment.settled')
  }

  /** Fee in minor units of the payment currency, or null when no fee is configured. */
  fee(payment: Payment): MinorAmount | null {
    const fee = this.options.fee
    if (fee === null) return null
    const [whole = '0', fraction = ''] = fee.percentage.split('.')
    const scale = 10n ** BigInt(fraction.length)
    const percent = BigInt(whole) * scale + BigInt(fraction || '0')
    const divisor = 100n * scale
    const value = BigInt(payment.amount.value)
    const variable = (value * percent + divisor - 1n) / divisor
    return { unit: payment.amount.unit, value: String(BigInt(fee.fixed) + variable) }
  }

  netAmount(payment: Payment): MinorAmount {
    const fee = this.fee(payment)
    const value = BigInt(payment.amount.value) - BigInt(fee?.value ?? '0')
    return { unit: payment.amount.unit, value: String(value < 0n ? 0n : value) }
  }

  /** Resolves when the payment's state version moves past `version`, after `ms`, or on stop. */
  waitForChange(payment: Payment, version: number, ms: number): Promise<void> {
    if (payment.stateVersion !== version || ms <= 0) return Promise.resolve()
    return this.wait(payment.id, ms)
  }

  /** Resolves after `ms` or on stop, whatever happens to the payment: the fault mode's long poll held to its limit. */
  hold(ms: number): Promise<void> {
    // No payment has the empty id, so no event wakes these waiters early.
    return ms <= 0 ? Promise.resolve() : this.wait('', ms)
  }

  /** Resolves after `ms`, when an event of payment `key` fires, or on stop. */
  private wait(key: string, ms: number): Promise<void> {
    const held = this.waiters.get(key)?.size ?? 0
    // Bounded: anyone who knows a pay id may long-poll it (the checkout page); past the caps a poll answers at
    // once, as a long poll may.
    if (held >= maxWaitersPerPayment || this.timers.size >= maxWaiters) return Promise.resolve()
    return new Promise((resolve) => {
      const set = this.waiters.get(key) ?? new Set()
      this.waiters.set(key, set)
      const done = () => {
        clearTimeout(timer)
        this.timers.delete(timer)
        set.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      timer.unref()
      this.timers.add(timer)
      set.add(done)
    })
  }

  /** Runs `action` after `ms` unless the sandbox stopped; errors (e.g. a transition no longer allowed) are dropped. */
  after(ms: number, action: () => void): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer)
        try {
          action()
        } catch (error) {
          if (!(error instanceof PayHttpError)) throw error
        }
      },
      Math.min(Math.max(0, ms), 2 ** 31 - 1),
    )
    timer.unref()
    this.timers.add(timer)
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
    for (const set of this.waiters.values()) for (const done of [...set]) done()
  }

  /** The webhook `data` snapshot of the payment at this moment (snake_case, a full snapshot, never a delta). */
  snapshot(payment: Payment): Record<string, unknown> {
    const fee = this.fee(payment)
    const chosen = payment.chosen?.route
    return {
      payment_id: payment.id,
      payment_state_version: payment.stateVersion,
      status: payment.status,
      live: this.live,
      merchant_id: payment.merchantId,
      reference_id: payment.referenceId,
      amount: payment.amount,
      token_amount: chosen === undefined ? null : tokenAmount(chosen),
      buyer: chosen === undefined ? null : { account_caip10: chosen.account },
      tx_id: this.txId(payment),
      created_at: iso(payment.createdAt),
      updated_at: iso(payment.updatedAt),
      expires_at: iso(payment.expiresAt),
      fee: fee === null ? null : { kind: 'base_plus_percent', total_amount: fee },
      processing: { fee: fee === null ? null : { kind: 'base_plus_percent', total_amount: fee } },
      failure_reason: payment.failureReason,
      cancellation_reason: payment.cancellationReason,
      settlement:
        payment.settlement === undefined
          ? { settled: false }
          : { settled: true, amount: payment.settlement.amount, tx_hash: payment.settlement.txHash },
      settled_at: payment.settlement === undefined ? null : iso(payment.settlement.settledAt),
    }
  }

  private emit(payment: Payment, type: EventType): void {
    if (type !== 'payment.created') payment.stateVersion++
    payment.updatedAt = this.now()
    const event: PaymentEvent = {
      id: newId('evt_'),
      type,
      api_version: this.options.apiVersion,
      created_at: iso(this.now()),
      data: this.snapshot(payment),
    }
    this.events.push(event)
    // On disk before anyone hears of it: a delivered event is never forgotten by a restart.
    this.options.persist?.({ k: 'payment', v: payment }, { k: 'event', v: event })
    this.options.onEvent(event)
    const set = this.waiters.get(payment.id)
    if (set !== undefined) for (const done of [...set]) done()
  }
}

/** The route's token amount (`caip19/` unit, minor units): the status `optionAmount`, the webhook `token_amount`. */
export const tokenAmount = (route: Route): MinorAmount => ({
  unit: `caip19/${route.asset}`,
  value: String(route.tokenValue),
})

/** The spec's TokenAmount with its display, as gateway options and list items show it. */
export function tokenAmountWithDisplay(route: Route): Record<string, unknown> {
  return {
    ...tokenAmount(route),
    display: {
      assetSymbol: route.display.symbol,
      assetName: route.display.name,
      decimals: route.display.decimals,
      networkName: route.display.networkName,
    },
  }
}

export function fiatDisplay(amount: MinorAmount): Record<string, unknown> {
  const currency = currencyOf(amount.unit)
  return {
    unit: amount.unit,
    value: amount.value,
    display: {
      assetSymbol: currency?.code ?? amount.unit.slice('iso4217/'.length),
      assetName: currency?.name ?? amount.unit.slice('iso4217/'.length),
      decimals: currency?.decimals ?? 2,
    },
  }
}
