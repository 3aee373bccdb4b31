import type { Route } from '../../context.js'
import type { PaySandboxControl } from '../../control.js'
import { merchantRoutes } from './merchantsPage.js'
import { paymentRoutes } from './paymentPage.js'
import { paymentsPage } from './paymentsPage.js'
import { dashboardHome, signInPage, signInSubmit, signOut } from './signIn.js'
import { webhookRoutes } from './webhooksPage.js'

/**
 * The merchant dashboard at /dashboard: server-rendered pages over the API's own handlers, plain forms
 * (POST-redirect-GET), no script. Sessions are server-side behind an HttpOnly, SameSite=Strict cookie; every
 * POST needs the session's CSRF token and a same-origin Origin.
 */
export function dashboardRoutes(control: PaySandboxControl): Route[] {
  return [
    dashboardHome,
    signInPage,
    signInSubmit,
    signOut,
    paymentsPage,
    ...paymentRoutes(control),
    ...webhookRoutes,
    ...merchantRoutes,
  ]
}
