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
