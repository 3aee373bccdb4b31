import { parseDateTime } from '../../core/dateTime.js'
import { decodeRecap, isRecap } from '../../core/recap.js'
import { quoted } from '../../core/review.js'
import { hasHiddenCharacters, printableLine } from '../../core/text.js'
import { parseAuthority, parseUri, type Uri } from '../../core/uri.js'

/** One `proposal.requests.authentication` entry (CAIP-122 `AuthenticateParams`), checked field by field. */
export type AuthenticationRequest = {
  domain: string
  /** CAIP-2 chain ids, as the dapp listed them. */
  chains: string[]
  nonce: string
  /** `aud` (sign-client copies the dapp's `uri` there); `ton_proof` for TON Connect's proof. */
  aud: string
  version: string
  iat: string
  exp: string | undefined
  nbf: string | undefined
  statement: string | undefined
  requestId: string | undefined
  resources: string[] | undefined
  /** TON Connect's `ton_proof` (aud `ton_proof`) instead of a CAIP-122 message. */
  tonProof: boolean
}

/** The entry, or why the wallet answers it with nothing (shown in the review, never thrown). */
export type ParsedAuthentication =
  | { ok: true; request: AuthenticationRequest }
  | { ok: false; reason: string }

const chainIdPattern = /^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/
// EIP-4361 `nonce = 8*( ALPHA / DIGIT )`.
const eip4361NoncePattern = /^[A-Za-z0-9]{8,}$/
const maxChains = 32
const maxResources = 32
const maxFieldLength = 1024
/** A resource may be a ReCap (EIP-5573), whose JSON makes it longer than other fields. */
const maxResourceLength = 8192
/**
 * URI schemes that do not name a place to go but run or open something (a wallet may show a resource or the
 * URI as a link): refused in `aud`/`uri` and resources.
 */
const unsafeSchemes = new Set([
  'javascript',
  'vbscript',
  'data',
  'blob',
  'file',
  'filesystem',
  'about',
  'view-source',
  'jar',
])

class Refusal extends Error {}

function refuse(reason: string): never {
  throw new Refusal(reason)
}

/** Dapp input: own fields only (`__proto__`, `constructor` never reach a prototype). */
const own = (record: Record<string, unknown>, field: string): unknown =>
  Object.hasOwn(record, field) ? record[field] : undefined

function optionalString(record: Record<string, unknown>, field: string): string | undefined {
  const value = own(record, field)
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') refuse(`${field} is not a string`)
  if (value.length > maxFieldLength) refuse(`${field} is longer than ${maxFieldLength} characters`)
  refuseHidden(field, value)
  return value
}

/** Text the review shows or the key signs must read as it is: no control, bidi or invisible characters. */
function refuseHidden(field: string, value: string): void {
  if (hasHiddenCharacters(value) || /\t/.test(value))
    refuse(`${field} holds control, bidi or invisible characters: ${printableLine(value, 120)}`)
}

/** A URI the wallet may show as a link: one that names a place, not one that runs or opens something. */
function refuseUnsafeScheme(field: string, uri: Uri): void {
  const scheme = uri.scheme.toLowerCase()
  if (unsafeSchemes.has(scheme)) refuse(`${field} is a ${scheme}: URI, which runs or opens something`)
}

function dateTime(record: Record<string, unknown>, field: string): string | undefined {
  const value = optionalString(record, field)
  if (value !== undefined && parseDateTime(value) === undefined) {
    refuse(`${field} ${quoted(value)} is not an RFC 3339 date-time`)
  }
  return value
}

/**
 * Checks one authentication entry of a session proposal against CAIP-122 and, for a sign-in message, EIP-4361's
 * grammar (a field that would not survive `formatMessage` or our sign-in parser is refused here, before any
 * review); a validity window that excludes `now` is refused too, since nothing outside it may be signed. Every
 * text field (the statement, a ton_proof payload) must be free of control, bidi and invisible characters,
 * `aud` and resources must not be `javascript:`-like URIs, and a ReCap resource must decode.
 */
