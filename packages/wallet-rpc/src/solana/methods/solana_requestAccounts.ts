import { solana_getAccounts, solanaGetAccountsParams } from './solana_getAccounts.js'

/** Same params as `solana_getAccounts`. */
export const solanaRequestAccountsParams = solanaGetAccountsParams

/**
 * `solana_requestAccounts` → `[{ pubkey }]`. Within a WalletConnect session the accounts were approved with
 * the session, so this answers exactly as `solana_getAccounts` (the reference documents the same result).
 */
export const solana_requestAccounts = solana_getAccounts
