import { parseDateTime } from './dateTime.js'
import type { RequestContext } from './namespace.js'
import { domainMismatch, type Origin, originOf } from './origin.js'
import { recapItems, recapWarnings } from './recap.js'
import { group, item, quoted, type ReviewItem, type ReviewWarning, type SignInRequest } from './review.js'
import { hostOf, parseAuthority, parseUri } from './uri.js'

/**
 * Sign-in requests (Sign-In with Ethereum, EIP-4361; Sign-In with Solana; TON's `ton_signData` binds a domain
 * too): the review section, the strict-parser scaffolding, and every check of a sign-in against the request it
 * arrived in. The request's shape is `SignInRequest` (review.ts); origins, URIs and dates have their own files.
 */

/** What the namespace checked itself: account and chain comparisons depend on its address and chain formats. */
export type SignInBindings = {
  /** The account that would sign, in the namespace's display form. */
  signer: string
  accountMatches: boolean
  /** The request's chain, in the namespace's display form (e.g. `1` for `eip155:1`). */
  requestChain: string
  chainMatches: boolean
}

/**
 * The review section a wallet shows for a sign-in: everything the message asks the user to assert, with
 * the host in its canonical (lowercase, punycode) form beside it when that differs from what is written,
 * so a homograph or an uppercase trick is visible.
 */
export function signInSection(request: SignInRequest): ReviewItem {
  const items: ReviewItem[] = []
  const domain = request.scheme === undefined ? request.domain : `${request.scheme}://${request.domain}`
  items.push(item('Domain', domain))
  const canonical = parseAuthority(request.domain)?.host
  if (canonical !== undefined && canonical !== hostOf(request.domain))
    items.push(item('Domain host', canonical))
  if (request.uri !== undefined) items.push(item('URI', request.uri))
  items.push(item('Account', request.account))
  if (request.chain !== undefined) items.push(item('Chain', request.chain))
  if (request.statement) items.push(item('Statement', request.statement))
  if (request.nonce !== undefined) items.push(item('Nonce', request.nonce))
  if (request.issuedAt !== undefined) items.push(item('Issued at', request.issuedAt))
  if (request.expirationTime !== undefined) items.push(item('Expires at', request.expirationTime))
  if (request.notBefore !== undefined) items.push(item('Not before', request.notBefore))
  if (request.requestId !== undefined) items.push(item('Request ID', request.requestId))
  if (request.resources.length > 0) {
    items.push(
      group(
        'Resources',
        request.resources.map((resource, index) => item(`${index + 1}`, resource)),
      ),
    )
    const capabilities = recapItems(request.resources)
    if (capabilities !== undefined) items.push(capabilities)
  }
  if (request.version !== undefined) items.push(item('Version', request.version))
  return group('Sign-in', items)
}

/** A sign-in message's parse: the request it asks for, or why it is not one. */
export type SignInParseResult<Message extends SignInRequest = SignInRequest> =
  | { ok: true; message: Message }
  | { ok: false; reason: string }

/** Thrown by a sign-in grammar's `check`; turned into `{ ok: false, reason }` by `parseSignIn`. */
class SignInSyntaxError extends Error {}

/** A grammar rule: `reason` when `condition` does not hold. */
export function checkSyntax(condition: boolean, reason: string): asserts condition {
  if (!condition) throw new SignInSyntaxError(reason)
}

/** Runs a strict sign-in parser written with `checkSyntax`; any other error is a bug and is rethrown. */
export function parseSignIn<Message extends SignInRequest>(
  parseStrict: (text: string) => Message,
  text: string,
): SignInParseResult<Message> {
  try {
    return { ok: true, message: parseStrict(text) }
  } catch (error) {
    if (error instanceof SignInSyntaxError) return { ok: false, reason: error.message }
    throw error
  }
}

/**
 * Every check of a sign-in against the request it arrived in, as review warnings under `prefix`
 * (`siwe`, `siws`…): the domain (scheme, host, port, no userinfo) and the URI's host against the request's
 * origin, the account against the signer, the chain against the request's chain, the validity window
 * against the clock, and the transport's verdict on the origin. Each mismatch is a `danger` warning, so the
 * router refuses it unless the wallet's `policy.allowDangerous` lists its code.
 */