export function parseAuthentication(value: unknown, now: number): ParsedAuthentication {
  try {
    return { ok: true, request: parseStrict(value, now) }
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, reason: error.message }
    return { ok: false, reason: 'the request could not be read' }
  }
}

function parseStrict(value: unknown, now: number): AuthenticationRequest {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse('not an object')
  const record = value as Record<string, unknown>
  const domain = optionalString(record, 'domain')
  if (domain === undefined || domain === '') refuse('domain is missing')
  const authority = parseAuthority(domain)
  if (authority === undefined || authority.userinfo !== undefined) {
    refuse(`domain ${quoted(domain)} is not a host[:port]`)
  }
  const chains = own(record, 'chains')
  if (!Array.isArray(chains) || chains.length === 0) refuse('chains is not a non-empty list')
  if (chains.length > maxChains) refuse(`chains lists more than ${maxChains} chains`)
  for (const [index, chain] of chains.entries()) {
    if (typeof chain !== 'string' || !chainIdPattern.test(chain)) {
      refuse(`chains[${index}] ${typeof chain === 'string' ? quoted(chain) : ''} is not a CAIP-2 chain id`)
    }
  }
  const aud = optionalString(record, 'aud') ?? optionalString(record, 'uri')
  if (aud === undefined) refuse('aud (the dapp uri) is missing')
  const tonProof = aud === 'ton_proof'
  const type = optionalString(record, 'type')
  if (type !== undefined && type !== 'caip122') refuse(`type ${quoted(type)} is not caip122`)
  const version = optionalString(record, 'version') ?? '1'
  if (version !== '1') refuse(`version ${quoted(version)} is not 1`)
  const nonce = optionalString(record, 'nonce') ?? ''
  const statement = optionalString(record, 'statement')
  if (statement !== undefined && /[\r\n]/.test(statement)) refuse('statement spans several lines')
  const requestId = optionalString(record, 'requestId')
  const resources = own(record, 'resources')
  if (resources !== undefined && resources !== null) {
    if (!Array.isArray(resources) || resources.length > maxResources) {
      refuse(`resources is not a list of at most ${maxResources} URIs`)
    }
    for (const [index, resource] of resources.entries()) {
      if (typeof resource !== 'string' || resource.length > maxResourceLength)
        refuse(`resources[${index}] is not a URI of at most ${maxResourceLength} characters`)
      const uri = parseUri(resource)
      if (uri === undefined) refuse(`resources[${index}] is not a URI`)
      refuseUnsafeScheme(`resources[${index}]`, uri)
      // What a ReCap grants is shown and flagged; one that cannot be read would grant what nobody saw.
      if (isRecap(resource)) {
        const recap = decodeRecap(resource)
        if (!recap.ok) refuse(`resources[${index}] is a ReCap that cannot be read: ${recap.reason}`)
      }
    }
  }
  if (!tonProof) {
    if (!eip4361NoncePattern.test(nonce)) refuse('nonce is not 8 or more letters and digits (EIP-4361)')
    const audUri = parseUri(aud)
    if (audUri === undefined) refuse(`aud ${quoted(aud)} is not a URI`)
    refuseUnsafeScheme('aud', audUri)
    if (requestId !== undefined && /[\r\n]/.test(requestId)) refuse('requestId spans several lines')
  }
  const iat = dateTime(record, 'iat') ?? new Date(now).toISOString()
  const exp = dateTime(record, 'exp')
  const nbf = dateTime(record, 'nbf')
  if (exp !== undefined && parseDateTime(exp)! <= now) refuse(`it expired at ${exp}`)
  if (nbf !== undefined && parseDateTime(nbf)! > now) refuse(`it is not valid before ${nbf}`)
  return {
    domain,
    chains: chains as string[],
    nonce,
    aud,
    version,
    iat,
    exp,
    nbf,
    statement,
    requestId,
    resources: resources === undefined || resources === null ? undefined : (resources as string[]),
    tonProof,
  }
}
