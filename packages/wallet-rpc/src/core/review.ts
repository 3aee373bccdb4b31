/**
 * A review is what the wallet shows its user before anything is signed or sent: structured so a UI can
 * render it and plain enough to print. Secrets never appear in one.
 */
export type Severity = 'info' | 'caution' | 'danger'

export type ReviewWarning = {
  /** Stable identifier, e.g. `eth_sign.blind`, `psbt.sighash_none`. A wallet's policy allows `danger` warnings by code. */
  code: string
  severity: Severity
  message: string
}

/** One line of a review, or a group of lines (a message tree, a transaction's outputs). */
export type ReviewItem = { label: string; value: string } | { label: string; items: ReviewItem[] }

/**
 * Sign-in requests (Sign-In with Ethereum, EIP-4361; Sign-In with Solana reuses the same shape; TON's
 * `ton_signData` binds a domain too): what the wallet compares with the request before the user sees it.
 * Field names are namespace-neutral; each namespace parses its own message format into this shape.
 */
export type SignInRequest = {
  /** The scheme the message names before its domain (`https://example.org wants you …`), if any. */
  scheme: string | undefined
  /** The RFC 3986 authority the message says asks for the sign-in: `[userinfo@]host[:port]`, as written. */
  domain: string
  /** The account the message names, as written. */
  account: string
  /**
   * The chain the message names, as written (EIP-155 chain id, Solana cluster…). This and the fields below
   * are always present in EIP-4361; Sign In With Solana makes them optional.
   */
  chain: string | undefined
  uri: string | undefined
  version: string | undefined
  statement: string | undefined
  nonce: string | undefined
  issuedAt: string | undefined
  expirationTime: string | undefined
  notBefore: string | undefined
  requestId: string | undefined
  resources: readonly string[]
}

/** A dapp-chosen value quoted in a warning or an error reason, cut so a huge one cannot flood either. */
export function quoted(value: string, max = 120): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value)
}

/** What a method builds; the router adds where the request came from. */
export type ReviewDraft = {
  account: string
  title: string
  items: ReviewItem[]
  warnings: ReviewWarning[]
  /** Present when the request is a sign-in (SIWE…): the parsed fields, also shown as the "Sign-in" group in `items`. */
  signIn?: SignInRequest
}

export type Review = ReviewDraft & {
  namespace: string
  chainId: string
  method: string
  /** The requesting dapp's origin as verified by the transport (WalletConnect Verify API), when known. */
  origin: string | undefined
  /** The transport's verdict on the origin, when it gave one. */
  originValidation: OriginValidation | undefined
  /** Free-form context a caller attached to the request (e.g. the payment an action belongs to). */
  context: Record<string, string> | undefined
}

export type OriginValidation = 'VALID' | 'INVALID' | 'UNKNOWN'

export type Approve = (review: Review) => boolean | Promise<boolean>

export type ApprovalPolicy = {
  /** `danger` warning codes the wallet lets its user approve. Any other `danger` warning is refused unasked. */
  allowDangerous?: readonly string[]
}

/** The first `danger` warning the policy does not allow, if any. */
export function forbiddenWarning(review: ReviewDraft, policy: ApprovalPolicy): ReviewWarning | undefined {
  return review.warnings.find(
    (warning) => warning.severity === 'danger' && !policy.allowDangerous?.includes(warning.code),
  )
}

export function item(label: string, value: string): ReviewItem {
  return { label, value }
}

export function group(label: string, items: ReviewItem[]): ReviewItem {
  return { label, items }
}

/** How many lines (items and groups, counted recursively) a review shows before it summarises the rest. */
export const maxReviewLines = 200

/**
 * The review's items cut to `maxReviewLines` lines, depth first, with one closing line saying how many were
 * left out, and each value to `maxReviewValueLength` characters, saying how many were: a request with a
 * million array entries or a 4 MiB message must not become a dialog of that size. Every warning stays, and
 * the signature still covers everything (the method decides what is signed, not the review).
 */
export function boundedItems(items: ReviewItem[], budget = maxReviewLines): ReviewItem[] {
  // Nearly every review is within bounds: handed on as it is, without a copy.
  if (linesWithinBounds(items, budget) >= 0) return items
  let shown = 0
  let omitted = 0
  const cut = (list: ReviewItem[]): ReviewItem[] => {
    const kept: ReviewItem[] = []
    for (const entry of list) {
      if (shown >= budget) {
        omitted += countLines(entry)
        continue
      }
      shown++
      kept.push('items' in entry ? { label: entry.label, items: cut(entry.items) } : shortened(entry))
    }
    return kept
  }
  const kept = cut(items)
  return omitted === 0
    ? kept
    : [...kept, item('Not shown', `${omitted} more lines (the review shows ${budget})`)]
}

/** How many characters one value shows; a 4 MiB message must not become a 4 MiB dialog either. */
export const maxReviewValueLength = 4096

function shortened(entry: { label: string; value: string }): ReviewItem {
  if (entry.value.length <= maxReviewValueLength) return entry
  const rest = entry.value.length - maxReviewValueLength
  return {
    label: entry.label,
    value: `${entry.value.slice(0, maxReviewValueLength)}… (${rest} more characters not shown)`,
  }
}

/** `budget` less the lines `items` show, or -1 once a line is over the budget or a value too long. */
function linesWithinBounds(items: ReviewItem[], budget: number): number {
  let left = budget
  for (const entry of items) {
    if (--left < 0) return -1
    if ('items' in entry) {
      left = linesWithinBounds(entry.items, left)
      if (left < 0) return -1
    } else if (entry.value.length > maxReviewValueLength) return -1
  }
  return left
}

function countLines(entry: ReviewItem): number {
  return 'items' in entry ? 1 + entry.items.reduce((sum, child) => sum + countLines(child), 0) : 1
}

/** Allowances at or above 2^128 exceed any real token supply: unlimited in effect. */
export const unlimitedAllowance = 2n ** 128n
