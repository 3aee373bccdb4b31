/**
 * `wallet-rpc/pay`: the wallet side of the payment gateway, executed through the wallet's own router.
 *
 * ```ts
 * import { createPayClient, isPaymentLink } from 'wallet-rpc/pay'
 * if (isPaymentLink(scanned)) {                       // before treating it as a pairing URI
 *   const pay = createPayClient({ baseUrl, apiKey, wallet })   // wallet = createWalletRpc({...})
 *   const options = await pay.getOptions(scanned, { includePaymentInfo: true })
 *   const option = options.options.find((o) => o.available)   // countdown: pay.remainingMs(options)
 *   const { status } = await pay.pay(scanned, option.id, { options, webView, collectData })
 * }
 * ```
 * Every action runs through `wallet.handle`, so the wallet's `approve` sees each one with the payment
 * context (merchant, amount, option, "action i of n"). Failures are typed `PayError`s with the gateway's code.
 */

export { executePayActions, formatAmount, type SdkPayAction } from './client/actions.js'
export {
  type CollectDataRequirement,
  type CollectedData,
  collectDataRequirement,
} from './client/collectData.js'
export {
  type CreatePayClientOptions,
  createPayClient,
  type PayClient,
  type PayHooks,
  type PaymentOption,
  type PaymentOptions,
  type PayResult,
  type WebViewOutcome,
} from './client/index.js'
export { backoffDelayMs, defaultRetry, type RetryOptions } from './client/retry.js'
export type {
  Action,
  Amount,
  CollectData,
  PaymentInfo,
  PaymentStatus,
  WalletRpcAction,
} from './client/shapes.js'
export type { FetchLike, GatewayAuth } from './client/transport.js'
export {
  CollectDataError,
  GatewayError,
  InvalidPaymentLinkError,
  OptionUnavailableError,
  PayAbortedError,
  PayActionError,
  PayError,
  type PayErrorOptions,
  PaymentExpiredError,
  PayNetworkError,
  PayProtocolError,
  PayTimeoutError,
  RouteExpiredError,
} from './errors.js'
export {
  defaultCheckoutHost,
  isPaymentId,
  isPaymentLink,
  type PaymentLinkOptions,
  parsePaymentLink,
} from './links.js'
export type { WebhookEvent, WebhookPaymentSnapshot } from './webhook/parseEvent.js'
export {
  type CreateWebhookReceiverOptions,
  createWebhookReceiver,
  type WebhookReceiver,
  type WebhookReceiverOutcome,
  type WebhookReceiverResult,
  type WebhookSecrets,
} from './webhook/receiver.js'
export {
  signWebhook,
  verifyWebhook,
  type WebhookHeaders,
  type WebhookVerification,
  type WebhookVerifyFailure,
  type WebhookVerifyOptions,
  webhookSecretKey,
  webhookSignature,
} from './webhook/signature.js'
export {
  createMemoryWebhookStore,
  type MemoryWebhookStore,
  type WebhookClaim,
  type WebhookReceiverStore,
  type WebhookRecordRequest,
  type WebhookRecordResult,
} from './webhook/store.js'
