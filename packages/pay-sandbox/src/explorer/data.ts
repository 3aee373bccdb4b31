import { type ChainRecord, knownChains } from './chains.js'
import { type ExplorerListings, loadListingFile, sampleListingFile } from './listingFile.js'

/** What the explorer routes serve: the listings with their sized logos, and the chain table. */
export type ExplorerData = ExplorerListings & { chains: readonly ChainRecord[] }

let chainTable: readonly ChainRecord[] | undefined

/** The listing file at `listingFile` (default: the sample shipped with the sandbox), checked, and the chains. */
export function loadExplorerData(listingFile: string = sampleListingFile): ExplorerData {
  chainTable ??= knownChains()
  return { ...loadListingFile(listingFile), chains: chainTable }
}
