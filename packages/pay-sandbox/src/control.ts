import { PayHttpError } from './errors.js'
import type { LiveEngine } from './live/engine.js'
import type { Payment, PaymentEvent } from './model.js'
import type { SandboxState } from './state.js'

/** Test controls: the simulation console's transitions, driven from code (and over HTTP under `/_sandbox/`). */
export type PaySandboxControl = {
  /** requires_action or processing → succeeded (settlement follows automatically unless settlementMs is null). */
  succeed(paymentId: string): void
  /** requires_action or processing → failed. */
  fail(paymentId: string, reason?: string): void
  /** requires_action → expired (the gateway then answers 410). */
  expire(paymentId: string): void
  /** requires_action → cancelled. */
  cancel(paymentId: string, reason?: string): void
  /** requires_action → processing. */
  process(paymentId: string): void
  /** succeeded → settled stage (payment.settled). */
  settle(paymentId: string): void
  /** Expires every option route of the payment (fetch and confirm then answer 409). */
  expireRoutes(paymentId: string): void
  /** The payment's options (and the options response) carry collectData from now on. */
  requireCollectData(paymentId: string, required?: boolean): void
  /** The payment's webhook snapshot plus sandbox-only fields. */
  payment(paymentId: string): Record<string, unknown>
  /** Every event emitted so far, oldest first. */
  events(): PaymentEvent[]
}

/**
 * In live mode the chain decides: `succeed` and `process` are refused (a payment succeeds only when its transfer
 * is verified on the chain) and `settle` asks for the real settlement transfer again (after a merchant registered
 * its destination, or a failed attempt); failing, expiring and cancelling stay available.
 */
export function createControl(state: SandboxState, live?: LiveEngine): PaySandboxControl {
  const get = (id: string): Payment => state.payment(id)
  const chainDecides = () => {
    throw new PayHttpError(
      409,
      'invalid_transition',
      'a live payment succeeds only when the chain shows its transfer',
    )
  }
  return {
    succeed: (id) => (live === undefined ? state.transition(get(id), 'succeeded') : chainDecides()),
    fail: (id, reason) => state.transition(get(id), 'failed', reason === undefined ? {} : { reason }),
    expire: (id) => state.transition(get(id), 'expired', { reason: 'expired by the test control' }),
    cancel: (id, reason) => state.transition(get(id), 'cancelled', reason === undefined ? {} : { reason }),
    process: (id) => (live === undefined ? state.transition(get(id), 'processing') : chainDecides()),
    settle: (id) => {
      const payment = get(id)
      if (live === undefined) return state.settle(payment)
      if (payment.status !== 'succeeded' || payment.settlement !== undefined) {
        throw new PayHttpError(409, 'invalid_transition', 'only a succeeded, unsettled payment settles')
      }
      live.settle(payment)
    },
    expireRoutes: (id) => {
      const payment = get(id)
      for (const route of payment.routes.values()) route.forcedExpired = true
      state.save(payment)
    },
    requireCollectData: (id, required = true) => {
      const payment = get(id)
      if (state.isFinal(payment)) throw new PayHttpError(409, 'invalid_transition', 'the payment is final')
      payment.collectData = required
      state.save(payment)
    },
    payment: (id) => {
      const payment = get(id)
      return {
        ...state.snapshot(payment),
        flavour: payment.flavour,
        checkout: payment.checkout,
        collect_data: payment.collectData,
        collected_data: payment.collected ?? null,
        option_id: payment.chosen?.route.optionId ?? null,
        transaction_hash: payment.chosen?.transactionHash ?? null,
      }
    },
    events: () => [...state.events],
  }
}
