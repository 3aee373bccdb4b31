/**
 * The eip155 namespace's shared types in one leaf: it imports only types from outside eip155 (viem), so any
 * file of the namespace may use them without an import cycle. Each is re-exported where it was defined
 * before, so no import path breaks.
 */
import type { Address, Hex, LocalAccount } from 'viem'
import type { ReviewWarning } from '../core/review.js'

// ---------------------------------------------------------------------------------------------------------
// keys.ts

/**
 * What signs for eip155: any viem `LocalAccount` — `privateKeyToAccount`, an HD-derived account, or
 * `toAccount({ address, signMessage, signTransaction, signTypedData })` wrapping an HSM or remote signer.
 */
export type Eip155Signer = LocalAccount

/**
 * A key provider: the addresses this wallet signs for and, for each, its signer. Methods call `signer()`
 * only in `execute`, after approval; `addresses()` is all planning ever sees.
 */
export type Eip155Keys = {
  addresses(): Promise<readonly Address[]>
  /** The signer for an owned address (any case), or undefined when the address is not ours. */
  signer(address: Address): Promise<Eip155Signer | undefined>
  /**
   * Milliseconds a signature may take before the request fails with -32603 (none by default): for a
   * hardware wallet or remote signer that may never answer, `{ ...accountKeys(ledger), timeoutMs: 60_000 }`.
   */
  readonly timeoutMs?: number
}

export type MnemonicKeysOptions = {
  /** BIP-39 mnemonic (English word list). Checked here; never stored in an error or returned. */
  mnemonic: string
  /** Optional BIP-39 passphrase ("25th word"). */
  passphrase?: string
  /** Address index `i` in `m/44'/60'/0'/0/i` (the path MetaMask and Ledger Live use). Default 0. */
  addressIndex?: number | readonly number[]
}

// ---------------------------------------------------------------------------------------------------------
// provider.ts

/**
 * A chain provider: anything with an EIP-1193 `request` — a viem client (`createPublicClient(...)`, over
 * any transport), an injected or WalletConnect EIP-1193 provider, or `httpProvider(url)`. Only JSON-RPC
 * methods are used, so the namespace does not load viem's client code (half of viem's import time).
 */
export type Eip155ChainProvider = {
  request(args: { method: string; params?: unknown }): Promise<unknown>
}

/** EIP-5792's receipt shape (`wallet_getCallsStatus`), read from eth_getTransactionReceipt. */
export type TransactionReceiptSummary = {
  status: '0x1' | '0x0'
  transactionHash: Hex
  blockHash: Hex
  blockNumber: Hex
  gasUsed: Hex
  logs: unknown[]
}

