export {
  type CreatePayClientOptions,
  createPayClient,
  type PayClient,
  type PayHooks,
  type PaymentOption,
  type PaymentOptions,
  type PayResult,
  type WebViewOutcome,
} from './createPayClient.js'
