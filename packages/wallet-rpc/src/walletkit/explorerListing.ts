import type { ReviewWarning } from '../core/review.js'
import type { ExplorerClient } from '../explorer/client.js'
import type { ExplorerListing } from '../explorer/types.js'

/** The listing entry a fact refers to. */
export type ListedEntry = Pick<ExplorerListing, 'id' | 'name' | 'homepage' | 'app_type'>

/**
 * What the explorer says about the dapp behind a session proposal:
 * - `listed`: an entry's listed URL has the dapp's host; `hostMatchesVerifiedOrigin` is true when that host is
 *   the origin the Verify API attested (VALID); false when there was none (Verify unreachable gives UNKNOWN,
 *   with the dapp's own URL as origin) and the dapp's self-declared URL was used instead;
 * - `unlisted`: no entry has that host; `impersonates` names the listed entry whose name, icon or URL the dapp
 *   presents anyway (an impostor), with a `caution` warning in the review;
 * - `unavailable`: the explorer did not answer in time or failed (`reason`); the proposal goes on without it.
 */
export type SessionListingFacts =
  | { status: 'listed'; listing: ListedEntry; hostMatchesVerifiedOrigin: boolean }
  | { status: 'unlisted'; impersonates?: { listing: ListedEntry; presents: Array<'name' | 'icon' | 'url'> } }
  | { status: 'unavailable'; reason: string }

export type ExplorerReviewOptions = {
  /** A `createExplorerClient()` from `wallet-rpc/explorer` (or anything with its `all`). */
  client: Pick<ExplorerClient, 'all'>
  /** The lookup gives up after this long and the review says "listing unavailable". Default 3000. */
  timeoutMs?: number
}

type DappMetadata = { name?: unknown; url?: unknown; icons?: unknown } | undefined

/**
 * The listing facts and their warnings for a proposal from `metadata` (self-declared) at `verifiedOrigin`.
 * Bounded by `timeoutMs`; never rejects: any failure of the explorer, a slow one included, is `unavailable`.
 */
export async function lookUpListing(
  explorer: ExplorerReviewOptions,
  metadata: DappMetadata,
  verifiedOrigin: string | undefined,
): Promise<{ listing: SessionListingFacts; warnings: ReviewWarning[] }> {
  const timeoutMs = explorer.timeoutMs ?? 3000
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort()
      resolve('timeout')
    }, timeoutMs)
  })
  let listings: ExplorerListing[]
  try {
    const answer = await Promise.race([explorer.client.all({}, { signal: controller.signal }), timedOut])
    if (answer === 'timeout') return unavailable(`the explorer did not answer within ${timeoutMs} ms`)
    listings = Object.values(answer.listings)
  } catch (error) {
    return unavailable(error instanceof Error ? error.message.slice(0, 200) : 'the explorer lookup failed')
  } finally {
    clearTimeout(timer)
  }
  const listing = listingFacts(listings, metadata, verifiedOrigin)
  return { listing, warnings: listingWarnings(listing) }
}

function unavailable(reason: string): { listing: SessionListingFacts; warnings: ReviewWarning[] } {
  return {
    listing: { status: 'unavailable', reason },
    warnings: [
      { code: 'explorer.unavailable', severity: 'info', message: `Listing unavailable: ${reason}.` },
    ],
  }
}