export type EstimateRequest = {
  from: Address
  to: Address | undefined
  value: bigint
  data: Hex
  /** Fees make the node check the sender can pay `gas × fee + value`, so an unaffordable send fails here. */
  fees: { gasPrice: bigint } | { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
}

// ---------------------------------------------------------------------------------------------------------
// calls/store.ts

/** One `wallet_sendCalls` batch as the wallet keeps it: enough to answer `wallet_getCallsStatus` later. */
export type StoredCalls = {
  id: string
  /** Numeric chain id. */
  chainId: number
  from: Address
  /**
   * The origin of the site that sent the batch (as `handle()` received it); only a request from the same
   * origin reads or shows it, so one site cannot follow another's batches by id.
   */
  origin?: string
  /** Sent as one transaction (ERC-7821 `execute` on the account itself). */
  atomic: boolean
  /** Broadcast transactions, in call order (one when atomic). */
  transactionHashes: Hex[]
  /**
   * The nonce of each broadcast transaction, in the order of `transactionHashes`: a transaction without a
   * receipt whose nonce the account has used since was replaced or dropped (status 400). Absent in records
   * stored before it existed, which then stay pending until mined.
   */
  nonces?: number[]
  /** Calls of a sequential batch not sent because an earlier broadcast failed. */
  unsent: number
  /** Unix milliseconds when the batch was sent. */
  sentAt: number
}

/**
 * Where batches live between `wallet_sendCalls` and `wallet_getCallsStatus`. The default keeps them in
 * memory; a wallet that must answer status after a restart passes its own (IndexedDB, a file, a database).
 * Records hold transaction hashes and addresses only, never a key or a signature.
 */
export type CallsStore = {
  /**
   * The batch `id` the site `origin` sent (undefined: a request without an origin). The default store keeps
   * each origin's ids apart, so one site can neither take nor detect another's; a store that ignores `origin`
   * keeps ids unique across sites (another site's id then answers 5720, and only its own site reads it).
   * `origin` is as the transport reported it; the default store compares origins in one spelling (case, a
   * default port and a trailing `/` do not make another site), and so does the wallet when it checks the
   * record's own `origin`.
   */
  get(id: string, origin: string | undefined): Promise<StoredCalls | undefined> | StoredCalls | undefined
  put(record: StoredCalls): Promise<void> | void
}

export type CallsSettings = {
  store: CallsStore
  /** Most calls in one batch (5740 above it). */
  maxCalls: number
  /**
   * `callsKey`s of batches planned or being sent, so two concurrent requests of one site with one id cannot
   * both go out.
   */
  inFlight: Set<string>
}

// ---------------------------------------------------------------------------------------------------------
// calls/status.ts

/** EIP-5792 status codes: pending, confirmed, off-chain failure, reverted, partially reverted. */
export type CallsStatusCode = 100 | 200 | 400 | 500 | 600

export type CallsStatus = {
  version: '2.0.0'
  id: string
  chainId: `0x${string}`
  status: CallsStatusCode
  atomic: boolean
  receipts: Array<
    Omit<TransactionReceiptSummary, 'logs'> & { logs: { address: string; data: string; topics: string[] }[] }
  >
  capabilities: { caip345: { caip2: string; transactionHashes: string[] } }
}

/** Where one transaction of a batch stands. */
export type TransactionOutcome = 'succeeded' | 'reverted' | 'pending' | 'dropped'

// ---------------------------------------------------------------------------------------------------------
// methods/wallet_sendCalls.ts

export type SendCallsResult = {
  id: string
  capabilities: { caip345: { caip2: string; transactionHashes: Hex[] } }
}

// ---------------------------------------------------------------------------------------------------------
// methods/wallet_getCapabilities.ts

export type Capabilities = Record<
  `0x${string}`,
  { atomic: { status: 'ready' | 'supported' | 'unsupported' }; dataSuffix: { supported: true } }
>

// ---------------------------------------------------------------------------------------------------------
// methods/wallet_addEthereumChain.ts

/** What the wallet's `addEthereumChain` callback is asked to allow (already checked against the RPC). */
export type AddChainRequest = {
  chainId: number
  chainName: string
  nativeCurrency: { name: string; symbol: string; decimals: number }
  /** The RPC URL that answered `eth_chainId` with `chainId`; the chain is served through it once added. */
  rpcUrl: string
  blockExplorerUrls: string[]
  /** The requesting dapp's origin, as the transport verified it. */
  origin: string | undefined
  /**
   * What the wallet should tell its user before adding the chain: `chain.name_mismatch` (`caution`) when the
   * name claims another well-known chain than the id (chain 0x2105 named "Ethereum Mainnet").
   */
  warnings: ReviewWarning[]
}

// ---------------------------------------------------------------------------------------------------------
// methods/wallet_watchAsset.ts

/** What the wallet's `watchAsset` callback is asked to add: the token as its contract reports it. */
export type WatchAssetRequest = {
  chainId: number
  address: Address
  symbol: string
  decimals: number
  /** The dapp's image for the token: an http(s) URL or a `data:image/…` URL, never another scheme. */
  image: string | undefined
  origin: string | undefined
}

// ---------------------------------------------------------------------------------------------------------
// simulation/reviewSimulation.ts

/** How far a review's simulation goes; every bound is said in the review when reached. */
export type SimulationOptions = {
  /** For the simulation call (and its eth_call fallback) together, and again for the token lookups. */
  timeoutMs: number
  /** Logs decoded; more are counted and said. */
  maxLogs: number
  /** Distinct token contracts whose symbol and decimals are read; the rest show their address only. */
  maxTokenLookups: number
}

// ---------------------------------------------------------------------------------------------------------
// namespace.ts

export type Eip155ChainOptions = {
  /** The numeric chain id, e.g. 1 for `eip155:1`. */
  chainId: number
  /** A viem public client for this chain. Without one the chain is signing-only. */
  provider?: Eip155ChainProvider
  /** Native currency symbol shown in reviews. Default `ETH`. */
  nativeSymbol?: string
  /**
   * EIP-7702 atomic batches (`wallet_sendCalls`): the delegate contract — an ERC-7821 executor such as
   * OpenZeppelin's, deployed on this chain — the account is upgraded to by its first atomic batch. Without
   * it, batches on this chain are sent as one transaction per call and `atomicRequired` answers 5760.
   */
  eip7702?: { delegate: Address }
}

export type Eip155Options = {
  keys: Eip155Keys
  /** The chains this wallet serves: a bare chain id (signing only) or a chain with its provider. */
  chains: readonly (number | Eip155ChainOptions)[]
  /**
   * Serve `eth_sign` (EIP-191 prefixed, with a `danger` review warning `eth_sign.blind` that the wallet's
   * `policy.allowDangerous` must list). Default false: `eth_sign` answers 5101 with the reason.
   */
  enableEthSign?: boolean
  /** Percent added to a gas estimate (the result is still capped below the block gas limit). Default 25. */
  gasMarginPercent?: number
  /**
   * Transaction reviews on a chain with a provider simulate the transaction (eth_simulateV1, eth_call where
   * the node lacks it) and show the account's balance changes and approvals; a revert is a `danger`
   * warning. `false` turns it off. Defaults: 5000 ms, 500 logs, 16 token lookups.
   */
  simulation?: false | Partial<SimulationOptions>
  /** EIP-5792 batches: where they are kept (default: in memory) and the most calls one may hold (default 16). */
  calls?: { store?: CallsStore; maxCalls?: number }
  /** Serves `wallet_showCallsStatus`: the wallet shows the batch its own way. */
  showCallsStatus?: (batch: StoredCalls) => void | Promise<void>
  /** Serves `wallet_addEthereumChain`: asked after the chain's RPC was checked; `true` adds the chain. */
  addEthereumChain?: (chain: AddChainRequest) => boolean | Promise<boolean>
  /** Serves `wallet_watchAsset`: asked after the token's symbol and decimals were checked on chain. */
  watchAsset?: (asset: WatchAssetRequest) => boolean | Promise<boolean>
}

// ---------------------------------------------------------------------------------------------------------
// transaction/request.ts

export type Fees =
  | { type: 'legacy' | 'eip2930'; gasPrice: bigint }
  | { type: 'eip1559'; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }

// ---------------------------------------------------------------------------------------------------------
// nonces.ts

/** One reserved nonce. Call `settle(true)` once the transaction was broadcast, `settle(false)` if it was not. */
export type NonceReservation = { nonce: number; settle(broadcast: boolean): void }

/** `count` consecutive reserved nonces from `first`; `settle(used)` once, after broadcasting the first `used`. */
export type NonceRange = { first: number; count: number; settle(used: number): void }

// ---------------------------------------------------------------------------------------------------------
// eip7702/delegation.ts

/** What an account's code says about its EIP-7702 delegation. */
export type Delegation =
  | { status: 'none' }
  | { status: 'delegated'; delegate: Address }
  /** Code that is not a designator: the address is a contract, not an account our keys control alone. */
  | { status: 'contract' }

// ---------------------------------------------------------------------------------------------------------
// eip7702/erc7821.ts

export type Call = { to: Address; value: bigint; data: Hex }
