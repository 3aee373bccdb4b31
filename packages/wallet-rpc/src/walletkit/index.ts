/**
 * `wallet-rpc/walletkit`: plugs a wallet built with `createWalletRpc()` into `@reown/walletkit`.
 * Needs the optional peer dependencies `@reown/walletkit`, `@walletconnect/utils` and
 * `@walletconnect/types`; loads no namespace's dependencies.
 *
 * @example
 * ```ts
 * import { WalletKit } from '@reown/walletkit'
 * import { attachWalletKit } from 'wallet-rpc/walletkit'
 * const wallet = createWalletRpc({ namespaces: [bip122({ ... })], approve: (review) => ui.confirm(review) })
 * const walletKit = await WalletKit.init({ core, metadata })
 * const adapter = attachWalletKit(walletKit, wallet, { approveSession: (proposal) => ui.connect(proposal) })
 * ```
 */
export type { ConnectPayments } from '../core/connectPayment.js'
export { attachWalletKit } from './attachWalletKit.js'
export {
  type ExplorerReviewOptions,
  type ListedEntry,
  listingFacts,
  type SessionListingFacts,
} from './explorerListing.js'
export type {
  AssetInfo,
  AuthenticationProof,
  AuthenticationReview,
  PaymentOptionReview,
  ProposalRequestsReview,
  ProposerOrigin,
  SessionApprovalAnswer,
  WalletPayReview,
} from './proposalRequests/index.js'
export { buildSessionApproval, type SessionApproval, SessionProposalRefusedError } from './sessionApproval.js'
export { topicsListeningTo } from './sessionEvents.js'
export { answerSessionRequest, originRefusal } from './sessionRequest.js'
export type {
  AttachWalletKitOptions,
  SdkErrorReason,
  SessionProposalEvent,
  SessionProposalReview,
  SessionRequestEvent,
  SessionResponse,
  WalletKitAdapter,
  WalletKitLike,
  WalletRpcLike,
} from './types.js'
