import type { Address, Hex, TypedDataDefinition } from 'viem'
import type { HostileAction } from './faults.js'
import type { Reply } from './http.js'

/** Every status a payment can have inside the sandbox (the general status endpoint's and webhooks' set). */
export type PaymentStatus =
  | 'requires_action'
  | 'processing'
  | 'succeeded'
  | 'failed'
  | 'expired'
  | 'cancelled'

export const finalStatuses: ReadonlySet<PaymentStatus> = new Set([
  'succeeded',
  'failed',
  'expired',
  'cancelled',
])

export type EventType =
  | 'payment.created'
  | 'payment.processing'
  | 'payment.succeeded'
  | 'payment.failed'
  | 'payment.expired'
  | 'payment.cancelled'
  | 'payment.settled'

export const eventTypes: readonly EventType[] = [
  'payment.created',
  'payment.processing',
  'payment.succeeded',
  'payment.failed',
  'payment.expired',
  'payment.cancelled',
  'payment.settled',
]

export type MinorAmount = { unit: string; value: string }

export type CryptoSettlement = {
  id: string
  asset: string
  destination: string
  createdAt: number
  updatedAt: number
}

export type Merchant = {
  id: string
  name: string
  email: string
  /** Shown beside the name on the checkout page (only when https); absent in journals from before it existed. */
  iconUrl?: string | null
  status: 'active'
  createdAt: number
  settlements: CryptoSettlement[]
}

export type TokenConfig = {
  /** ERC-20 contract (USDC-style); test-mode options approve Permit2 on it and sign Permit2's transfer. */
  address: Address
  symbol: string
  name: string
  decimals: number
  /** EIP-712 domain `name` and `version` of the token (its own permits; the options sign Permit2's domain). */
  domainName: string
  domainVersion: string
  networkName: string
}

/**
 * A walletRpc action as the gateway sends it: `params` is the params array itself on the wire (the official client
 * parses a sequence and hands the wallet its JSON text, the seed's "JSON-encoded").
 */
export type WalletRpcAction = {
  type: 'walletRpc'
  data: { chain_id: string; method: string; params: unknown[] }
}
export type BuildAction = { type: 'build'; data: { data: string } }
export type GatewayAction = WalletRpcAction | BuildAction

/** What the sandbox expects back for one walletRpc action, and how it checks the result. */
export type ExpectedResult =
  | { kind: 'transaction'; chainId: number; from: Address; to: Address; data: Hex }
  | { kind: 'typedData'; from: Address; typedData: TypedDataDefinition }
  | {
      kind: 'solanaTransaction'
      option: SolanaTokenOption
      /** The exact message the payer must sign (built by fetch). */
      message: Uint8Array
      payer: Uint8Array
      payee: Uint8Array
      amount: bigint
    }

/** What a wallet shows for the option's token (the spec's TokenAmount `display`). */
export type TokenDisplay = { symbol: string; name: string; decimals: number; networkName: string }

/** One payment option offered to one account: its route expires before the payment does. */
export type Route = EvmRoute | SolanaRoute

/**
 * An EVM option: in test mode an ERC-20 approval of Permit2 and a Permit2 signature letting `spender` (the
 * settlement contract) move the amount to `payee`; in live mode a plain `transfer` to the treasury.
 */
export type EvmRoute = RouteBase & {
  kind: 'evm'
  address: Address
  token: TokenConfig
  payee: Address
  spender: Address
  /** Live mode: the chain's block number when the option was offered; the payment must be mined at or after it. */
  sinceBlock?: bigint
  /** The fault mode's hostile gateway: what the actions sign instead (`hostileView` in gatewayOptions.ts). */
  hostile?: { actions: readonly HostileAction[]; otherAddress: Address | undefined }
}

/** A Solana option: one SPL `transferChecked` transaction the wallet signs and the sandbox submits. */
export type SolanaRoute = RouteBase & {
  kind: 'solana'
  option: SolanaTokenOption
  /** The payer's and the payee's public keys (32 bytes). */
  payer: Uint8Array
  payee: Uint8Array
}

