import type { RequestContext, Route } from '../context.js'
import { type GatewayFault, type GatewayRouteName, gatewayFaultError } from '../faults.js'

/**
 * A gateway route under the fault mode: a planned fault answers instead of the route (`before`) or replaces the
 * answer of a call that was carried out (`after`). 409 and 410 are made true first (the routes, or the payment,
 * expire), so the wallet's recovery meets the state the codes promise; when they cannot be true (the payment is
 * no longer awaiting the buyer) the fault is not injected.
 */
export function withGatewayFaults(name: GatewayRouteName, route: Route): Route {
  return {
    ...route,
    handle: async (context) => {
      const { faults, state } = context.sandbox
      if (!faults.active) return route.handle(context)
      const id = context.params.id!
      const ordinal = () => [...state.payments.keys()].indexOf(id)
      const before = faults.gateway(name, id, ordinal, 'before')
      if (before !== undefined && makeTrue(context, id, before)) throw gatewayFaultError(before)
      const reply = await route.handle(context)
      const after = faults.gateway(name, id, ordinal, 'after')
      if (after !== undefined && makeTrue(context, id, after)) throw gatewayFaultError(after)
      return reply
    },
  }
}

function makeTrue(context: RequestContext, paymentId: string, fault: GatewayFault): boolean {
  if (fault.status !== 409 && fault.status !== 410) return true
  const { state } = context.sandbox
  const payment = state.payments.get(paymentId)
  if (payment === undefined || payment.status !== 'requires_action') return false
  if (fault.status === 409) for (const option of payment.routes.values()) option.forcedExpired = true
  else state.transition(payment, 'expired', { reason: 'expired by the fault mode' })
  return true
}
