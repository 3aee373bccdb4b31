import type { WalletRpc } from '../core/router.js'

/**
 * The wallet calls the adapter needs; `createWalletRpc()` returns all of them. A leaf of its own: types.ts
 * (the adapter's options) and proposalRequests/ (which the options name) both use it.
 */
/** The wallet calls the adapter needs; `createWalletRpc()` returns all of them. */
export type WalletRpcLike = Pick<
  WalletRpc,
  'handle' | 'supported' | 'accounts' | 'sessionProperties' | 'announceSession' | 'on'
>
