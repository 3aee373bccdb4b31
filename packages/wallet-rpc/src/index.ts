export { type Clock, fixedClock, systemClock } from './core/clock.js'
export {
  ChainNotConfiguredError,
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  type JsonRpcErrorObject,
  MethodNotFoundError,
  MethodNotSupportedError,
  ParseError,
  PolicyRefusedError,
  ProviderError,
  RequestExpiredError,
  serializeError,
  UnauthorizedError,
  UserRejectedError,
  WalletRpcError,
  type WalletRpcErrorOptions,
} from './core/errors.js'
export type { WalletEvent, WalletEventListener } from './core/events.js'
export type {
  AssetEffect,
  ExpectedPayment,
  PaymentExposure,
  SpenderExposure,
} from './core/expectation.js'
export {
  type JournalRecord,
  type JournalState,
  type JournalSteps,
  JournalUnavailableError,
  type JsonValue,
  type KeyValueStorage,
  memoryStorage,
  RequestKeyReusedError,
} from './core/journal.js'
export type {
  JsonRpcFailure,
  JsonRpcId,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccess,
} from './core/jsonrpc.js'
export {
  type AnyMethod,
  defineMethod,
  type Method,
  type MethodTable,
  type Namespace,
  type NamespaceHost,
  type Planned,
  type RequestContext,
} from './core/namespace.js'
export type {
  ApprovalPolicy,
  Approve,
  OriginValidation,
  Review,
  ReviewDraft,
  ReviewItem,
  ReviewWarning,
  Severity,
  SignInRequest,
} from './core/review.js'
export {
  type CreateWalletRpcOptions,
  createWalletRpc,
  type HandleInput,
  type HandleOptions,
  type SessionRequestEvent,
  type SupportedNamespace,
  type WalletRpc,
} from './createWalletRpc.js'
export {
  type ActiveBackends,
  activeBackends,
  type CryptoBackends,
  useCrypto,
} from './crypto/backends.js'
export type {
  Ed25519Backend,
  Ed25519Key,
  Secp256k1,
  Secp256k1Backend,
  Sha256Backend,
} from './crypto/registry.js'