export function signInWarnings(
  context: RequestContext,
  request: SignInRequest,
  bindings: SignInBindings,
  prefix: string,
): ReviewWarning[] {
  const warnings: ReviewWarning[] = []
  const danger = (rule: string, message: string) =>
    warnings.push({ code: `${prefix}.${rule}`, severity: 'danger', message })
  const origin = originOf(context.origin)
  if (origin === undefined) {
    danger(
      'origin_missing',
      context.origin === undefined
        ? `The request carries no origin, so the wallet cannot check that ${quoted(request.domain)} is asking.`
        : `The request's origin ${quoted(context.origin)} is not a web origin; ${quoted(request.domain)} cannot be checked against it.`,
    )
  } else {
    const domainProblem = domainMismatch(request.scheme, request.domain, origin)
    if (domainProblem !== undefined) {
      danger(
        'domain_mismatch',
        `This sign-in is for ${quoted(request.domain)}, but ${origin.text} asks: ${domainProblem}.`,
      )
    }
    // A sign-in without a URI (optional in Sign In With Solana) binds only its domain, checked above.
    const uriProblem = request.uri === undefined ? undefined : uriMismatch(request.uri, origin)
    if (uriProblem !== undefined) danger('uri_mismatch', uriProblem)
  }
  warnings.push(...originVerificationWarnings(context, prefix, request.domain))
  if (!bindings.accountMatches) {
    danger(
      'account_mismatch',
      `The message signs in as ${request.account}, but the signing account is ${bindings.signer}.`,
    )
  }
  if (!bindings.chainMatches) {
    danger(
      'chain_mismatch',
      `The message names chain ${quoted(request.chain ?? '')}, but the request is for chain ${bindings.requestChain}.`,
    )
  }
  const now = context.clock()
  const expiresAt = request.expirationTime === undefined ? undefined : parseDateTime(request.expirationTime)
  if (expiresAt !== undefined && expiresAt <= now) {
    danger('expired', `This sign-in expired at ${request.expirationTime}.`)
  }
  const notBefore = request.notBefore === undefined ? undefined : parseDateTime(request.notBefore)
  if (notBefore !== undefined && notBefore > now) {
    danger('not_yet_valid', `This sign-in is not valid before ${request.notBefore}.`)
  }
  const future = issuedInFutureWarning(prefix, request.issuedAt, now)
  if (future !== undefined) warnings.push(future)
  warnings.push(...recapWarnings(request.resources, prefix, request.uri ?? request.domain))
  return warnings
}

/** How far ahead of the wallet's clock an "Issued At" may be (clocks drift); beyond it the message is post-dated. */
export const maxIssuedAhead = 60 * 60 * 1000

/**
 * The `danger` `<prefix>.issued_in_future` for a sign-in issued more than an hour after the wallet's clock: a
 * post-dated proof a site can keep and present when that time comes, long after the user signed it.
 */
export function issuedInFutureWarning(
  prefix: string,
  issuedAt: string | undefined,
  now: number,
): ReviewWarning | undefined {
  const issued = issuedAt === undefined ? undefined : parseDateTime(issuedAt)
  if (issued === undefined || issued <= now + maxIssuedAhead) return undefined
  return {
    code: `${prefix}.issued_in_future`,
    severity: 'danger',
    message: `This sign-in says it was issued at ${issuedAt}, later than now (${new Date(now).toISOString()}): a post-dated proof the site could present long after you signed it.`,
  }
}

/** Why the sign-in URI does not name the requesting site's host, or undefined when it does. */
function uriMismatch(uri: string, origin: Origin): string | undefined {
  const authority = parseUri(uri)?.authority
  if (authority === undefined)
    return `The sign-in URI ${quoted(uri)} names no host to check against ${origin.text}.`
  if (authority.userinfo !== undefined) {
    return `The sign-in URI carries ${quoted(`${authority.userinfo}@`)} before its real host ${quoted(authority.host)}.`
  }
  if (authority.host !== origin.host) {
    return `The sign-in URI's host ${quoted(authority.host)} is not ${origin.host}, the host of the requesting site.`
  }
  return undefined
}

/**
 * What the transport said about the origin, for anything that binds a signature to the dapp's domain:
 * `INVALID` is a `danger` (refused unless allowed); `UNKNOWN` or no verdict at all (a plain `handle()` call,
 * WalletConnect without Verify) is a `caution`: the domain is only what the dapp claims.
 */
export function originVerificationWarnings(
  context: Pick<RequestContext, 'originValidation'>,
  prefix: string,
  domain: string,
): ReviewWarning[] {
  if (context.originValidation === 'VALID') return []
  if (context.originValidation === 'INVALID') {
    return [
      {
        code: `${prefix}.origin_invalid`,
        severity: 'danger',
        message: `The transport could not verify that this request comes from ${quoted(domain)}: its origin does not match the dapp's verified domain.`,
      },
    ]
  }
  return [
    {
      code: `${prefix}.origin_unverified`,
      severity: 'caution',
      message: `${quoted(domain)} is the domain the dapp claims; the transport did not verify it. Sign in only if you opened this site yourself.`,
    },
  ]
}