/** The facts from a listing: found by host (the verified origin's, else the declared URL's), else impostor checks. */
export function listingFacts(
  listings: readonly ExplorerListing[],
  metadata: DappMetadata,
  verifiedOrigin: string | undefined,
): SessionListingFacts {
  const declaredUrl = typeof metadata?.url === 'string' ? metadata.url : undefined
  const verifiedHost = hostOf(verifiedOrigin)
  const declaredHost = hostOf(declaredUrl)
  // Listed means the same scheme too: a plain-http origin is not the https site it names.
  const dappOrigin = verifiedHost === undefined ? originOf(declaredUrl) : originOf(verifiedOrigin)
  const entry = (listing: ExplorerListing): ListedEntry => ({
    id: listing.id,
    name: listing.name,
    homepage: listing.homepage,
    app_type: listing.app_type,
  })
  const atHost =
    dappOrigin === undefined
      ? undefined
      : listings.find((listing) => originOf(listing.homepage) === dappOrigin)
  if (atHost !== undefined) {
    return { status: 'listed', listing: entry(atHost), hostMatchesVerifiedOrigin: verifiedHost !== undefined }
  }
  const name = typeof metadata?.name === 'string' ? folded(metadata.name) : ''
  const icons = Array.isArray(metadata?.icons)
    ? metadata.icons.filter((icon) => typeof icon === 'string')
    : []
  const iconHosts = new Set(icons.map((icon) => hostOf(icon)))
  for (const listing of listings) {
    const listedHost = hostOf(listing.homepage)
    const presents: Array<'name' | 'icon' | 'url'> = []
    if (name.length > 0 && folded(listing.name) === name) presents.push('name')
    const logos = Object.values(listing.image_url)
    if (
      icons.some((icon) => logos.includes(icon)) ||
      (listedHost !== undefined && iconHosts.has(listedHost))
    ) {
      presents.push('icon')
    }
    if (listedHost !== undefined && declaredHost === listedHost) presents.push('url')
    if (presents.length > 0)
      return { status: 'unlisted', impersonates: { listing: entry(listing), presents } }
  }
  return { status: 'unlisted' }
}

function listingWarnings(facts: SessionListingFacts): ReviewWarning[] {
  if (facts.status === 'listed') {
    if (facts.hostMatchesVerifiedOrigin) return []
    return [
      {
        code: 'explorer.origin_unverified',
        severity: 'caution',
        message: `The dapp says it is the listed "${facts.listing.name}" (${facts.listing.homepage}), but no verified origin confirms it.`,
      },
    ]
  }
  const impersonated = facts.status === 'unlisted' ? facts.impersonates : undefined
  if (impersonated === undefined) return []
  const what = impersonated.presents.join(', ')
  return [
    {
      code: 'explorer.impostor',
      severity: 'caution',
      message: `This dapp is not listed, yet presents the ${what} of the listed "${impersonated.listing.name}" (${impersonated.listing.homepage}). It may be an impostor.`,
    },
  ]
}

/** Names compared without case, spacing or punctuation ("Sandbox-Swap" is "sandbox swap"), after NFKC. */
function folded(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s!-/:-@[-`{-~]+/g, '')
}

// A backslash ends the authority as a slash does: browsers read `https://evil.example\\@listed.example` as
// evil.example.
const authorityPattern =
  /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/\\?#]*@)?(\[[^\]/\\?#]*\]|[^:/\\?#]*)(?::([0-9]*))?(?:[/\\?#]|$)/i

/**
 * `host[:port]` of an http(s) URL or origin, lowercased, without a trailing dot or the scheme's default port;
 * undefined for anything else. A pattern, not `new URL()`: React Native's URL polyfill lacks `host`.
 */
export function hostOf(url: string | undefined): string | undefined {
  return authorityOf(url)?.host
}

/** `scheme://host[:port]` of an http(s) URL, as `hostOf` reads the host; undefined for anything else. */
function originOf(url: string | undefined): string | undefined {
  const authority = authorityOf(url)
  return authority === undefined ? undefined : `${authority.scheme}://${authority.host}`
}

function authorityOf(url: string | undefined): { scheme: 'http' | 'https'; host: string } | undefined {
  if (url === undefined) return undefined
  const match = authorityPattern.exec(url.trim())
  if (match === null) return undefined
  const scheme = match[1]!.toLowerCase()
  const hostname = match[2]!.toLowerCase().replace(/\.$/, '')
  if ((scheme !== 'https' && scheme !== 'http') || hostname.length === 0) return undefined
  const port = match[3]
  const defaultPort = scheme === 'https' ? '443' : '80'
  const host = port === undefined || port === '' || port === defaultPort ? hostname : `${hostname}:${port}`
  return { scheme, host }
}
