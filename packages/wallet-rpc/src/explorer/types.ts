import type { ExplorerPlatform, ExplorerSdk } from './params.js'

/**
 * One listed wallet, dApp or hybrid as `/v3/wallets|dapps|hybrid|all` return it. The spec does not show
 * response bodies; this is the sandbox's shape, modelled on WalletConnect's explorer v3 (`listings` keyed by
 * id, `image_id` and `image_url` per size, `versions` beside `sdks`).
 */
export type ExplorerListing = {
  id: string
  name: string
  description: string
  /** The listed URL (https). For a dApp, the origin a session proposal should come from. */
  homepage: string
  app_type: 'wallet' | 'dapp' | 'hybrid'
  /** CAIP-2 chain ids the entry supports. */
  chains: string[]
  sdks: ExplorerSdk[]
  /** Sign versions, derived from `sdks` (`sign_v1` → '1', `sign_v2` → '2'); what the deprecated `version` filters. */
  versions: ('1' | '2')[]
  platforms: ExplorerPlatform[]
  /** e.g. `eip-712`, `eip-3085`. */
  standards: string[]
  image_id: string
  /** Absolute logo URLs per size (`/v3/logo/:size/:image_id`). */
  image_url: { sm: string; md: string; lg: string }
  /** ISO 8601. */
  updatedAt: string
}

/** `/v3/wallets|dapps|hybrid|all`: `count` entries on this page out of `total` matching. */
export type ExplorerListingPage = {
  listings: Record<string, ExplorerListing>
  count: number
  total: number
}

export type ExplorerChain = {
  /** CAIP-2. */
  id: string
  name: string
  namespace: string
  testnet: boolean
}

/** `/v3/chains`: registered, approved chains keyed by CAIP-2 id. */
export type ExplorerChains = {
  chains: Record<string, ExplorerChain>
  count: number
}
