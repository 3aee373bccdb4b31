/**
 * `wallet-rpc/explorer`: a typed client of the explorer interface (listed wallets, dApps, hybrids, chains and
 * logos), and the interface's parameter rules it shares with the pay sandbox's server.
 */
export {
  createExplorerClient,
  type ExplorerCallOptions,
  type ExplorerChainsParams,
  type ExplorerClient,
  type ExplorerClientOptions,
  type ExplorerFetch,
  type ExplorerListingParams,
} from './client.js'
export { ExplorerError, type ExplorerErrorKind } from './errors.js'
export {
  caip2Pattern as explorerChainIdPattern,
  type ExplorerIssue,
  type ExplorerListingType,
  type ExplorerLogoSize,
  type ExplorerPlatform,
  type ExplorerSdk,
  explorerLogoSizes,
  explorerPlatforms,
  explorerSdks,
  type ListingQuery as ExplorerListingQuery,
  listingIdPattern as explorerListingIdPattern,
  type Parsed as ExplorerParsed,
  parseChainsQuery,
  parseListingQuery,
  parseLogoRequest,
  standardPattern as explorerStandardPattern,
} from './params.js'
export type { ExplorerChain, ExplorerChains, ExplorerListing, ExplorerListingPage } from './types.js'
