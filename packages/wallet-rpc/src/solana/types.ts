// The solana namespace's shared vocabulary: the signer, the chain provider, the policy and the state the method
// files share. A leaf: it imports nothing; the files that define behaviour import it.

// ---------------------------------------------------------------------------------------------------------
// Keys (keys.ts makes them)

/**
 * What signs for the solana namespace: an Ed25519 public key (the account address) and a function that signs
 * message bytes. Our key sources keep the secret in a closure; an external signer (hardware, MPC, a remote
 * vault) implements the same two members and passes through `checkedSigner` first.
 */
export type SolanaSigner = {
  readonly publicKey: Uint8Array
  sign(message: Uint8Array): Uint8Array | Promise<Uint8Array>
}

/** The accounts a wallet serves: each signer with its base58 address. */
export type SolanaKeys = readonly SolanaSigner[]

export type SolanaMnemonicOptions = {
  /** Account index(es) `a` in `m/44'/501'/a'/0'`. Default 0. */
  account?: number | readonly number[]
  /** BIP-39 passphrase. */
  passphrase?: string
}

// ---------------------------------------------------------------------------------------------------------
// Chain provider (providers/solanaRpc.ts implements it)

/** Balances of one token account, as the simulation reports them. */
export type TokenBalance = {
  /** Token account address. */
  account: string
  mint: string
  owner: string | undefined
  /** Raw base units. */
  amount: bigint
  decimals: number
}

export type SimulationResult = {
  /** The program's error as the node reports it, or undefined on success. */
  error: string | undefined
  logs: readonly string[]
  /** Each requested account after the transaction (null: it would not exist). */
  accounts: ReadonlyArray<{ lamports: bigint; data: Uint8Array } | null>
  unitsConsumed: bigint | undefined
}

/**
 * What the solana namespace reads and sends through (`solanaRpc(url)` implements it over the Solana
 * JSON-RPC). Every call may fail; failures become -32603 with the reason.
 */
export type SolanaChainProvider = {
  /** Whether the blockhash can still land (`isBlockhashValid`). */
  isBlockhashValid(blockhash: string): Promise<boolean>
  /** Lamports of each address (0 for a missing account). */
  getBalances(addresses: readonly string[]): Promise<bigint[]>
  /** Token accounts of `owner` (SPL Token and Token-2022) with their balances. */
  getTokenBalances(owner: string): Promise<TokenBalance[]>
  /** The durable nonce (base58) a nonce account holds now, or undefined when it holds none. */
  getNonce(address: string): Promise<string | undefined>
  /** Addresses stored in a lookup table account (all of them, in order). */
  getLookupTable(address: string): Promise<string[]>
  /** Simulates the transaction without checking signatures; reports `accounts` as they would be after it. */
  simulate(transaction: Uint8Array, accounts: readonly string[]): Promise<SimulationResult>
  /** Broadcasts once, no retry; answers the signature the node reports (base58). */
  send(transaction: Uint8Array, options: SendOptions): Promise<string>
  /**
   * Whether the node has processed the transaction with this signature (`getSignatureStatuses` with history):
   * a request sent again after a crash counts as sent when the node refuses it as already processed.
   */
  transactionKnown?(signature: string): Promise<boolean>
  /** A recent blockhash (base58) to build a transaction on (pay at connect; optional for signing only). */
  getLatestBlockhash?(): Promise<string>
  /** One account's owner program, lamports and data, or undefined when it does not exist (pay at connect). */
  getAccountInfo?(address: string): Promise<AccountInfo | undefined>
}

export type AccountInfo = { owner: string; lamports: bigint; data: Uint8Array }

export type SendOptions = {
  skipPreflight?: boolean
  preflightCommitment?: 'processed' | 'confirmed' | 'finalized'
  minContextSlot?: number
}

// ---------------------------------------------------------------------------------------------------------
// What the method files share (context.ts creates it)

export type SolanaPolicy = {
  /** Most transactions one `solana_signAllTransactions` may carry. Default 50. */
  maxTransactions?: number
}

/** What every solana method shares: the accounts, the chains' providers, the policy. */
export type SolanaWallet = {
  /** base58 address → signer, in the order the keys were given. */
  signers: ReadonlyMap<string, SolanaSigner>
  providers: Partial<Record<string, SolanaChainProvider>>
  maxTransactions: number
}
