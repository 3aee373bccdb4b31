// Filled in by the pay issue; the subpath resolves from day one.

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
export {
  signWebhook,
  verifyWebhook,
  type WebhookHeaders,
  type WebhookVerification,
  type WebhookVerifyFailure,
  type WebhookVerifyOptions,
  webhookSecretKey,
  webhookSignature,
} from './webhooks.js'
