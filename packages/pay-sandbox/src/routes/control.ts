import { ok, type Route } from '../context.js'
import type { PaySandboxControl } from '../control.js'
import { badRequest, PayHttpError } from '../errors.js'
import { checkFaultPlan } from '../faults.js'

type ActionName =
  | 'succeed'
  | 'fail'
  | 'expire'
  | 'cancel'
  | 'process'
  | 'settle'
  | 'expire-routes'
  | 'require-collect-data'

const actions: Record<ActionName, (control: PaySandboxControl, id: string, reason?: string) => void> = {
  succeed: (control, id) => control.succeed(id),
  fail: (control, id, reason) => control.fail(id, reason),
  expire: (control, id) => control.expire(id),
  cancel: (control, id, reason) => control.cancel(id, reason),
  process: (control, id) => control.process(id),
  settle: (control, id) => control.settle(id),
  'expire-routes': (control, id) => control.expireRoutes(id),
  'require-collect-data': (control, id) => control.requireCollectData(id),
}

/** The simulation console over HTTP (for the CLI sandbox): `POST /_sandbox/payments/{id}/{action}`. */
export function controlRoutes(control: PaySandboxControl): Route[] {
  return [
    {
      method: 'GET',
      path: '/_sandbox/payments/:id',
      auth: 'apiKey',
      handle: (context) => ok({ payment: control.payment(context.params.id!) }),
    },
    {
      method: 'POST',
      path: '/_sandbox/payments/:id/:action',
      auth: 'apiKey',
      handle: (context) => {
        const name = context.params.action!
        if (!Object.hasOwn(actions, name)) {
          throw new PayHttpError(
            404,
            'not_found',
            `unknown control ${name}; one of ${Object.keys(actions).join(', ')}`,
          )
        }
        const body = context.body as { reason?: unknown } | undefined
        const reason = typeof body?.reason === 'string' ? body.reason.slice(0, 500) : undefined
        actions[name as ActionName](control, context.params.id!, reason)
        return ok({ payment: control.payment(context.params.id!) })
      },
    },
    {
      method: 'GET',
      path: '/_sandbox/events',
      auth: 'apiKey',
      handle: () => ok({ data: control.events() }),
    },
  ]
}

/**
 * The fault mode per test: `PUT /_sandbox/faults` with a plan (see `FaultPlan`) replaces the active one and resets
 * its counters and log; `GET` shows the plan and every fault injected since; `DELETE` turns faults off.
 */
export const faultRoutes: Route[] = [
  {
    method: 'GET',
    path: '/_sandbox/faults',
    auth: 'apiKey',
    handle: (context) => {
      const { faults } = context.sandbox
      return ok({ plan: faults.plan, active: faults.active, log: faults.log })
    },
  },
  {
    method: 'PUT',
    path: '/_sandbox/faults',
    auth: 'apiKey',
    handle: (context) => {
      const { faults } = context.sandbox
      try {
        faults.set(checkFaultPlan(context.body ?? {}))
      } catch (error) {
        throw badRequest(error instanceof Error ? error.message : 'invalid fault plan')
      }
      return ok({ plan: faults.plan, active: faults.active })
    },
  },
  {
    method: 'DELETE',
    path: '/_sandbox/faults',
    auth: 'apiKey',
    handle: (context) => {
      context.sandbox.faults.set({})
      return ok({ plan: context.sandbox.faults.plan, active: false })
    },
  },
]
