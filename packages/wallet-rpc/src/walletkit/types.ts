import type { IWalletKit, WalletKitTypes } from '@reown/walletkit'
import type { ProposalTypes, SessionTypes } from '@walletconnect/types'
import type { Clock } from '../core/clock.js'
import type { ConnectPayments } from '../core/connectPayment.js'
import type { KeyValueStorage } from '../core/journal.js'
import type { OriginValidation, ReviewWarning } from '../core/review.js'
import type { ExplorerReviewOptions, SessionListingFacts } from './explorerListing.js'
import type { AssetInfo, ProposalRequestsReview, SessionApprovalAnswer } from './proposalRequests/index.js'

export type { WalletRpcLike } from './walletRpcLike.js'

/**
 * The part of a `WalletKit` instance the adapter uses. A real `WalletKit` satisfies it; tests pass a
 * double typed with the same SDK signatures.
 */
export type WalletKitLike = Pick<
  IWalletKit,
  | 'on'
  | 'off'
  | 'approveSession'
  | 'rejectSession'
  | 'respondSessionRequest'
  | 'emitSessionEvent'
  | 'getActiveSessions'
  | 'getPendingSessionRequests'
> &
  // Optional so doubles written before it keep working; without it a switch cannot add a chain to the session.
  Partial<Pick<IWalletKit, 'updateSession'>>

/** What `rejectSession` and `disconnectSession` take as `reason`: `{ code, message }`. */
export type SdkErrorReason = Parameters<IWalletKit['rejectSession']>[0]['reason']

/** The JSON-RPC response `respondSessionRequest` sends. */
export type SessionResponse = Parameters<IWalletKit['respondSessionRequest']>[0]['response']

export type SessionProposalEvent = WalletKitTypes.SessionProposal
export type SessionRequestEvent = WalletKitTypes.SessionRequest

/** What the wallet's user is asked before a session is approved. */
export type SessionProposalReview = {
  /** The proposal id. */
  id: number
  /** How the dapp describes itself. Self-declared: show `origin` as the dapp's identity. */
  dapp: ProposalTypes.Struct['proposer']['metadata']
  /** The origin the Verify API saw, when it gave one. */
  origin: string | undefined
  originValidation: OriginValidation | undefined
  /** Exactly what approval shares: chains, CAIP-10 accounts, methods and events per namespace. */
  namespaces: SessionTypes.Namespaces
  /** The session properties approval sends (e.g. `bip122_getAccountAddresses`, `ton_getPublicKey`). */
  sessionProperties: Record<string, string>
  /** The proposal as WalletKit delivered it. */
  proposal: ProposalTypes.Struct
  /**
   * The requests the dapp put inside the proposal (`proposal.requests`): connect-time sign-in, with what each
   * signature proves and the sign-in rules' warnings; pay at connect (`walletPay`) with each accepted payment
   * decoded and the one approval pays. Absent when the proposal carries none.
   */
  requests?: ProposalRequestsReview
  /** With the `explorer` option: what the explorer lists for the dapp's origin (or that it was unavailable). */
  listing?: SessionListingFacts
  /**
   * What the user should know about the dapp (explorer: `explorer.impostor` and `explorer.origin_unverified`
   * cautions, `explorer.unavailable` info). Empty without the `explorer` option.
   */
  warnings: ReviewWarning[]
}

export type AttachWalletKitOptions = {
  /**
   * Asked once per session proposal, after the adapter has worked out what approval would share and
   * only when the wallet can serve the proposal. Resolve `true` to connect with every request of
   * `review.requests` it offers (sign-ins, the one payment), an object (`{ authentication: true }`) to connect
   * with only those set to `true`; anything else (or a throw) rejects the proposal with 5000. Each approved sign-in is then signed
   * through `wallet.handle()`, so the wallet's `approve` sees its own review with `context['session proposal']`.
   */
  approveSession: (review: SessionProposalReview) => SessionApprovalAnswer | Promise<SessionApprovalAnswer>
  /** Receives SDK failures and every other unexpected error. Nothing here reaches a dapp. */
  onError?: (error: unknown) => void
  /** Milliseconds since the epoch, for request and proposal expiry. Defaults to `Date.now`. */
  clock?: Clock
  /**
   * Answer the requests WalletKit already holds when the adapter attaches (they arrived before any
   * listener existed and would otherwise stall the session's request queue). Default `true`.
   */
  answerPendingRequests?: boolean
  /**
   * An explorer client (`createExplorerClient()` from `wallet-rpc/explorer`): each session proposal's review then
   * carries the listing facts for the dapp's origin. The lookup runs beside the approval's own work, is bounded
   * by `timeoutMs` (default 3000), and its failure only makes the review say "listing unavailable".
   */
  explorer?: ExplorerReviewOptions
  /**
   * Symbol and decimals of a CAIP-19 asset (`eip155:1/erc20:0x…`), read from the wallet's chain, for the
   * payments a proposal's `walletPay` offers. Without it the review shows ERC-20 amounts in minor units.
   */
  assetInfo?: (asset: string) => Promise<AssetInfo | undefined>
  /**
   * How to pay `walletPay` options on namespaces other than eip155, e.g. `[solanaConnectPayments({ providers })]`
   * from `wallet-rpc/solana` (SOL and SPL tokens, decimals read from the chain). Without one, such options are
   * listed as not offered.
   */
  payments?: readonly ConnectPayments[]
  /**
   * Where the request journal is kept, so a request WalletKit delivers again (after a crash, a lost answer, a
   * restart) replays its answer or re-sends its signed bytes instead of asking and sending twice. Default:
   * WalletKit's own `core.storage` (IndexedDB, AsyncStorage or files, as WalletKit persists itself); `false`
   * uses the wallet's own (`createWalletRpc({ journal })`, memory by default).
   */
  journal?: KeyValueStorage | false
}

export type WalletKitAdapter = {
  /** Removes every listener the adapter added (WalletKit's and the wallet's). Requests already being answered still get their answer. */
  detach(): void
}
