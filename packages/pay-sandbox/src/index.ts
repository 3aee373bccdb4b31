/**
 * `@wallet-rpc/pay-sandbox` (also `wallet-rpc/pay/sandbox`): the local payment service. Options and the handle
 * in options.ts, the composition in start.ts.
 */
export { associatedTokenAccount } from './associatedToken.js'
export type { PaySandboxControl } from './control.js'
export {
  type FaultPlan,
  type FaultRecord,
  type GatewayFault,
  type HostileAction,
  parseFaultSpec,
} from './faults.js'
export type { ActionLayout } from './gatewayOptions.js'
export {
  knownTokens,
  permit2Address,
  sandboxCollector,
  sandboxSpender,
  sandboxTokenAddress,
} from './gatewayOptions.js'
export type { LiveEvmChain } from './live/engine.js'
export type { LiveModeOptions } from './live/setup.js'
export { deployLiveToken, devMnemonic, liveTokenAt } from './live/token.js'
export type { Treasury, TreasuryKeys } from './live/treasury.js'
export type {
  EventType,
  PaymentEvent,
  PaymentStatus,
  TokenConfig,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
} from './model.js'
export { eventTypes } from './model.js'
export {
  type PaySandbox,
  type PaySandboxLive,
  type PaySandboxOptions,
  sandboxApiVersion,
  walletClientApiVersion,
} from './options.js'
export {
  type ReceivedWebhook,
  startWebhookReceiver,
  WebhookInbox,
  type WebhookReceiver,
  type WebhookReceiverOptions,
} from './receiver.js'
export { startPaySandbox } from './start.js'
export type { FeeConfig } from './state.js'
export type { ChainReader } from './verifyResults.js'
export { retryScheduleMs } from './webhookDelivery.js'