type RouteBase = {
  optionId: string
  account: string
  chainId: string
  /** CAIP-19 asset of the option, e.g. `eip155:1/erc20:0x…` or `solana:localnet/token:<mint>`. */
  asset: string
  display: TokenDisplay
  tokenValue: bigint
  expiresAt: number
  /** The option's actions as offered (walletRpc and build). */
  actions: GatewayAction[]
  /** Opaque `data` of the option's build action; fetch must send it back. */
  buildData: string
  /** Filled by fetch: the actions fetch returned, and the check of every result confirm receives, in order. */
  resolved?: { actions: WalletRpcAction[]; expected: ExpectedResult[] }
  /** Set by the test control `expireRoute` (or by time). */
  forcedExpired: boolean
}

export type Payment = {
  id: string
  merchantId: string
  referenceId: string
  amount: MinorAmount
  /** The API that created it: the merchant checkout API shows `pending` where the general API says requires_action. */
  flavour: 'general' | 'checkout'
  /** Redirect configuration; null when either URL was missing or not a valid HTTPS URL (redirects disabled). */
  checkout: { successUrl: string; errorUrl: string } | null
  status: PaymentStatus
  stateVersion: number
  createdAt: number
  updatedAt: number
  expiresAt: number
  failureReason: string | null
  cancellationReason: string | null
  routes: Map<string, Route>
  /** The option the buyer confirmed with. */
  chosen?: { route: Route; transactionHash?: string }
  settlement?: { settledAt: number; txHash: string; amount: MinorAmount }
  /**
   * Live mode: the settlement transfer signed and journaled before it is broadcast (a restart broadcasts the same
   * bytes again instead of paying twice). `wire` is the signed transaction (EVM hex, Solana base64).
   */
  settling?: { txHash: string; wire: string; amount: bigint; destination: string }
  /** Data collection demanded by the test control `requireCollectData`. */
  collectData: boolean
  collected?: Array<{ id: string; value: string }>
}

export type PaymentEvent = {
  id: string
  type: EventType
  api_version: string
  created_at: string
  data: Record<string, unknown>
}

/** A Solana payment option: an SPL token on a runtime the sandbox reaches over JSON-RPC (solanaOption.ts). */
export type SolanaTokenOption = {
  /** CAIP-2 chain the option is offered on, e.g. `solana:localnet`. */
  chainId: string
  /** JSON-RPC endpoint of the runtime (getLatestBlockhash, getAccountInfo, sendTransaction). */
  rpcUrl: string
  /** The SPL mint (base58). */
  mint: string
  decimals: number
  symbol: string
  name: string
  networkName: string
}

// ---- Webhooks (webhookDelivery.ts sends them)

export type WebhookAttempt = {
  attempt: number
  at: string
  /** HTTP status, or null when no response arrived (timeout, refused connection). */
  status: number | null
  error: string | null
  durationMs: number
}

export type WebhookDelivery = {
  id: string
  eventId: string
  eventType: EventType
  url: string
  createdAt: string
  /** The exact bytes sent on every attempt. */
  body: string
  state: 'pending' | 'delivered' | 'failed'
  attempts: WebhookAttempt[]
  nextAttemptAt: string | null
}

export type WebhookEndpoint = {
  url: string
  events: EventType[]
  createdAt: number
  disabled: boolean
}

// ---- What the journal persists (journal.ts writes and replays it)

export type SandboxIdentity = { apiKey: string; appId: string; merchantId: string }
export type IdempotencyEntry = { fingerprint: string; reply: Reply }
export type WebhookSecretRecord = { value: string; validUntil: number | null }

export type JournalRecord =
  | { k: 'identity'; v: SandboxIdentity }
  | { k: 'merchant'; v: Merchant }
  | { k: 'payment'; v: Payment }
  | { k: 'event'; v: PaymentEvent }
  | { k: 'idempotency'; id: string; v: IdempotencyEntry }
  | { k: 'webhooks'; v: { endpoint: WebhookEndpoint | null; secrets: WebhookSecretRecord[] } }
  | { k: 'delivery'; v: WebhookDelivery }

/** Everything a journal held, last value per key, in order of first appearance. */
export type RestoredState = {
  identity?: SandboxIdentity
  merchants: Map<string, Merchant>
  payments: Map<string, Payment>
  events: Map<string, PaymentEvent>
  idempotency: Map<string, IdempotencyEntry>
  webhooks?: { endpoint: WebhookEndpoint | null; secrets: WebhookSecretRecord[] }
  deliveries: Map<string, WebhookDelivery>
  /** Records read (before compaction) and whether a torn last line was dropped. */
  recordCount: number
  tornTail: boolean
}

/** Persists records; `null` when the sandbox runs in memory. */
export type Persist = (...records: JournalRecord[]) => void
