import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as v from 'valibot'
import {
  explorerChainIdPattern as caip2Pattern,
  type ExplorerListing,
  type ExplorerLogoSize,
  explorerLogoSizes,
  explorerPlatforms,
  explorerSdks,
  explorerListingIdPattern as listingIdPattern,
  explorerStandardPattern as standardPattern,
} from 'wallet-rpc/explorer'
import { isHttpsUrl } from '../validate.js'
import { renderLogo } from './logos.js'

/** A listing as the file holds it; the server adds `versions` and `image_url`. */
export type ListingSource = Omit<ExplorerListing, 'versions' | 'image_url'>

export type ExplorerListings = {
  listings: readonly ListingSource[]
  /** SVG text by `<size>/<image_id>`. */
  logos: ReadonlyMap<string, string>
}

const listingSchema = v.strictObject({
  id: v.pipe(
    v.string(),
    v.regex(listingIdPattern, 'must be 1-128 characters of A-Z a-z 0-9 _ . -, not all digits'),
  ),
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(100)),
  description: v.pipe(v.string(), v.maxLength(1000)),
  homepage: v.pipe(
    v.string(),
    v.check((url: string) => isHttpsUrl(url), 'must be an https URL'),
  ),
  app_type: v.picklist(['wallet', 'dapp', 'hybrid'], 'must be wallet, dapp or hybrid'),
  chains: v.array(v.pipe(v.string(), v.regex(caip2Pattern, 'must be a CAIP-2 chain id'))),
  sdks: v.array(v.picklist(explorerSdks, `must be one of ${explorerSdks.join(', ')}`)),
  platforms: v.array(v.picklist(explorerPlatforms, `must be one of ${explorerPlatforms.join(', ')}`)),
  standards: v.array(v.pipe(v.string(), v.regex(standardPattern, 'must be a standard such as eip-712'))),
  image_id: v.pipe(
    v.string(),
    v.regex(listingIdPattern, 'must be 1-128 characters of A-Z a-z 0-9 _ . -, not all digits'),
  ),
  updatedAt: v.pipe(v.string(), v.isoTimestamp('must be an ISO 8601 timestamp')),
})

const fileSchema = v.strictObject({ listings: v.array(listingSchema) })

/** The sample listing shipped with the sandbox (built: `dist/pay/sandbox/explorer/sample/`). */
export const sampleListingFile = fileURLToPath(new URL('./sample/listings.json', import.meta.url))

/**
 * Reads and checks a listing file: `{ "listings": [ … ] }` (fields as in `ExplorerListing` without
 * `versions` and `image_url`), with each entry's logo beside it in `logos/`: either one source
 * `logos/<image_id>.svg`, sized here, or the built `logos/<size>/<image_id>.svg` for every size (what the
 * build writes for the sample). Throws one Error naming the file and every field at fault.
 */
export function loadListingFile(path: string): ExplorerListings {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new Error(
      `explorer listing file ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`,
    )
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new Error(`explorer listing file ${path}: not valid JSON`)
  }
  const result = v.safeParse(fileSchema, json)
  if (!result.success) {
    const problems = result.issues.map((issue) => `${v.getDotPath(issue) ?? '(file)'}: ${issue.message}`)
    throw new Error(`explorer listing file ${path}: ${problems.slice(0, 10).join('; ')}`)
  }
  const listings = result.output.listings
  const problems: string[] = []
  const ids = new Set<string>()
  listings.forEach((listing, index) => {
    if (ids.has(listing.id)) problems.push(`listings.${index}.id: ${listing.id} is listed twice`)
    ids.add(listing.id)
  })
  const logos = new Map<string, string>()
  const logoDir = join(dirname(path), 'logos')
  listings.forEach((listing, index) => {
    for (const size of explorerLogoSizes) {
      const key = `${size}/${listing.image_id}`
      if (logos.has(key)) continue
      try {
        logos.set(key, logoAt(logoDir, listing.image_id, size))
      } catch (error) {
        problems.push(`listings.${index}.image_id: logo ${(error as Error).message}`)
        break
      }
    }
  })
  if (problems.length > 0)
    throw new Error(`explorer listing file ${path}: ${problems.slice(0, 10).join('; ')}`)
  return { listings, logos }
}

/** The built logo of that size when there is one, else the source sized now; either is checked. */
function logoAt(dir: string, imageId: string, size: ExplorerLogoSize): string {
  const built = join(dir, size, `${imageId}.svg`)
  const source = join(dir, `${imageId}.svg`)
  if (existsSync(built)) return renderLogo(readFileSync(built, 'utf8'), size)
  if (!existsSync(source)) throw new Error(`${imageId}.svg not found in ${dir}`)
  return renderLogo(readFileSync(source, 'utf8'), size)
}
