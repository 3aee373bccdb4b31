import type { Route } from '../context.js'
import type { PaySandboxControl } from '../control.js'
import { explorerRoutes } from '../explorer/routes.js'
import { checkoutRoutes } from '../web/checkout/routes.js'
import { dashboardRoutes } from '../web/dashboard/index.js'
import { collectPage, collectSubmit } from './collect.js'
import { controlRoutes, faultRoutes } from './control.js'
import {
  gatewayCancel,
  gatewayConfirm,
  gatewayFetch,
  gatewayOptions,
  gatewayPaymentInfo,
  gatewayStatus,
} from './gateway.js'
import { withGatewayFaults } from './gatewayFaults.js'
import { listPayments } from './listPayments.js'
import {
  createCryptoSettlements,
  createMerchant,
  listCryptoSettlements,
  listMerchants,
  updateCryptoSettlement,
} from './merchants.js'
import { withPaymentLink } from './paymentLink.js'
import { checkoutPaymentStatus, createCheckoutPayment, createPayment, paymentStatus } from './payments.js'
import {
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  putWebhookEndpoint,
  replayEvents,
  resendFailedDeliveries,
  resendWebhookDelivery,
  revealWebhookSecret,
  rotateWebhookSecret,
  sendTestEvent,
} from './webhookEndpoint.js'

/** Every endpoint of the sandbox, one entry each (the README lists the same table with bodies). */
export function routes(control: PaySandboxControl): Route[] {
  return [
    createMerchant,
    listMerchants,
    createCryptoSettlements,
    listCryptoSettlements,
    updateCryptoSettlement,
    createPayment,
    listPayments,
    paymentStatus,
    createCheckoutPayment,
    checkoutPaymentStatus,
    withPaymentLink(withGatewayFaults('options', gatewayOptions)),
    withPaymentLink(withGatewayFaults('fetch', gatewayFetch)),
    withPaymentLink(withGatewayFaults('confirm', gatewayConfirm)),
    withPaymentLink(withGatewayFaults('status', gatewayStatus)),
    withPaymentLink(withGatewayFaults('info', gatewayPaymentInfo)),
    withPaymentLink(withGatewayFaults('cancel', gatewayCancel)),
    putWebhookEndpoint,
    getWebhookEndpoint,
    deleteWebhookEndpoint,
    revealWebhookSecret,
    rotateWebhookSecret,
    listWebhookDeliveries,
    resendWebhookDelivery,
    resendFailedDeliveries,
    replayEvents,
    sendTestEvent,
    collectPage,
    collectSubmit,
    ...controlRoutes(control),
    ...faultRoutes,
    ...dashboardRoutes(control),
    ...explorerRoutes(),
    ...checkoutRoutes,
  ]
}
