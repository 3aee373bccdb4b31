import { createHash } from 'node:crypto'
import type { ExplorerChains, ExplorerListing, ExplorerListingPage } from 'wallet-rpc/explorer'
import {
  type ExplorerIssue,
  type ExplorerListingType,
  explorerLogoSizes,
  type ExplorerListingQuery as ListingQuery,
  type ExplorerParsed as Parsed,
  parseChainsQuery,
  parseListingQuery,
  parseLogoRequest,
} from 'wallet-rpc/explorer'
import { header, type Reply, type RequestContext, type Route } from '../context.js'
import { badRequest, PayHttpError } from '../errors.js'
import type { ListingSource } from './listingFile.js'

const appTypeOf: Readonly<Record<ExplorerListingType, ListingSource['app_type'] | undefined>> = {
  wallets: 'wallet',
  dapps: 'dapp',
  hybrid: 'hybrid',
  all: undefined,
}

/**
 * The explorer interface (spec, "Explorer interface"): `/v3/wallets`, `/v3/dapps`, `/v3/hybrid`, `/v3/all`,
 * `/v3/chains` and `/v3/logo/:size/:image_id`, public (`projectId` in the query instead of `Api-Key`). Every
 * reply carries an ETag and answers a matching `If-None-Match` with 304.
 */
export function explorerRoutes(): Route[] {
  return [
    listingRoute('wallets'),
    listingRoute('dapps'),
    listingRoute('hybrid'),
    listingRoute('all'),
    { method: 'GET', path: '/v3/chains', auth: 'none', handle: chains },
    { method: 'GET', path: '/v3/logo/:size/:image_id', auth: 'none', handle: logo },
  ]
}

function listingRoute(type: ExplorerListingType): Route {
  return { method: 'GET', path: `/v3/${type}`, auth: 'none', handle: (context) => listings(context, type) }
}

function listings(context: RequestContext, type: ExplorerListingType): Reply {
  const query = valid(parseListingQuery(context.query))
  const appType = appTypeOf[type]
  const matching = context.sandbox.config.explorer.listings.filter(
    (listing) => (appType === undefined || listing.app_type === appType) && matches(listing, query),
  )
  const shown =
    query.paging === undefined
      ? matching
      : matching.slice(
          (query.paging.page - 1) * query.paging.entries,
          query.paging.page * query.paging.entries,
        )
  const body: ExplorerListingPage = {
    listings: Object.fromEntries(
      shown.map((listing) => [listing.id, served(context, listing, query.projectId)]),
    ),
    count: shown.length,
    total: matching.length,
  }
  const reply = cached(context, JSON.stringify(body), 'application/json', 'no-cache')
  if (query.deprecatedVersion === true) {
    reply.headers = {
      ...reply.headers,
      deprecation: 'true',
      warning: '299 - "version is deprecated; use sdks"',
    }
  }
  return reply
}

/** Every given filter must hold; within a comma list, one match is enough (the spec's "at least one"). */
function matches(listing: ListingSource, query: ListingQuery): boolean {
  const anyOf = (wanted: readonly string[] | undefined, offered: readonly string[]) =>
    wanted === undefined || wanted.some((value) => offered.includes(value))
  return (
    (query.search === undefined || folded(listing.name).includes(folded(query.search))) &&
    anyOf(query.ids, [listing.id]) &&
    anyOf(query.chains, listing.chains) &&
    anyOf(query.platforms, listing.platforms) &&
    anyOf(query.sdks, listing.sdks) &&
    anyOf(query.standards, listing.standards)
  )
}

const folded = (text: string): string => text.normalize('NFKC').toLowerCase()

function served(context: RequestContext, listing: ListingSource, projectId: string): ExplorerListing {
  const logoUrl = (size: string) =>
    `${context.sandbox.baseUrl()}/v3/logo/${size}/${encodeURIComponent(listing.image_id)}?projectId=${encodeURIComponent(projectId)}`
  return {
    ...listing,
    versions: listing.sdks.flatMap((sdk) =>
      sdk === 'sign_v1' ? ['1' as const] : sdk === 'sign_v2' ? ['2' as const] : [],
    ),
    image_url: { sm: logoUrl('sm'), md: logoUrl('md'), lg: logoUrl('lg') },
  }
}

function chains(context: RequestContext): Reply {
  const query = valid(parseChainsQuery(context.query))
  const shown = context.sandbox.config.explorer.chains.filter(
    (chain) =>
      chain.approved &&
      (query.testnets || !chain.testnet) &&
      (query.namespaces === undefined || query.namespaces.includes(chain.namespace)),
  )
  const body: ExplorerChains = {
    chains: Object.fromEntries(
      shown.map(({ id, name, namespace, testnet }) => [id, { id, name, namespace, testnet }]),
    ),
    count: shown.length,
  }
  return cached(context, JSON.stringify(body), 'application/json', 'no-cache')
}

function logo(context: RequestContext): Reply {
  const { size, imageId } = valid(
    parseLogoRequest(context.params.size ?? '', context.params.image_id ?? '', context.query),
  )
  const svg = context.sandbox.config.explorer.logos.get(`${size}/${imageId}`)
  if (svg === undefined) {
    throw new PayHttpError(404, 'not_found', `no logo with image_id ${imageId}`, {
      details: { sizes: [...explorerLogoSizes] },
    })
  }
  const reply = cached(context, svg, 'image/svg+xml', 'public, max-age=86400')
  // An SVG opened directly is a document: it may not run or load anything.
  reply.headers = {
    ...reply.headers,
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  }
  return reply
}

function valid<T>(parsed: Parsed<T>): T {
  if (parsed.ok) return parsed.value
  throw badRequest(describe(parsed.issues), parsed.issues)
}

const describe = (issues: ExplorerIssue[]): string =>
  issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ')

/** The reply with a strong ETag over its bytes; 304 when `If-None-Match` names it (or is `*`). */
function cached(context: RequestContext, text: string, contentType: string, cacheControl: string): Reply {
  const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`
  const headers = { etag, 'cache-control': cacheControl, 'x-content-type-options': 'nosniff' }
  const ifNoneMatch = header(context, 'if-none-match')
  const named = ifNoneMatch?.split(',').map((tag) => tag.trim().replace(/^W\//, ''))
  if (named !== undefined && (named.includes(etag) || named.includes('*'))) {
    return { status: 304, body: undefined, headers }
  }
  return { status: 200, body: undefined, headers, raw: { contentType, text } }
}
